"""Self-play games: adjudication, endings on the board, and short real games checked move by move."""

from __future__ import annotations

import chess
import pytest

import jitfish
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN, parse_line
from tuning.datagen.quiet import is_quiet
from tuning.datagen.selfplay import (DRAW_MIN_PLY, DRAW_PLIES, DRAW_SCORE, MAX_GAME_PLIES, OPENING_MAX_SCORE,
                                     OPENING_NODES, OPENING_PLIES, OPENING_PLIES_SPREAD, WIN_PLIES, WIN_SCORE,
                                     adjudicate, ending_on_board, play_game)


def test_a_win_is_adjudicated_when_both_sides_agree_for_enough_plies():
    assert adjudicate([0] + [WIN_SCORE] * WIN_PLIES, 30) == ("adjudicated win", WHITE_WIN)
    assert adjudicate([-WIN_SCORE - 500] * WIN_PLIES, 30) == ("adjudicated win", BLACK_WIN)
    assert adjudicate([WIN_SCORE - 1] + [WIN_SCORE] * (WIN_PLIES - 1), 30) is None
    assert adjudicate([WIN_SCORE] * (WIN_PLIES - 1), 30) is None


def test_a_draw_is_adjudicated_only_late_and_level():
    level = [DRAW_SCORE, -DRAW_SCORE] * DRAW_PLIES
    assert adjudicate(level, DRAW_MIN_PLY) == ("adjudicated draw", DRAW)
    assert adjudicate(level, DRAW_MIN_PLY - 1) is None
    assert adjudicate(level[:-1] + [DRAW_SCORE + 1], DRAW_MIN_PLY) is None


def test_a_game_at_the_move_limit_is_a_draw():
    assert adjudicate([300] * 10, MAX_GAME_PLIES) == ("move limit", DRAW)


def test_endings_on_the_board():
    mated = chess.Board()
    for move in ["f2f3", "e7e5", "g2g4", "d8h4"]:
        mated.push_uci(move)
    assert ending_on_board(mated) == ("checkmate", BLACK_WIN)
    assert ending_on_board(chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")) == ("stalemate", DRAW)
    assert ending_on_board(chess.Board("7k/8/6K1/8/8/8/8/6N1 b - - 0 1")) == ("insufficient material", DRAW)
    shuffled = chess.Board()
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"] * 2:
        assert ending_on_board(shuffled) is None
        shuffled.push_uci(move)
    assert ending_on_board(shuffled) == ("threefold repetition", DRAW)


def _replayed(moves: list[str]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


@pytest.fixture(scope="module")
def games(searcher, fast):
    return [play_game(searcher, 11, index, fast) for index in range(2)]


def test_games_end_as_their_result_says(games):
    for game in games:
        board = _replayed(game.opening + game.moves)
        assert (game.ending, game.result) == (ending_on_board(board) or adjudicate(game.scores, board.ply()))
        assert OPENING_PLIES - OPENING_PLIES_SPREAD <= len(game.opening) <= OPENING_PLIES + OPENING_PLIES_SPREAD


def test_lines_are_well_formed_quiet_and_labelled_with_the_game(games):
    for game in games:
        assert game.lines
        board = _replayed(game.opening)
        expected = []
        for move, score in zip(game.moves, game.scores):
            if is_quiet(board, chess.Move.from_uci(move), score):
                expected.append((board.fen(), score, game.result))
            board.push_uci(move)
        parsed = [parse_line(line) for line in game.lines]
        assert parsed == expected
        for fen, score, result in parsed:
            position = chess.Board(fen)
            assert not position.is_check() and position.is_valid()
            assert result == game.result and abs(score) < 10_000


def test_openings_are_scored_playable_by_a_quick_search(searcher, fast, games):
    for game in games:
        searcher.clear()   # as play_game does before it vets the opening
        vetted = searcher.search(jitfish.Board.from_chess(_replayed(game.opening)), fast.limits(OPENING_NODES))
        assert abs(vetted.score) <= OPENING_MAX_SCORE


def test_a_game_depends_only_on_its_seed_and_index(searcher, fast, games):
    play_game(searcher, 5, 0, fast)   # another game first: the table and heuristics must not matter
    again = play_game(searcher, 11, 1, fast)
    assert (again.opening, again.moves, again.lines) == (games[1].opening, games[1].moves, games[1].lines)
    assert play_game(searcher, 12, 1, fast).opening != again.opening
