"""Jitfish through python-chess's UCI client (``chess.engine.SimpleEngine.popen_uci``)."""

from __future__ import annotations

import time

import chess
import chess.engine
import pytest

from jitfish.engine.strength import MIN_ELO
from tests.uci.conftest import ENGINE_COMMAND, READY_TIMEOUT, REPO


@pytest.fixture(scope="module")
def client(warm_cache):
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, cwd=REPO, timeout=READY_TIMEOUT)
    engine.ping()  # isready -> readyok: kernels loaded
    yield engine
    engine.quit()


def test_identity_and_options(client):
    assert client.id["name"].startswith("Jitfish")
    for name in ("Hash", "Threads", "MultiPV", "Ponder", "UCI_Chess960", "UCI_Elo", "Skill Level"):
        assert name in client.options
    assert client.options["Hash"].default == 16


def test_analyse_with_multipv_3(client):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    infos = client.analyse(board, chess.engine.Limit(depth=5), multipv=3)
    assert len(infos) == 3
    first_moves = [info["pv"][0] for info in infos]
    assert len(set(first_moves)) == 3
    assert all(move in board.legal_moves for move in first_moves)
    assert all(info["depth"] >= 5 and "score" in info for info in infos)
    scores = [info["score"].relative.score(mate_score=100_000) for info in infos]
    assert scores == sorted(scores, reverse=True)


def test_analyse_finds_a_mate(client):
    board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = client.analyse(board, chess.engine.Limit(depth=6))
    assert info["score"].relative == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("a1a8")


def test_play_with_clocks_and_increments(client):
    board = chess.Board()
    # A real game clock, long enough that a loaded machine's pipe latency cannot flag it.
    clocks = {chess.WHITE: 5.0, chess.BLACK: 5.0}
    increment = 0.05
    for _ in range(16):
        if board.is_game_over():
            break
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=increment, black_inc=increment
        )
        started = time.perf_counter()
        result = client.play(board, limit)
        used = time.perf_counter() - started
        clocks[board.turn] -= used - increment
        assert clocks[board.turn] > 0, "lost on time"
        assert result.move in board.legal_moves
        board.push(result.move)


def test_pondering_with_ponderhit(client):
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=5, black_clock=5, white_inc=0.1, black_inc=0.1)
    result = client.play(board, limit, ponder=True)
    assert result.move in board.legal_moves and result.ponder is not None
    board.push(result.move)
    board.push(result.ponder)  # the expected reply: python-chess sends ponderhit
    result = client.play(board, limit, ponder=True)
    assert result.move in board.legal_moves
    board.push(result.move)
    board.push(next(move for move in board.legal_moves if move != result.ponder))  # a miss: stop
    result = client.play(board, limit, ponder=False)
    assert result.move in board.legal_moves


def test_chess960_castling(client):
    board = chess.Board("1r2k1r1/pppppppp/8/8/8/8/8/1R2K1R1 w KQkq - 0 1", chess960=True)
    castles = [m for m in board.legal_moves if board.is_castling(m)]
    assert {board.uci(m, chess960=True) for m in castles} == {"e1b1", "e1g1"}
    for castle in castles:
        info = client.analyse(board, chess.engine.Limit(depth=2), root_moves=[castle])
        assert info["pv"][0] == castle  # python-chess parsed king-takes-rook back into the move
    result = client.play(board, chess.engine.Limit(depth=3), root_moves=castles)
    assert board.is_castling(result.move)


def test_threads_2(client):
    client.configure({"Threads": 2})
    try:
        board = chess.Board("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7")
        info = client.analyse(board, chess.engine.Limit(time=1.0))
        assert info["pv"][0] in board.legal_moves and info["nodes"] > 0
        # The move played is the threads' vote, and the last info line gives its line.
        result = client.play(board, chess.engine.Limit(time=0.5), info=chess.engine.INFO_PV)
        assert result.move in board.legal_moves and result.info["pv"][0] == result.move
        # With two threads the mate in 2 (1.Ra6 bxa6 2.b7#) is still found, at its exact distance.
        info = client.analyse(chess.Board("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"), chess.engine.Limit(mate=2))
        assert info["score"].relative == chess.engine.Mate(2) and info["pv"][0] == chess.Move.from_uci("a1a6")
    finally:
        client.configure({"Threads": 1})


def test_weakened_play_is_legal(client):
    client.configure({"UCI_LimitStrength": True, "UCI_Elo": MIN_ELO})  # the weakest level
    try:
        board = chess.Board()
        for _ in range(6):
            move = client.play(board, chess.engine.Limit(time=0.2)).move
            assert move in board.legal_moves
            board.push(move)
    finally:
        client.configure({"UCI_LimitStrength": False, "Skill Level": 20})
