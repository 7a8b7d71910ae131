"""Hard tablebase wins converted at one second a move against a defender that resists longest (slow)."""

from __future__ import annotations

import chess
import chess.syzygy
import pytest

from jitfish.engine.engine import Engine, EngineCallbacks, GoParams
from tests.syzygy.positions import TABLE_FOLDER

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("compiled_kernels")]

# The longest wins of 6,000 seeded random positions of each material (DTZ in plies, white to move).
HARD_STARTS = {
    "KBNvK": ("8/8/8/8/8/7B/5k1N/7K w - - 0 1", 62),
    "KQvKR": ("8/K3r3/1Q6/3k4/8/8/8/8 w - - 0 1", 57),
}

# The first search may compile the search kernels (minutes on a busy machine); later ones take milliseconds.
WAIT_SECONDS = 600


def _longest_defence(prober, board: chess.Board) -> chess.Move:
    """The defender's move after which the win takes longest (a drawing move if there is one)."""

    def attacker_dtz(move: chess.Move) -> int:
        board.push(move)
        try:
            if board.is_insufficient_material():
                return 10_000
            dtz = prober.probe_dtz(board)
            return 10_000 if dtz <= 0 else dtz
        finally:
            board.pop()

    return max(board.legal_moves, key=attacker_dtz)


@pytest.mark.parametrize("material", sorted(HARD_STARTS))
def test_a_hard_win_is_converted_within_the_50_move_rule(material):
    start, dtz = HARD_STARTS[material]
    played: list[str] = []
    engine = Engine(EngineCallbacks(on_bestmove=lambda best, ponder: played.append(best)))
    engine.set_option("SyzygyPath", str(TABLE_FOLDER))
    board = chess.Board(start)
    with chess.syzygy.open_tablebase(str(TABLE_FOLDER)) as prober:
        assert prober.probe_dtz(board) == dtz
        while not board.is_game_over() and board.halfmove_clock < 100:
            engine.set_position(start, [move.uci() for move in board.move_stack])
            engine.go(GoParams(movetime=1000))
            assert engine.wait(WAIT_SECONDS)
            board.push_uci(played[-1])
            if not board.is_game_over():
                board.push(_longest_defence(prober, board))
    assert board.is_checkmate() and board.turn == chess.BLACK, (board.fen(), [m.uci() for m in board.move_stack])
