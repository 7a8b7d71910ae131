"""Names for the search's domain: scores, depths, plies and mate distances.

A score is an ``int`` in centipawns from the side to move.  Mates are scored
``MATE - ply`` (mate delivered ``ply`` half-moves from the root), so a
shorter mate always scores higher; anything beyond ``MATE_BOUND`` in
absolute value is a mate score.  Tablebase wins and losses (``TB_WIN``) sit
between the mates and every evaluation.  ``INF`` is wider than every real score.
"""

from __future__ import annotations

from jitfish.runtime.jit import WHILE_WAITING, kernel

Score = int
Depth = int
Ply = int

MAX_PLY = 128  # deepest ply the search reaches (stacks are sized by it)
MATE = 32000
INF = 32001
MATE_BOUND = MATE - MAX_PLY  # |score| >= MATE_BOUND: a mate score
# A tablebase win found ``ply`` half-moves from the root scores ``TB_WIN - ply``:
# above every evaluation, below every mate, so a proven mate still sorts first.
TB_WIN = MATE_BOUND - MAX_PLY
TB_WIN_BOUND = TB_WIN - MAX_PLY  # MATE_BOUND > |score| >= TB_WIN_BOUND: a tablebase result
DRAW = 0

# Bound types, as stored in the transposition table.
BOUND_NONE = 0
BOUND_UPPER = 1  # fail-low: the true score is at most this
BOUND_LOWER = 2  # fail-high: the true score is at least this
BOUND_EXACT = 3


@kernel(hot=True, cold_start=WHILE_WAITING)
def mate_in(ply):
    """The score of giving mate ``ply`` half-moves from the root."""
    return MATE - ply


@kernel(hot=True)
def mated_in(ply):
    """The score of being mated ``ply`` half-moves from the root."""
    return -MATE + ply


def mate_moves(score: int) -> int | None:
    """Mate in N *moves* as UCI ``score mate N`` says it (negative when being mated), else ``None``."""
    if score >= MATE_BOUND:
        return (MATE - score + 1) // 2
    if score <= -MATE_BOUND:
        return -((MATE + score) // 2)
    return None
