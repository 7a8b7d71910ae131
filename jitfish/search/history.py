"""The search's history: what it remembers of earlier cut-offs, read to order the moves of later nodes.

Every table is read and written here, and nowhere else, as in the ``history.h`` of Ethereal or Weiss:

* read: :func:`order_quiets` writes the ordering score of each quiet move in a node's move list -- the two
  killers, then the countermove, then :func:`quiet_history`, the sum of the history tables' entries for the
  move.  The picker (:mod:`jitfish.search.movepick`) calls it when it reaches the quiet moves;
* write: :func:`update_quiet_histories`, when a quiet move cuts off: it becomes the ply's killer and the
  countermove of the previous move, and :func:`update_quiet_entries` raises its entries and lowers those of
  the quiet moves searched before it (:func:`mark_searched_quiet` marks them in the move list).

The tables (laid out by ``HEURISTICS_FIELDS`` in :mod:`jitfish.search.buffers`, at the front of the work
array, which ``ucinewgame`` clears):

* killers: two quiet moves per ply that caused a beta cutoff there;
* history: ``[side, from, to]`` scores of quiet moves, raised when a move cuts off and lowered for the quiet
  moves tried before it ("gravity" keeps them within +-HISTORY_MAX);
* countermoves: ``[from, to]`` of the opponent's last move -> the quiet reply that refuted it;
* correction history: ``[side, pawn-structure hash]`` and ``[side, colour, hash of that colour's pieces
  other than pawns]`` -> the running mean of (search score - static evaluation), in 1/``CORRECTION_GRAIN``
  centipawns.  The evaluation misjudges some structures the same way wherever they occur; a search that
  ended with a reliable score there says by how much (:func:`update_correction`), and negamax adds the
  tables' weighted means to the static evaluation its pruning reads (:func:`corrected_eval`).  The hashes
  are computed from the bitboards when needed, so the position's incremental state is not touched; two
  structures that share a slot only blur each other's mean.  A correction can never make a mate or a
  tablebase score: each entry is read clamped to +-``CORRECTION_LIMIT`` and the corrected evaluation stays
  below ``TB_WIN_BOUND`` (a first version without the read clamp missed a mate in 4 once its table held
  arbitrary values: ``tests/search/test_history.py``).

Adding a table means its entry in ``HEURISTICS_FIELDS``, its index function and its lines in
:func:`quiet_history` and :func:`update_quiet_entries` here, and, if it is indexed by something of an earlier
ply that the stack does not hold yet, a stack field (:mod:`jitfish.search.buffers`).  Every function takes
the search context, the ply and the move, so the picker and negamax do not change.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import WHILE_WAITING, kernel
from jitfish.board import layout as L
from jitfish.board.moves import move_from_to
from jitfish.board.squares import BLACK, KING, KNIGHT, PAWN, WHITE
from jitfish.search.buffers import CORRECTION_BITS, CORRECTION_SLOTS, HEURISTICS_OFFSETS, SCORES, STACK_ROOT, move_list
from jitfish.search.params import (
    CORRECTION_LIMIT,
    CORRECTION_NON_PAWN_PCT,
    CORRECTION_PAWN_PCT,
    CORRECTION_WEIGHT_MAX,
)
from jitfish.types import TB_WIN_BOUND

KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
HISTORY_MAX = 16384
# A quiet move's ordering score: the killers and the countermove above any history score (and below the
# picker's good captures, SCORE_GOOD_CAPTURE = 1 << 28).
SCORE_KILLER_1 = 1 << 27
SCORE_KILLER_2 = SCORE_KILLER_1 - 1
SCORE_COUNTERMOVE = SCORE_KILLER_1 - 2
SEARCHED_QUIET = -(1 << 31)  # the score slot of a quiet move once searched (below every real score)
PAWN_CORRECTION = HEURISTICS_OFFSETS["pawn_correction"]
NON_PAWN_CORRECTION = HEURISTICS_OFFSETS["non_pawn_correction"]
CORRECTION_GRAIN = 256  # correction entries are in 1/256 centipawns ...
CORRECTION_WEIGHT_SCALE = 256  # ... and a result moves an entry by at most weight / 256 of the way
CORRECTED_EVAL_MAX = TB_WIN_BOUND - 1  # a corrected evaluation is never a tablebase or mate score
# Odd 64-bit multipliers (the golden ratio's, MurmurHash's and others): the top bits of the sum of the
# products depend on every square of every bitboard hashed.
_MIX = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xC2B2AE3D27D4EB4F),
    np.uint64(0x165667B19E3779F9),
    np.uint64(0xD6E8FEB86659FD93),
    np.uint64(0xFF51AFD7ED558CCD),
)
_HASH_SHIFT = np.uint64(64 - CORRECTION_BITS)


@kernel(hot=True)
def history_index(side, move):
    return HISTORY + side * 4096 + move_from_to(move)


@kernel(hot=True)
def countermove_index(previous_move):
    return COUNTERMOVES + move_from_to(previous_move)


@kernel(hot=True, cold_start=WHILE_WAITING)
def history_bonus(depth):
    return min(16 * depth * depth + 32 * depth, 1200)


@kernel(hot=True, inline=True)
def _apply_bonus(work, index, bonus):
    """Move a history entry by ``bonus``, the less the nearer it already is to +-HISTORY_MAX (gravity)."""
    value = np.int64(work[index])
    value += bonus - value * abs(bonus) // HISTORY_MAX
    work[index] = value


@kernel(hot=True, inline=True)
def pawn_correction_index(bbs, side):
    """The pawn-correction slot of the position's pawn structure, for ``side`` to move."""
    mixed = bbs[WHITE * 6 + PAWN] * _MIX[0] + bbs[BLACK * 6 + PAWN] * _MIX[1]
    return PAWN_CORRECTION + side * CORRECTION_SLOTS + np.int64(mixed >> _HASH_SHIFT)


@kernel(hot=True, inline=True)
def non_pawn_correction_index(bbs, side, colour):
    """The non-pawn-correction slot of ``colour``'s knights, bishops, rooks, queens and king, for ``side``
    to move."""
    base = colour * 6
    mixed = np.uint64(0)
    for piece in range(KNIGHT, KING + 1):
        mixed += bbs[base + piece] * _MIX[piece - KNIGHT]
    return NON_PAWN_CORRECTION + (side * 2 + colour) * CORRECTION_SLOTS + np.int64(mixed >> _HASH_SHIFT)


@kernel(hot=True, inline=True)
def _correction_entry(work, index, limit):
    """A correction entry, clamped to +-``limit`` centipawns whatever the table holds."""
    return max(-limit * CORRECTION_GRAIN, min(limit * CORRECTION_GRAIN, np.int64(work[index])))


# The read side.


@kernel(hot=True, inline=True)
def corrected_eval(ctx, raw_eval):
    """``raw_eval`` (the side to move's static evaluation) plus what the correction tables say the
    evaluation misses here: the pawn table's mean by ``CORRECTION_PAWN_PCT``, each colour's non-pawn
    table's by ``CORRECTION_NON_PAWN_PCT``; never a tablebase or mate score."""
    params, work, bbs = ctx.params, ctx.work, ctx.bbs
    side = ctx.state[L.SIDE_TO_MOVE]
    limit = params[CORRECTION_LIMIT]
    total = _correction_entry(work, pawn_correction_index(bbs, side), limit) * params[CORRECTION_PAWN_PCT]
    for colour in range(2):
        total += (
            _correction_entry(work, non_pawn_correction_index(bbs, side, colour), limit)
            * params[CORRECTION_NON_PAWN_PCT]
        )
    corrected = raw_eval + total // (100 * CORRECTION_GRAIN)
    return max(-CORRECTED_EVAL_MAX, min(CORRECTED_EVAL_MAX, corrected))


@kernel(hot=True, inline=True)
def quiet_history(ctx, ply, move):
    """What the history tables say of the quiet ``move`` at ``ply``: the sum of their entries for it."""
    return np.int64(ctx.work[history_index(ctx.state[L.SIDE_TO_MOVE], move)])


@kernel(hot=True, inline=True)
def order_quiets(ctx, ply, start, end, previous):
    """Write the ordering score of each quiet move in ``work[start:end]`` (``SCORES`` slots after it): the
    killers of ``ply``, then the countermove of ``previous``, then :func:`quiet_history`.

    ``previous`` is the move the countermove answers: the parent's move in negamax; quiescence, which keeps
    no countermoves of its own, passes ``NO_MOVE`` and so reads the null move's entry.
    """
    work = ctx.work
    killer_1 = work[KILLERS + 2 * ply]
    killer_2 = work[KILLERS + 2 * ply + 1]
    counter = work[countermove_index(previous)]
    for i in range(start, end):
        move = np.int64(work[i])
        if move == killer_1:
            work[i + SCORES] = SCORE_KILLER_1
        elif move == killer_2:
            work[i + SCORES] = SCORE_KILLER_2
        elif move == counter:
            work[i + SCORES] = SCORE_COUNTERMOVE
        else:
            work[i + SCORES] = quiet_history(ctx, ply, move)


# The write side.


@kernel(hot=True, inline=True)
def clear_killers(ctx, ply):
    """No killers at ``ply`` yet (a node clears its children's: killers of cousins say little)."""
    ctx.work[KILLERS + 2 * ply] = 0
    ctx.work[KILLERS + 2 * ply + 1] = 0


@kernel(hot=True, inline=True)
def mark_searched_quiet(ctx, slot):
    """Note that the quiet move at ``slot`` was searched, for :func:`update_quiet_histories` (its ordering
    score is no longer needed: the picker only looks at the moves after the one it handed out)."""
    ctx.work[slot + SCORES] = SEARCHED_QUIET


@kernel(hot=True, inline=True)
def update_quiet_entries(ctx, ply, move, bonus):
    """Move every history table's entry for the quiet ``move`` at ``ply`` by ``bonus`` (with gravity)."""
    _apply_bonus(ctx.work, history_index(ctx.state[L.SIDE_TO_MOVE], move), bonus)


@kernel(hot=True, inline=True)
def update_quiet_histories(ctx, ply, move, depth, slot):
    """The quiet ``move`` at ``slot`` cut off at ``ply``, searched ``depth`` plies: remember it.

    It becomes the ply's first killer and the countermove of the previous move (except at the root: it has
    none, and the null move's entry is the one quiescence reads), its history entries rise, and those of
    the quiet moves searched before it fall (not of those pruned, excluded or left out at the root: they
    did not fail, they were not tried).
    """
    work = ctx.work
    killer = KILLERS + 2 * ply
    if work[killer] != move:
        work[killer + 1] = work[killer]
        work[killer] = move
    bonus = history_bonus(depth)
    update_quiet_entries(ctx, ply, move, bonus)
    if ply > 0:
        work[countermove_index(ctx.stack[ply - 1 + STACK_ROOT].move)] = move
    for j in range(move_list(ply), slot):
        if work[j + SCORES] == SEARCHED_QUIET:
            update_quiet_entries(ctx, ply, np.int64(work[j]), -bonus)


@kernel(hot=True, inline=True)
def _fold_correction(work, index, target, weight):
    value = np.int64(work[index])
    work[index] = (value * (CORRECTION_WEIGHT_SCALE - weight) + target * weight) // CORRECTION_WEIGHT_SCALE


@kernel(hot=True, inline=True)
def update_correction(ctx, error, depth):
    """A search of ``depth`` plies found the static evaluation off by ``error`` centipawns (score - raw
    evaluation, side to move's view): fold it, clamped to +-``CORRECTION_LIMIT``, into the running mean
    of every correction table's slot; deeper results weigh more (up to ``CORRECTION_WEIGHT_MAX`` / 256).
    A mean of clamped values stays within the clamp."""
    params, work, bbs = ctx.params, ctx.work, ctx.bbs
    side = ctx.state[L.SIDE_TO_MOVE]
    limit = params[CORRECTION_LIMIT]
    weight = min(depth + 1, params[CORRECTION_WEIGHT_MAX])
    target = max(-limit, min(limit, error)) * CORRECTION_GRAIN
    _fold_correction(work, pawn_correction_index(bbs, side), target, weight)
    for colour in range(2):
        _fold_correction(work, non_pawn_correction_index(bbs, side, colour), target, weight)
