"""Self-play games: adjudication, endings, and short real games checked move by move against the searcher."""

from __future__ import annotations

import functools

import chess
import pytest

import jitfish
from jitfish.board.moves import move_to_uci
from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.search import Searcher
from tuning.datagen.kernels import ENDING_NAMES, PLAYING, ending
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN
from tuning.datagen.quiet import is_quiet
from tuning.datagen.records import RESULTS, game_positions, read_games, unpack, write_games
from tuning.datagen.selfplay import (
    DRAW_MIN_PLY,
    DRAW_PLIES,
    DRAW_SCORE,
    HASH_MB,
    MAX_GAME_PLIES,
    OPENING_MAX_SCORE,
    OPENING_NODES,
    OPENING_PLIES,
    OPENING_PLIES_SPREAD,
    WIN_PLIES,
    WIN_SCORE,
    SelfPlayer,
    adjudicate,
    draw_opening,
    game_rng,
)


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


def _ending(fen: str, moves: list[str] = ()) -> str:
    board = jitfish.Board(fen)
    for move in moves:
        board.push_uci(move)
    p = board.position
    return ENDING_NAMES[ending(p.bbs, p.state, p.key_history, lookup_tables())]


def test_endings_on_the_board():
    assert _ending(chess.STARTING_FEN, ["f2f3", "e7e5", "g2g4", "d8h4"]) == "checkmate"
    assert _ending("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1") == "stalemate"
    assert _ending("7k/8/6K1/8/8/8/8/6N1 b - - 0 1") == "insufficient material"
    assert _ending("7k/8/6K1/8/8/8/8/6R1 b - - 100 80") == "fifty-move rule"
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    assert _ending(chess.STARTING_FEN, shuffle * 2) == "threefold repetition"
    assert _ending(chess.STARTING_FEN, shuffle + shuffle[:3]) == ENDING_NAMES[PLAYING]


@pytest.fixture(scope="module")
def games(fast):
    player = SelfPlayer()
    return [player.play_game(11, index, fast) for index in range(2)]


@pytest.fixture(scope="module")
def stored(games, tmp_path_factory):
    """The games' records, written to a game file and read back."""
    path = tmp_path_factory.mktemp("games") / "games.bin"
    write_games(path, [game.record() for game in games])
    return list(read_games(path))


def _replayed(moves: list[int]) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push(chess.Move.from_uci(move_to_uci(move)))
    return board


def test_games_end_as_their_result_says(games):
    for game in games:
        board = _replayed(game.opening + game.moves)
        on_board = {
            "checkmate": board.is_checkmate,
            "stalemate": board.is_stalemate,
            "insufficient material": board.is_insufficient_material,
            "fifty-move rule": board.is_fifty_moves,
            "threefold repetition": functools.partial(board.is_repetition, 3),
        }
        if game.ending in on_board:
            assert on_board[game.ending]()
            mated = board.turn == chess.WHITE
            assert game.result == ((BLACK_WIN if mated else WHITE_WIN) if game.ending == "checkmate" else DRAW)
        else:
            assert not board.is_game_over(claim_draw=False)
            assert (game.ending, game.result) == adjudicate(game.scores, board.ply())
        assert OPENING_PLIES - OPENING_PLIES_SPREAD <= len(game.opening) <= OPENING_PLIES + OPENING_PLIES_SPREAD


def test_records_are_well_formed_quiet_and_labelled_with_the_game(games, stored):
    assert len(stored) == len(games)
    for game, record in zip(games, stored):
        board = _replayed(game.opening)
        expected = []
        for move, score in zip(game.moves, game.scores):
            played = chess.Move.from_uci(move_to_uci(move))
            if is_quiet(board, played, score if board.turn == chess.WHITE else -score):
                expected.append((board.fen(), score, game.result))
            board.push(played)
        rows = [unpack(row) for row in game_positions(*record)]
        assert rows == expected and len(rows) == game.positions > 0
        for fen, _, result in rows:
            position = chess.Board(fen)
            assert not position.is_check() and position.is_valid() and result in RESULTS


def test_a_records_score_is_a_search_of_its_position_from_whites_view(games, stored, fast):
    """Each label re-searched on fresh tables at the game's settings: the game's searches had the
    game's table behind them, so the scores differ a little, never by a flipped sign or another position."""
    player = SelfPlayer()
    differences = []
    for record in stored:
        for fen, label, _ in (unpack(row) for row in game_positions(*record)):
            player.clear()
            _, score = player.search(Position.from_fen(fen), fast.nodes, fast.depth_cap)
            differences.append(abs(label - (score if " w " in fen else -score)))
    differences.sort()
    assert len(differences) > 100
    assert differences[len(differences) // 2] <= 30  # measured: 13 cp
    assert differences[len(differences) * 8 // 10] <= 60  # measured: 90% within 50 cp


def _reference_game(seed: int, index: int, settings) -> tuple[list[tuple[str, int, float]], str]:
    """The lines and ending of a game as the generator before game files played it: the searcher's
    ``Searcher`` on a python-chess board, python-chess's endings."""
    searcher = Searcher(hash_mb=HASH_MB)
    rng = game_rng(seed, index)
    while True:
        board = draw_opening(rng)
        if (
            board is not None
            and abs(searcher.search(jitfish.Board.from_chess(board), settings.limits(OPENING_NODES)).score)
            <= OPENING_MAX_SCORE
        ):
            break
    engine = jitfish.Board.from_chess(board)
    kept, scores = [], []
    while True:
        found = searcher.search(engine, settings.limits())
        score = found.score if board.turn == chess.WHITE else -found.score
        move = chess.Move.from_uci(found.best_move)
        if is_quiet(board, move, found.score):
            kept.append((board.fen(), score))
        scores.append(score)
        board.push(move)
        engine.push_uci(found.best_move)
        outcome = board.outcome(claim_draw=False)
        over = board.is_repetition(3) or board.is_fifty_moves() or outcome is not None
        if over:
            result = DRAW if outcome is None or outcome.winner is None else (WHITE_WIN if outcome.winner else BLACK_WIN)
            ending = "on the board"
        else:
            adjudicated = adjudicate(scores, board.ply())
            if adjudicated is None:
                continue
            ending, result = adjudicated
        return [(fen, score, result) for fen, score in kept], ending


def test_the_games_labels_and_endings_are_the_old_generators(games, stored, fast):
    """Move for move, score for score: the labels of the searcher's searches at the same node limit."""
    for game, record in zip(games, stored):
        lines, ending = _reference_game(11, game.index, fast)
        assert [unpack(row) for row in game_positions(*record)] == lines
        assert game.ending == ending or (ending == "on the board" and game.ending in ENDING_NAMES[1:])


def test_a_search_matches_the_searcher_on_fresh_tables():
    fen = "r1bqk2r/1pppppbp/2n2np1/p7/3P4/NPP2N2/P3PPPP/R1BQKB1R w KQkq - 1 6"
    move, score = SelfPlayer().search(Position.from_fen(fen), 5000, 16)
    found = Searcher(hash_mb=16).search(jitfish.Board(fen), jitfish.search.SearchLimits(16, 40000, soft_nodes=5000))
    assert (move_to_uci(move), score) == (found.best_move, found.score)
