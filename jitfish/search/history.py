"""Move-ordering memory: killer moves, the history heuristics and countermoves.

All of it lives at the front of the search's ``int32`` work array
(:mod:`jitfish.search.buffers`), at the offsets below:

* killers: two quiet moves per ply that caused a beta cutoff there;
* history (the "butterfly" table): ``[side, from, to]`` scores of quiet moves,
  raised when a move cuts off and lowered for the quiet moves tried before it
  ("gravity", :func:`update_history`, keeps them within +-HISTORY_MAX);
* countermoves: ``[from, to]`` of the opponent's last move -> the quiet reply
  that refuted it;
* continuation history: ``[earlier move's key, move's key]`` scores of quiet
  moves, a move's key being its piece and to-square (:func:`continuation_key`),
  for the moves made one, two and four plies before (one table for all three,
  updated as the butterfly table is).  A quiet move that is good in reply to a
  given piece landing on a given square tends to stay good whatever else
  changed, which the butterfly table, blind to the context, cannot say.  Each
  ply's stack record keeps the row its move selects (``cont_row``); the row of
  "no move" (the padding below the root, a null move) is one more row, so no
  reader needs a guard.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import WHILE_WAITING, kernel
from jitfish.board.layout import field_offsets
from jitfish.board import layout as L
from jitfish.board.moves import move_from, move_from_to, move_to
from jitfish.types import MAX_PLY

PIECE_SQUARES = 12 * 64              # continuation keys: piece * 64 + to-square
HEURISTICS_FIELDS = (
    ("killers", 2 * (MAX_PLY + 2)),  # [2 * ply + slot]
    ("history", 2 * 64 * 64),        # [side * 4096 + from + 64 * to]
    ("countermoves", 64 * 64),       # [from + 64 * to] of the previous move
    ("continuation", (PIECE_SQUARES + 1) * PIECE_SQUARES),   # [earlier key * PIECE_SQUARES + key]; last row: no move
)
HEURISTICS_OFFSETS, HEURISTICS_SIZE = field_offsets(HEURISTICS_FIELDS)
KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
CONTINUATION = HEURISTICS_OFFSETS["continuation"]
NO_CONTINUATION_ROW = CONTINUATION + PIECE_SQUARES * PIECE_SQUARES   # the row after no move
HISTORY_MAX = 16384


@kernel(hot=True)
def history_index(side, move):
    return HISTORY + side * 4096 + move_from_to(move)


@kernel(hot=True, cold_start=WHILE_WAITING)
def history_bonus(depth):
    return min(16 * depth * depth + 32 * depth, 1200)


@kernel(hot=True, inline=True)
def continuation_key(state, move):
    """The moving piece and the to-square of ``move``, not yet made (``state``: the position before it)."""
    return state[L.MAILBOX + move_from(move)] * 64 + move_to(move)


@kernel(hot=True, inline=True)
def continuation_row(state, move):
    """Where the continuation scores of the replies to ``move`` (not yet made) begin in the work array."""
    return CONTINUATION + continuation_key(state, move) * PIECE_SQUARES


@kernel(hot=True, inline=True)
def apply_gravity(heuristics, index, bonus):
    """Move a history score by ``bonus``, the less the nearer it already is to +-HISTORY_MAX on that side:
    it never leaves that range, and a move's score follows its recent results."""
    value = np.int64(heuristics[index])
    value += bonus - value * abs(bonus) // HISTORY_MAX
    heuristics[index] = value


@kernel(hot=True, cold_start=WHILE_WAITING)
def update_history(heuristics, side, move, bonus):
    apply_gravity(heuristics, history_index(side, move), bonus)


@kernel(hot=True, cold_start=WHILE_WAITING)
def store_killer(heuristics, ply, move):
    slot = KILLERS + 2 * ply
    if heuristics[slot] != move:
        heuristics[slot + 1] = heuristics[slot]
        heuristics[slot] = move


@kernel(hot=True, cold_start=WHILE_WAITING)
def clear_killers(heuristics, ply):
    heuristics[KILLERS + 2 * ply] = 0
    heuristics[KILLERS + 2 * ply + 1] = 0


@kernel(hot=True)
def countermove_index(previous_move):
    return COUNTERMOVES + move_from_to(previous_move)
