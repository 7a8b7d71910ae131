"""Which positions get a line: quiet ones, whose score a static evaluation can be asked to match.

A position is kept when the side to move is not in check, the best move is
neither a capture (en passant included) nor a promotion, and the score is not
a mate score.  A tuner fits the static evaluation (or a quiescence search) to
these scores and results; in a position with a capture or a check pending the
score is decided by tactics the evaluation does not see, and a mate score is
not a centipawn figure at all.
"""

from __future__ import annotations

import chess

from jitfish.types import MATE_BOUND


def is_quiet(board: chess.Board, best_move: chess.Move, score: int) -> bool:
    """Whether ``board`` is worth a line: not in check, ``best_move`` quiet, ``score`` (centipawns, or
    Jitfish's ``MATE - ply`` for mates, either side's view) not a mate."""
    return (
        not board.is_check()
        and not board.is_capture(best_move)
        and best_move.promotion is None
        and abs(score) < MATE_BOUND
    )
