"""The search's memory: killer moves, the history heuristics, countermoves and the eval correction.

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
  reader needs a guard;
* correction history: ``[side, pawn-structure hash]`` -> the running mean of
  (search score - static evaluation), in 1/``CORRECTION_GRAIN`` centipawns.
  The evaluation misjudges some pawn structures the same way wherever they
  occur; a search that ended with a reliable score there says by how much, and
  negamax adds the mean to the static evaluation its pruning decisions read.
  The pawn hash is computed from the two pawn bitboards when needed
  (:func:`correction_index`), so the position's incremental state is not
  touched; two structures that share a slot only blur each other's mean.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import WHILE_WAITING, kernel
from jitfish.board.layout import field_offsets
from jitfish.board import layout as L
from jitfish.board.moves import move_from, move_from_to, move_to
from jitfish.board.squares import BLACK, PAWN, WHITE
from jitfish.types import MAX_PLY

PIECE_SQUARES = 12 * 64              # continuation keys: piece * 64 + to-square
CORRECTION_BITS = 14                 # pawn-hash slots per side: 2 ** CORRECTION_BITS
HEURISTICS_FIELDS = (
    ("killers", 2 * (MAX_PLY + 2)),  # [2 * ply + slot]
    ("history", 2 * 64 * 64),        # [side * 4096 + from + 64 * to]
    ("countermoves", 64 * 64),       # [from + 64 * to] of the previous move
    ("continuation", (PIECE_SQUARES + 1) * PIECE_SQUARES),   # [earlier key * PIECE_SQUARES + key]; last row: no move
    ("correction", 2 << CORRECTION_BITS),                     # [side << CORRECTION_BITS | pawn hash]
)
HEURISTICS_OFFSETS, HEURISTICS_SIZE = field_offsets(HEURISTICS_FIELDS)
KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
CONTINUATION = HEURISTICS_OFFSETS["continuation"]
NO_CONTINUATION_ROW = CONTINUATION + PIECE_SQUARES * PIECE_SQUARES   # the row after no move
CORRECTION = HEURISTICS_OFFSETS["correction"]
HISTORY_MAX = 16384
CORRECTION_GRAIN = 256               # correction entries are in 1/256 centipawns ...
CORRECTION_WEIGHT_SCALE = 256        # ... and a result moves its entry by at most weight / 256 of the way
# Odd 64-bit multipliers (the golden ratio's and MurmurHash's): the top bits of a product depend on every pawn.
_PAWN_MIX_WHITE = np.uint64(0x9E3779B97F4A7C15)
_PAWN_MIX_BLACK = np.uint64(0xC2B2AE3D27D4EB4F)
_PAWN_HASH_SHIFT = np.uint64(64 - CORRECTION_BITS)


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


@kernel(hot=True, inline=True)
def correction_index(bbs, side):
    """The correction-history slot of the position's pawn structure, for ``side`` to move."""
    mixed = bbs[WHITE * 6 + PAWN] * _PAWN_MIX_WHITE ^ bbs[BLACK * 6 + PAWN] * _PAWN_MIX_BLACK
    return CORRECTION + (side << CORRECTION_BITS) + np.int64(mixed >> _PAWN_HASH_SHIFT)


@kernel(hot=True, inline=True)
def eval_correction(heuristics, bbs, side):
    """What the correction history adds to the static evaluation (centipawns, side to move's view)."""
    return np.int64(heuristics[correction_index(bbs, side)]) // CORRECTION_GRAIN


@kernel(hot=True, cold_start=WHILE_WAITING)
def update_correction(heuristics, bbs, side, error, depth, limit, weight_max):
    """Fold a search result's ``error`` (score - static evaluation, clamped to +-``limit``
    centipawns) into the running mean of its pawn structure; deeper results weigh more (up to
    ``weight_max`` / CORRECTION_WEIGHT_SCALE).  A mean of clamped values stays within +-limit."""
    index = correction_index(bbs, side)
    weight = min(depth + 1, weight_max)
    target = max(-limit, min(limit, error)) * CORRECTION_GRAIN
    value = np.int64(heuristics[index])
    heuristics[index] = (value * (CORRECTION_WEIGHT_SCALE - weight) + target * weight) // CORRECTION_WEIGHT_SCALE


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
