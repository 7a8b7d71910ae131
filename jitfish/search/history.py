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
  captures nothing has no entry);
* correction history: what the static evaluation misses, by what the position is made of.  Three kinds of
  table, as in Stockfish, Alexandria and Sirius: ``[side, pawn structure]``, ``[side, colour, that colour's
  other pieces]`` (both keyed by a hash of the bitboards, :func:`correction_slots`) and ``[piece_to two
  plies back, piece_to one ply back]`` (the moves that led here).  :func:`corrected_eval` adds their
  weighted entries to the evaluation that negamax and quiescence stand on; :func:`update_correction`, when
  a node's search says the corrected evaluation was off, moves each entry towards the error with gravity
  (``CORRECTION_MAX``).  Two structures that share a slot only blur each other's entry, and a correction
  never makes a tablebase or mate score: entries are read clamped and the sum stays below
  ``TB_WIN_BOUND``.

Every score table moves with "gravity" (:func:`_gravity`): an entry moves by the bonus less its own share
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
from jitfish.board.squares import BLACK, KING, KNIGHT, PAWN, WHITE
from jitfish.runtime.jit import WHILE_WAITING, kernel
from jitfish.search.buffers import (
    CORRECTION_BITS,
    CORRECTION_SLOTS,
    HEURISTICS_OFFSETS,
    NO_EVAL,
    SCORES,
    STACK_ROOT,
    move_list,
)
from jitfish.search.params import Param
from jitfish.search.see import captured_type, is_quiet
from jitfish.search.tt import prefetch
from jitfish.types import TB_WIN_BOUND

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
PAWN_CORRECTION = HEURISTICS_OFFSETS["pawn_correction"]
NON_PAWN_CORRECTION = HEURISTICS_OFFSETS["non_pawn_correction"]
CONTINUATION_CORRECTION = HEURISTICS_OFFSETS["continuation_correction"]
CORRECTION_MAX = 1024  # a correction entry stays within +-this (gravity; the CORRECTION_*_CP weigh a full one) ...
CORRECTION_BONUS_MAX = CORRECTION_MAX // 4  # ... and one result moves it by at most this
CORRECTED_EVAL_MAX = TB_WIN_BOUND - 1  # a corrected evaluation is never a tablebase or mate score
# Odd 64-bit multipliers (the golden ratio's, MurmurHash3's finaliser's and others): the top bits of the
# sum of the products depend on every square of every bitboard hashed.
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


@kernel(hot=True, inline=True)
def correction_slots(ctx, ply):
    """The correction entries of the position at ``ply``: its pawn-structure entry, each colour's non-pawn
    entry (knights to king), and the continuation entry after the last two moves, or -1 where one of those
    was the null move or none (below the root)."""
    bbs = ctx.bbs
    side = ctx.state[L.SIDE_TO_MOVE]
    pawns = bbs[WHITE * 6 + PAWN] * _MIX[0] + bbs[BLACK * 6 + PAWN] * _MIX[1]
    pawn = PAWN_CORRECTION + side * CORRECTION_SLOTS + np.int64(pawns >> _HASH_SHIFT)
    white = np.uint64(0)
    black = np.uint64(0)
    for piece in range(KNIGHT, KING + 1):
        white += bbs[WHITE * 6 + piece] * _MIX[piece - KNIGHT]
        black += bbs[BLACK * 6 + piece] * _MIX[piece - KNIGHT]
    non_pawn = NON_PAWN_CORRECTION + side * 2 * CORRECTION_SLOTS
    white_slot = non_pawn + WHITE * CORRECTION_SLOTS + np.int64(white >> _HASH_SHIFT)
    black_slot = non_pawn + BLACK * CORRECTION_SLOTS + np.int64(black >> _HASH_SHIFT)
    last = ctx.stack[ply - 1 + STACK_ROOT]
    before = ctx.stack[ply - 2 + STACK_ROOT]
    continuation = np.int64(-1)
    if last.move != 0 and before.move != 0:
        continuation = CONTINUATION_CORRECTION + before.piece_to * PIECE_TO + last.piece_to
    return pawn, white_slot, black_slot, continuation


@kernel(hot=True, inline=True)
def correction_prefetch(ctx, ply):
    """Start fetching the correction entries of the position at ``ply``: called right after the move to it,
    as the TT bucket is, so the tables' cache misses overlap the child's work before its evaluation."""
    pawn, white, black, continuation = correction_slots(ctx, ply)
    prefetch(ctx.work, pawn)
    prefetch(ctx.work, white)
    prefetch(ctx.work, black)
    if continuation >= 0:
        prefetch(ctx.work, continuation)


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
def _gravity(value, bonus, limit):
    """``value`` moved by ``bonus``, the less the nearer it already is to +-``limit``: with ``|bonus| <=
    limit`` it never leaves +-``limit``."""
    return value + bonus - value * abs(bonus) // limit


@kernel(hot=True, inline=True)
def _apply_bonus(work, index, bonus):
    """Move a history entry by ``bonus`` with :func:`_gravity` within +-HISTORY_MAX."""
    work[index] = _gravity(np.int64(work[index]), bonus, HISTORY_MAX)


@kernel(hot=True, inline=True)
def _correction_entry(work, index):
    """A correction entry, read clamped to +-CORRECTION_MAX whatever the table holds (0: no entry)."""
    if index < 0:
        return np.int64(0)
    return max(-CORRECTION_MAX, min(CORRECTION_MAX, np.int64(work[index])))


@kernel(hot=True, inline=True)
def _move_correction(work, index, bonus):
    """Move a correction entry by ``bonus`` with :func:`_gravity` within +-CORRECTION_MAX."""
    if index >= 0:
        work[index] = _gravity(_correction_entry(work, index), bonus, CORRECTION_MAX)


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


@kernel(hot=True, inline=True)
def corrected_eval(ctx, ply, raw_eval):
    """``raw_eval`` (the side to move's static evaluation at ``ply``) plus what the correction tables say it
    misses here: each entry's share of ``CORRECTION_PAWN_CP``, ``CORRECTION_NON_PAWN_CP`` (each colour's)
    and ``CORRECTION_CONTINUATION_CP``, which a full entry (CORRECTION_MAX) adds; never a tablebase or
    mate score."""
    params, work = ctx.params, ctx.work
    pawn, white, black, continuation = correction_slots(ctx, ply)
    total = (
        _correction_entry(work, pawn) * params[Param.CORRECTION_PAWN_CP]
        + (_correction_entry(work, white) + _correction_entry(work, black)) * params[Param.CORRECTION_NON_PAWN_CP]
        + _correction_entry(work, continuation) * params[Param.CORRECTION_CONTINUATION_CP]
    )
    corrected = raw_eval + total // CORRECTION_MAX
    return max(-CORRECTED_EVAL_MAX, min(CORRECTED_EVAL_MAX, corrected))


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


@kernel(hot=True, inline=True)
def correction_bonus(params, error, depth):
    """What a search of ``depth`` plies that found the corrected evaluation off by ``error`` centipawns moves
    each correction entry by: ``error * depth / CORRECTION_BONUS_DIVISOR``, at most CORRECTION_BONUS_MAX
    (deeper results say more)."""
    bonus = error * depth // params[Param.CORRECTION_BONUS_DIVISOR]
    return max(-CORRECTION_BONUS_MAX, min(CORRECTION_BONUS_MAX, bonus))


@kernel(hot=True, inline=True)
def update_correction(ctx, ply, move, score, static_eval, beta, depth):
    """A node at ``ply`` searched ``depth`` plies, with ``move`` best (0: none) and ``score``, against its
    corrected evaluation ``static_eval`` and ``beta``: move every correction entry of the position towards
    the error, where the result measures it.  Not in check (no evaluation), not when a capture or promotion
    was best (the score then follows material the evaluation never saw), not a mate or tablebase score,
    and a bound only on the side it bounds: a score below the evaluation that did not fail high, or one
    above it with a best move (Stockfish's rule)."""
    if static_eval == NO_EVAL or abs(score) >= TB_WIN_BOUND:
        return
    if move != 0 and not is_quiet(ctx.state, move):
        return
    if not ((score < static_eval and score < beta) or (score > static_eval and move != 0)):
        return
    bonus = correction_bonus(ctx.params, score - static_eval, depth)
    pawn, white, black, continuation = correction_slots(ctx, ply)
    work = ctx.work
    _move_correction(work, pawn, bonus)
    _move_correction(work, white, bonus)
    _move_correction(work, black, bonus)
    _move_correction(work, continuation, bonus)
