"""At a root in the tables the engine plays a move that keeps the tablebase result, 50-move rule included."""

from __future__ import annotations

import random

import chess
import chess.syzygy
import pytest

from jitfish.engine.engine import Engine, EngineCallbacks, GoParams
from jitfish.syzygy.root import move_dtz
from tests.syzygy.positions import TABLE_FOLDER, random_position

pytestmark = pytest.mark.usefixtures("compiled_kernels")

# The first search may compile the search kernels (minutes on a busy machine); later ones take milliseconds.
WAIT_SECONDS = 600


def _result(dtz: int, clock: int) -> int:
    """Win (1), draw (0) or loss (-1) for the mover once the clock is counted."""
    if dtz > 0:
        return 1 if dtz + clock <= 99 else 0
    if dtz < 0:
        return -1 if -dtz + clock <= 99 else 0
    return 0


class _Played:
    def __init__(self) -> None:
        self.move = None

    def __call__(self, best: str, ponder: str | None) -> None:
        self.move = best


@pytest.mark.slow
def test_root_moves_keep_the_tablebase_result_on_500_positions():
    played = _Played()
    engine = Engine(EngineCallbacks(on_bestmove=played))
    engine.set_option("SyzygyPath", str(TABLE_FOLDER))
    rng = random.Random(500)
    checked = {1: 0, 0: 0, -1: 0}
    with chess.syzygy.open_tablebase(str(TABLE_FOLDER)) as prober:
        while sum(checked.values()) < 500:
            board = random_position(rng)
            if board.is_game_over():
                continue
            board.halfmove_clock = rng.choice((0, 0, 20, 40, 60, 80))
            engine.set_position(board.fen(), [])
            engine.go(GoParams(nodes=300))
            assert engine.wait(WAIT_SECONDS)
            move = chess.Move.from_uci(played.move)
            assert move in board.legal_moves
            best = max(_result(move_dtz(prober, board, m), board.halfmove_clock) for m in board.legal_moves)
            assert _result(move_dtz(prober, board, move), board.halfmove_clock) == best, (board.fen(), move)
            checked[best] += 1
    assert min(checked.values()) >= 20, checked  # wins, draws and losses were all tried
