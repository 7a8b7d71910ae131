"""The search's history: what it remembers of earlier cut-offs, read to order, reduce and prune the moves
of later nodes.

Every table is read and written here, and nowhere else, as in the ``history.h`` of Ethereal or Weiss:

* read: :func:`order_quiets` writes the ordering score of each quiet move in a node's move list -- the two
  killers, then the countermove, then :func:`quiet_history`, the sum of the quiet tables' entries for the
  move.  The picker (:mod:`jitfish.search.movepick`) calls it when it reaches the quiet moves, and negamax
  reads the score it wrote to reduce (LMR) and prune (history pruning) a late quiet move.
  :func:`capture_history` is the capture table's entry for a capture: the picker adds it to MVV-LVA, and
  negamax's SEE pruning of captures lowers or raises its threshold by it;
* write: :func:`update_histories`, when a move cuts off.  A quiet move becomes the ply's killer and the
  countermove of the previous move, and :func:`update_quiet_entries` raises its entries and lowers those of
  the quiet moves searched before it; a capture's entry rises; the captures searched before the move that
  cut off fall, whichever kind it was (:func:`mark_searched` marks the moves searched in the move list).

The tables (laid out by ``HEURISTICS_FIELDS`` in :mod:`jitfish.search.buffers`, at the front of the work
array, which ``ucinewgame`` clears):

* killers: two quiet moves per ply that caused a beta cutoff there;
* history ("butterfly"): ``[side, from, to]`` scores of quiet moves;
* countermoves: ``[from, to]`` of the opponent's last move -> the quiet reply that refuted it;
* continuation history: ``[piece, to]`` of the move one or two plies back (the stack's ``piece_to``: the
  opponent's last move, our own last one) x ``[piece, to]`` of a quiet move: how it did after those moves.
  One table serves both distances, as in Stockfish (four plies back too was tried: it solved fewer of the
  tactics suites at fixed nodes, so :func:`continuation_rows` leaves it out);
* capture history: ``[piece, to, captured type]`` of a capture (en passant takes a pawn; a promotion that
  captures nothing has no entry).

Every score table moves with "gravity" (:func:`_apply_bonus`): an entry moves by the bonus less its own share
of it, ``entry += bonus - entry * |bonus| / HISTORY_MAX``, so it stays within +-HISTORY_MAX and an old
verdict fades as new ones come.  The bonus of a cut-off grows with the depth searched
(:func:`history_bonus`, the ``HISTORY_BONUS_*`` parameters of :mod:`jitfish.search.params`); the malus of
the moves that failed before it is ``HISTORY_MALUS_PCT`` of it.

Adding a table means its entry in ``HEURISTICS_FIELDS``, its index function and its lines in
:func:`quiet_history` (or :func:`capture_history`) and :func:`update_quiet_entries` (or
:func:`update_capture_entry`) here, and, if it is indexed by something of an earlier ply that the stack does
not hold yet, a stack field (:mod:`jitfish.search.buffers`).  The functions take the search context, the
ply and the move, so the picker and negamax do not change.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.moves import move_from, move_from_to, move_to
from jitfish.runtime.jit import WHILE_WAITING, kernel
from jitfish.search.buffers import HEURISTICS_OFFSETS, SCORES, STACK_ROOT, move_list
from jitfish.search.params import Param
from jitfish.search.see import captured_type

KILLERS = HEURISTICS_OFFSETS["killers"]
HISTORY = HEURISTICS_OFFSETS["history"]
COUNTERMOVES = HEURISTICS_OFFSETS["countermoves"]
CONTINUATION = HEURISTICS_OFFSETS["continuation"]
CAPTURES = HEURISTICS_OFFSETS["captures"]
PIECE_TO = 12 * 64  # [piece, to] pairs: a continuation history row
CAPTURED_TYPES = 6  # a capture history row: by the type taken (pawn ... queen; the king's slot stays empty)
HISTORY_MAX = 16384  # every score table's entries stay within +-this (gravity); no bonus is bigger
# A quiet move's ordering score: the killers and the countermove above any history score (and below the
# picker's good captures, SCORE_GOOD_CAPTURE = 1 << 28).
SCORE_KILLER_1 = 1 << 27
SCORE_KILLER_2 = SCORE_KILLER_1 - 1
SCORE_COUNTERMOVE = SCORE_KILLER_1 - 2
SEARCHED_QUIET = -(1 << 31)  # the score slot of a quiet move once searched (below every real score) ...
SEARCHED_NOISY = SEARCHED_QUIET + 1  # ... and of a capture or promotion


@kernel(hot=True)
def history_index(side, move):
    return HISTORY + side * 4096 + move_from_to(move)


@kernel(hot=True)
def countermove_index(previous_move):
    return COUNTERMOVES + move_from_to(previous_move)


@kernel(hot=True, inline=True)
def piece_to(state, move):
    """``piece * 64 + to``: the continuation history's index of ``move`` (before it is made)."""
    return state[L.MAILBOX + move_from(move)] * 64 + move_to(move)


@kernel(hot=True, inline=True)
def _continuation_row(ctx, ply, back):
    """Where the continuation history row after the move made ``back`` plies before ``ply`` begins, or -1
    where that was the null move or none (below the root)."""
    earlier = ctx.stack[ply - back + STACK_ROOT]
    if earlier.move == 0:
        return -1
    return CONTINUATION + earlier.piece_to * PIECE_TO


@kernel(hot=True, inline=True)
def continuation_rows(ctx, ply):
    """The continuation history rows a quiet move at ``ply`` reads and moves: after the moves one and two
    plies back (a move's entry is its row + :func:`piece_to`)."""
    return _continuation_row(ctx, ply, 1), _continuation_row(ctx, ply, 2)


@kernel(hot=True, inline=True)
def capture_index(state, move, victim):
    """The capture history entry of ``move``, which takes a piece of type ``victim``, or -1 if it takes
    nothing (``victim`` < 0: a promotion)."""
    if victim < 0:
        return -1
    return CAPTURES + piece_to(state, move) * CAPTURED_TYPES + victim


@kernel(hot=True, cold_start=WHILE_WAITING)
def history_bonus(params, depth):
    """What a cut-off after a search of ``depth`` plies adds to its move's entries: ``a * depth^2 + b *
    depth``, at most ``HISTORY_BONUS_MAX`` (the parameters' ``HISTORY_BONUS_*``)."""
    return min(
        params[Param.HISTORY_BONUS_DEPTH2] * depth * depth + params[Param.HISTORY_BONUS_DEPTH] * depth,
        params[Param.HISTORY_BONUS_MAX],
    )


@kernel(hot=True, inline=True)
def history_malus(params, bonus):
    """What the moves searched before a cut-off lose: ``HISTORY_MALUS_PCT`` of the cut-off's bonus."""
    return bonus * params[Param.HISTORY_MALUS_PCT] // 100


@kernel(hot=True, inline=True)
def _apply_bonus(work, index, bonus):
    """Move a history entry by ``bonus``, the less the nearer it already is to +-HISTORY_MAX (gravity):
    with ``|bonus| <= HISTORY_MAX`` it never leaves +-HISTORY_MAX."""
    value = np.int64(work[index])
    value += bonus - value * abs(bonus) // HISTORY_MAX
    work[index] = value


# The read side.


@kernel(hot=True, inline=True)
def quiet_history(ctx, rows, move):
    """What the quiet tables say of the quiet ``move``: the sum of its entries in the butterfly history and
    in the continuation ``rows`` of its ply (:func:`continuation_rows`, read once for a node's moves)."""
    work = ctx.work
    value = np.int64(work[history_index(ctx.state[L.SIDE_TO_MOVE], move)])
    target = piece_to(ctx.state, move)
    for row in rows:
        if row >= 0:
            value += work[row + target]
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
    rows = continuation_rows(ctx, ply)
    for i in range(start, end):
        move = np.int64(work[i])
        if move == killer_1:
            work[i + SCORES] = SCORE_KILLER_1
        elif move == killer_2:
            work[i + SCORES] = SCORE_KILLER_2
        elif move == counter:
            work[i + SCORES] = SCORE_COUNTERMOVE
        else:
            work[i + SCORES] = quiet_history(ctx, rows, move)


@kernel(hot=True, inline=True)
def capture_history(state, work, move, victim):
    """What the capture history says of ``move``, which takes a piece of type ``victim`` (0 if it takes
    nothing); the picker and negamax call it with the arrays they hold."""
    index = capture_index(state, move, victim)
    return np.int64(work[index]) if index >= 0 else np.int64(0)


# The write side.


@kernel(hot=True, inline=True)
def clear_killers(ctx, ply):
    """No killers at ``ply`` yet (a node clears its children's: killers of cousins say little)."""
    ctx.work[KILLERS + 2 * ply] = 0
    ctx.work[KILLERS + 2 * ply + 1] = 0


@kernel(hot=True, inline=True)
def mark_searched(ctx, slot, quiet):
    """Note that the move at ``slot`` was searched, for :func:`update_histories` (its ordering score is no
    longer needed: the picker only looks at the moves after the one it handed out)."""
    ctx.work[slot + SCORES] = SEARCHED_QUIET if quiet else SEARCHED_NOISY


@kernel(hot=True, inline=True)
def update_quiet_entries(ctx, rows, move, bonus):
    """Move every quiet table's entry for the quiet ``move`` by ``bonus`` (with gravity): the butterfly
    history's and those in the continuation ``rows`` of its ply (:func:`continuation_rows`)."""
    _apply_bonus(ctx.work, history_index(ctx.state[L.SIDE_TO_MOVE], move), bonus)
    target = piece_to(ctx.state, move)
    for row in rows:
        if row >= 0:
            _apply_bonus(ctx.work, row + target, bonus)


@kernel(hot=True, inline=True)
def update_capture_entry(ctx, move, bonus):
    """Move the capture history entry of ``move`` by ``bonus`` (with gravity); nothing if it captures nothing."""
    index = capture_index(ctx.state, move, captured_type(ctx.state, move))
    if index >= 0:
        _apply_bonus(ctx.work, index, bonus)


@kernel(hot=True, inline=True)
def update_histories(ctx, ply, move, depth, slot, quiet):
    """``move`` (at ``slot``, quiet or not) cut off at ``ply``, searched ``depth`` plies: remember it.

    A quiet move becomes the ply's first killer and the countermove of the previous move (except at the
    root: it has none, and the null move's entry is the one quiescence reads), its quiet entries rise, and
    those of the quiet moves searched before it fall; a capture's entry rises.  The captures searched
    before it fall either way.  Moves pruned, excluded or left out at the root keep their entries: they did
    not fail, they were not tried.
    """
    work = ctx.work
    bonus = history_bonus(ctx.params, depth)
    malus = history_malus(ctx.params, bonus)
    rows = continuation_rows(ctx, ply)
    if quiet:
        killer = KILLERS + 2 * ply
        if work[killer] != move:
            work[killer + 1] = work[killer]
            work[killer] = move
        update_quiet_entries(ctx, rows, move, bonus)
        if ply > 0:
            work[countermove_index(ctx.stack[ply - 1 + STACK_ROOT].move)] = move
    else:
        update_capture_entry(ctx, move, bonus)
    for j in range(move_list(ply), slot):
        marker = work[j + SCORES]
        if marker == SEARCHED_NOISY:
            update_capture_entry(ctx, np.int64(work[j]), -malus)
        elif quiet and marker == SEARCHED_QUIET:
            update_quiet_entries(ctx, rows, np.int64(work[j]), -malus)
