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
* continuation history: ``[piece, to]`` of the move one or two plies back (the stack's ``piece_to``) x
  ``[piece, to]`` of a quiet move: how it did after those moves, with gravity like history.

Adding a table means its entry in ``HEURISTICS_FIELDS``, its index function and its lines in
:func:`quiet_history` and :func:`update_quiet_entries` here, and, if it is indexed by something of an earlier
ply that the stack does not hold yet, a stack field (:mod:`jitfish.search.buffers`).  Every function takes
the search context, the ply and the move, so the picker and negamax do not change.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import WHILE_WAITING, kernel
from jitfish.board import layout as L
from jitfish.board.moves import move_from, move_from_to, move_to
from jitfish.search.buffers import HEURISTICS_OFFSETS, SCORES, STACK_ROOT, move_list

KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
CONTINUATION = HEURISTICS_OFFSETS["continuation"]
PIECE_TO = 12 * 64           # [piece, to] pairs: a continuation history row
HISTORY_MAX = 16384
# A quiet move's ordering score: the killers and the countermove above any history score (and below the
# picker's good captures, SCORE_GOOD_CAPTURE = 1 << 28).
SCORE_KILLER_1 = 1 << 27
SCORE_KILLER_2 = SCORE_KILLER_1 - 1
SCORE_COUNTERMOVE = SCORE_KILLER_1 - 2
SEARCHED_QUIET = -(1 << 31)  # the score slot of a quiet move once searched (below every real score)


@kernel(hot=True)
def history_index(side, move):
    return HISTORY + side * 4096 + move_from_to(move)


@kernel(hot=True)
def countermove_index(previous_move):
    return COUNTERMOVES + move_from_to(previous_move)


@kernel(hot=True, inline=True)
def continuation_index(ctx, ply, back, move):
    """The continuation history entry of the quiet ``move`` at ``ply`` after the move made ``back`` plies
    earlier, or -1 where that was the null move or none (below the root)."""
    earlier = ctx.stack[ply - back + STACK_ROOT]
    if earlier.move == 0:
        return -1
    return CONTINUATION + earlier.piece_to * PIECE_TO + ctx.state[L.MAILBOX + move_from(move)] * 64 + move_to(move)


@kernel(hot=True, cold_start=WHILE_WAITING)
def history_bonus(depth):
    return min(16 * depth * depth + 32 * depth, 1200)


@kernel(hot=True, inline=True)
def _apply_bonus(work, index, bonus):
    """Move a history entry by ``bonus``, the less the nearer it already is to +-HISTORY_MAX (gravity)."""
    value = np.int64(work[index])
    value += bonus - value * abs(bonus) // HISTORY_MAX
    work[index] = value


# The read side.


@kernel(hot=True, inline=True)
def quiet_history(ctx, ply, move):
    """What the history tables say of the quiet ``move`` at ``ply``: the sum of their entries for it."""
    work = ctx.work
    value = np.int64(work[history_index(ctx.state[L.SIDE_TO_MOVE], move)])
    for back in (1, 2):
        index = continuation_index(ctx, ply, back, move)
        if index >= 0:
            value += work[index]
    return value


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
    for back in (1, 2):
        index = continuation_index(ctx, ply, back, move)
        if index >= 0:
            _apply_bonus(ctx.work, index, bonus)


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
