"""Draws the search recognises without searching: repetition and insufficient material.

(The fifty-move rule needs to know whether the side to move is mated, so
negamax handles it where it has the move list.)
"""

from __future__ import annotations

from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.board.squares import BISHOP, KNIGHT, PAWN, QUEEN, ROOK
from jitfish.runtime.jit import WHILE_WAITING, kernel


@kernel(hot=True, cold_start=WHILE_WAITING)
def is_repetition(bbs, state, key_history):
    """Whether the position occurred before, in the game or the search, since the last irreversible move."""
    ply = state[L.GAME_PLY]
    oldest = max(0, ply - state[L.HALFMOVE_CLOCK])
    key = bbs[L.KEY]
    i = ply - 4
    while i >= oldest:
        if key_history[i] == key:
            return True
        i -= 2
    return False


@kernel(hot=True, cold_start=WHILE_WAITING)
def insufficient_material(bbs):
    """No pawns, rooks or queens and at most one minor piece: nobody can mate."""
    if bbs[PAWN] | bbs[6 + PAWN] | bbs[ROOK] | bbs[6 + ROOK] | bbs[QUEEN] | bbs[6 + QUEEN]:
        return False
    return popcount(bbs[KNIGHT] | bbs[6 + KNIGHT] | bbs[BISHOP] | bbs[6 + BISHOP]) <= 1
