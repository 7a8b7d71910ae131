"""Move-ordering memory: killer moves, the history heuristic and countermoves.

All three live at the front of the search's ``int32`` work array
(:mod:`jitfish.search.buffers`), at the offsets below:

* killers: two quiet moves per ply that caused a beta cutoff there;
* history: ``[side, from, to]`` scores of quiet moves, raised when a move cuts
  off and lowered for the quiet moves tried before it ("gravity" keeps them
  within +-HISTORY_MAX);
* countermoves: ``[from, to]`` of the opponent's last move -> the quiet reply
  that refuted it.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import WHILE_WAITING, kernel
from jitfish.board.layout import field_offsets
from jitfish.board.moves import move_from_to
from jitfish.types import MAX_PLY

HEURISTICS_FIELDS = (
    ("killers", 2 * (MAX_PLY + 2)),  # [2 * ply + slot]
    ("history", 2 * 64 * 64),        # [side * 4096 + from + 64 * to]
    ("countermoves", 64 * 64),       # [from + 64 * to] of the previous move
)
HEURISTICS_OFFSETS, HEURISTICS_SIZE = field_offsets(HEURISTICS_FIELDS)
KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
HISTORY_MAX = 16384


@kernel(hot=True)
def history_index(side, move):
    return HISTORY + side * 4096 + move_from_to(move)


@kernel(hot=True, cold_start=WHILE_WAITING)
def history_bonus(depth):
    return min(16 * depth * depth + 32 * depth, 1200)


@kernel(hot=True, cold_start=WHILE_WAITING)
def update_history(heuristics, side, move, bonus):
    index = history_index(side, move)
    value = np.int64(heuristics[index])
    value += bonus - value * abs(bonus) // HISTORY_MAX
    heuristics[index] = value


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
