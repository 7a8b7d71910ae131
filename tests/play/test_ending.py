"""How games end, in words and results, and the PGN: its tags (the level, the clocks) and its moves, read
back by python-chess."""

from __future__ import annotations

import datetime
import io

import chess
import chess.pgn
import pytest

from jitfish.play.ending import (
    GameInfo,
    board_ending,
    default_path,
    draw_agreed,
    game_pgn,
    resignation,
    save,
    time_ending,
    unfinished,
)


def played(fen: str, *sans: str) -> chess.Board:
    board = chess.Board(fen)
    for san in sans:
        board.push_san(san)
    return board


FOOLS_MATE = played(chess.STARTING_FEN, "f3", "e5", "g4", "Qh4#")
REPEATED = played(chess.STARTING_FEN, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8")


@pytest.mark.parametrize(
    "board, human, result, words",
    [
        (FOOLS_MATE, chess.WHITE, "0-1", "Checkmate: Jitfish wins, 0-1."),
        (FOOLS_MATE, chess.BLACK, "0-1", "Checkmate: you win, 0-1."),
        (chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), chess.WHITE, "1/2-1/2", "Draw by stalemate, 1/2-1/2."),
        (REPEATED, chess.WHITE, "1/2-1/2", "Draw by threefold repetition, 1/2-1/2."),
        (chess.Board("4k3/8/8/8/8/8/8/4KB2 b - - 0 1"), chess.WHITE, "1/2-1/2", "Draw by insufficient material"),
        (chess.Board("4k3/8/8/8/8/8/8/R3K3 b - - 100 80"), chess.WHITE, "1/2-1/2", "Draw by the fifty-move rule"),
    ],
)
def test_the_position_ends_the_game(board, human, result, words):
    ending = board_ending(board, human)
    assert ending is not None and ending.result == result and ending.words.startswith(words)


def test_a_game_in_progress_has_no_ending():
    assert board_ending(played(chess.STARTING_FEN, "e4"), chess.WHITE) is None


def test_a_repetition_one_move_away_is_not_yet_a_draw():
    twice = played(chess.STARTING_FEN, "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1")
    assert twice.can_claim_threefold_repetition()  # python-chess counts the move to come (...Ng8)
    assert board_ending(twice, chess.WHITE) is None
    fifty = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
    assert fifty.can_claim_fifty_moves() and board_ending(fifty, chess.WHITE) is None


def test_a_flag_loses_unless_the_other_side_cannot_mate():
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 40")
    lost = time_ending(board, chess.WHITE, chess.WHITE)
    assert (lost.result, lost.termination) == ("1/2-1/2", "time forfeit")  # Black has a bare king
    assert lost.words == "Your time ran out, but Jitfish cannot mate: draw, 1/2-1/2."
    won = time_ending(board, chess.BLACK, chess.WHITE)
    assert won.result == "1-0" and won.words == "Jitfish's time ran out: you win on time, 1-0."


def test_resigning_quitting_and_agreeing():
    assert resignation(chess.WHITE).result == "0-1" and resignation(chess.BLACK).result == "1-0"
    assert resignation(chess.WHITE, quit_game=True).termination == "abandoned"
    assert draw_agreed().result == "1/2-1/2" and unfinished().result == "*"


def test_the_pgn_has_the_level_the_clocks_and_the_moves():
    board = played("k7/8/1K6/8/8/8/8/7R w - - 0 1", "Rh2", "Kb8", "Rh8#")
    ending = board_ending(board, chess.WHITE)
    info = GameInfo(chess.WHITE, 825, "300+3", date=datetime.datetime(2026, 12, 7, 17, 50))
    game = game_pgn(board, ending, info, [295.5, 300.0, 290.25])
    back = chess.pgn.read_game(io.StringIO(str(game)))
    assert [move.uci() for move in back.mainline_moves()] == ["h1h2", "a8b8", "h2h8"]
    headers = back.headers
    assert headers["FEN"] == "k7/8/1K6/8/8/8/8/7R w - - 0 1" and headers["SetUp"] == "1"
    assert (headers["White"], headers["Black"]) == ("You", headers["Black"])
    assert "UCI_Elo 825" in headers["Black"] and headers["BlackElo"] == "825" and "WhiteElo" not in headers
    assert (headers["Result"], headers["TimeControl"], headers["Date"]) == ("1-0", "300+3", "2026.12.07")
    assert headers["JitfishLevel"] == "UCI_Elo 825" and headers["Termination"] == "normal"
    assert [node.clock() for node in back.mainline()] == [295.5, 300.0, 290.25]


def test_full_strength_and_a_fixed_time_a_move(tmp_path):
    board = played(chess.STARTING_FEN, "e4")
    game = game_pgn(board, unfinished(), GameInfo(chess.BLACK, None, "-", movetime=1.0))
    path = default_path(datetime.datetime(2026, 12, 7, 17, 50), tmp_path)
    assert path.name == "jitfish-2026-12-07-1750.pgn"
    save(game, path)
    assert default_path(datetime.datetime(2026, 12, 7, 17, 50), tmp_path).name == "jitfish-2026-12-07-1750-2.pgn"
    back = chess.pgn.read_game(io.StringIO(path.read_text()))
    assert back.headers["JitfishLevel"] == "full strength" and back.headers["JitfishMovetime"] == "1"
    assert back.headers["White"].startswith("Jitfish") and back.headers["Result"] == "*"
    assert back.headers["Termination"] == "unterminated"
