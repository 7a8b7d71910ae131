"""Move ordering as a staged picker: the search asks for the next move, the picker decides which.

A node's moves go into its slots of the search's ``work`` array (a move's
ordering score ``SCORES`` slots after it, :mod:`jitfish.search.buffers`):
negamax starts a picker, which generates them (:func:`init_picker`), then
calls :func:`next_move` until it returns -1.
The picker's state lives in the node's stack record (``pick_*``), so
negamax and quiescence keep one each per ply.

Negamax's stages (``STAGE_*``), in the order they hand moves out:

1. the TT move: most cut nodes cut off on it, and then nothing else is
   generated or scored.  A legal one (:func:`jitfish.board.movegen.is_legal_normal_move`)
   is handed out before the other moves are generated (``STAGE_TT_ALONE``);
   they are generated when the next move is asked for, and the TT move is
   put first among them, as when it is found in the list (castling, en
   passant), so the order after it is the same either way;
2. the captures and queen promotions, moved to the front of the list and
   scored by MVV-LVA (most valuable victim, then least valuable attacker)
   weighted by ``CAPTURE_MVV_LVA_WEIGHT``, plus their capture history
   (:func:`jitfish.search.history.capture_history`), which can move a capture
   past a victim or two of another class; each is checked by SEE only when it
   comes up, and one that loses material is put back as a bad capture;
3. once no good capture is left, the quiet moves are scored by
   :func:`jitfish.search.history.order_quiets` -- the two killers, then the
   countermove, then the rest by history -- and handed out
   best first together with what is left: the bad captures after every quiet
   move, the under-promotions last.  Killers and the countermove are scores
   rather than stages of their own: the moves are generated all at once, so a
   stage that looked them up would be one more pass over the list for the
   same order.

The first ``SELECTION_PICKS`` moves are picked by selection (one pass per
move), which is cheaper than sorting when a cut-off comes early; a node that
will search many moves (``sort_rest``) sorts the rest once after them.  When
the node starts skipping quiet moves (late move pruning, futility) it says
so with :func:`skip_quiet_moves`: it will search only the checks among them,
so the picker stops ordering and hands out the rest as they lie.

Quiescence scores its moves (captures, or every evasion in check) all at
once and picks them by selection (``STAGE_ALL_SCORED``); its SEE pruning
is the caller's.

A good capture's score carries the SEE verdict on its exchange in its low
bit (set once checked); :func:`see_verdict` is the one place that reads it.
Moves are read from the ``int32`` slots with :func:`move_at`.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.movegen import generate_moves, is_legal_normal_move
from jitfish.board.moves import move_from, move_promotion, piece_type
from jitfish.board.squares import QUEEN
from jitfish.runtime.jit import ENGINE_FIRST, kernel
from jitfish.search.buffers import SCORES, STACK_ROOT, move_list
from jitfish.search.context import ALL_MOVES, NO_MOVE, ZERO
from jitfish.search.history import HISTORY_MAX, capture_history, order_quiets
from jitfish.search.params import Param
from jitfish.search.see import captured_type, see_ge

SCORE_TT_MOVE = 1 << 30
SCORE_GOOD_CAPTURE = 1 << 28
SCORE_BAD_CAPTURE = -(1 << 28)
SCORE_UNDERPROMOTION = -(1 << 29)
SEE_CHECKED = 1  # low bit of a good capture's score: its exchange was checked by SEE
# A score's SEE verdict (see_verdict).
NOT_GOOD_CAPTURE = 0  # not ordered among the good captures
SEE_UNCHECKED = 1  # a good capture by MVV-LVA whose exchange is not checked yet
SEE_WINS = 2  # a capture whose exchange SEE found to win or trade material
SELECTION_PICKS = 4  # negamax's moves picked by selection before the rest are sorted at once

# The picker's stages.
STAGE_TT = 0  # hand out the TT move, put first by init_picker
STAGE_NOISY_FIRST = 1  # move the captures and promotions to the front and score them
STAGE_GOOD_NOISY = 2  # captures by MVV-LVA, each checked by SEE as it comes up
STAGE_REST = 3  # the quiet moves scored; they, the bad captures and under-promotions best first
STAGE_SORTED = 4  # the rest sorted at once: hand them out as they lie
STAGE_ALL_SCORED = 5  # quiescence: every move scored at the start, picked by selection
STAGE_TT_ALONE = 6  # hand out the TT move, the only move generated so far (the rest after it: next_move)


@kernel(hot=True, inline=True)
def move_at(work, slot):
    """The move in ``slot`` of the work array, as the int64 every kernel takes moves as (one compiled
    version of each callee serves the search and the Python API)."""
    return np.int64(work[slot])


@kernel(hot=True)
def mvv_lva(state, move, victim):
    """Bigger for a more valuable victim, then for a less valuable attacker."""
    attacker = piece_type(state[L.MAILBOX + move_from(move)])
    bonus = 0
    if move_promotion(move) == QUEEN:
        bonus = 64
    return (victim + 1) * 16 - attacker + bonus


@kernel(hot=True, inline=True)
def _noisy_score(state, work, mvv_lva_weight, move, victim):
    """A capture or promotion: under-promotions last, else among the good captures by MVV-LVA (times
    ``CAPTURE_MVV_LVA_WEIGHT``) plus capture history (lifted by ``HISTORY_MAX``, so that the worst history
    still leaves it among the good captures).

    The exchange is not checked yet (the low bit is clear): SEE is costly and
    most nodes cut off before their later captures are reached, so
    :func:`pick_checked` checks a capture only when it comes up.
    """
    promotion = move_promotion(move)
    if promotion and promotion != QUEEN:
        return SCORE_UNDERPROMOTION + victim
    weighted = mvv_lva(state, move, victim) * mvv_lva_weight
    return SCORE_GOOD_CAPTURE + 2 * (weighted + capture_history(state, work, move, victim) + HISTORY_MAX)


@kernel(hot=True, llvm_inline=True, cold_start=ENGINE_FIRST)
def score_moves(ctx, start, count, tt_move, ply):
    """Score the moves in ``work[start:start + count]`` (quiescence's picker): captures as negamax's picker
    does, quiet moves (evasions) by :func:`jitfish.search.history.order_quiets`."""
    state = ctx.state
    work = ctx.work
    for i in range(start, start + count):
        move = move_at(work, i)
        if move == tt_move:
            work[i + SCORES] = SCORE_TT_MOVE
            continue
        victim = captured_type(state, move)
        if victim >= 0 or move_promotion(move):
            work[i + SCORES] = _noisy_score(state, work, ctx.params[Param.CAPTURE_MVV_LVA_WEIGHT], move, victim)
        else:
            order_quiets(ctx, ply, i, i + 1, NO_MOVE)


@kernel(hot=True)
def score_noisy_first(state, work, mvv_lva_weight, start, end):
    """Move the captures and promotions of ``[start, end)`` to its front and score them.

    Returns where the quiet moves begin; they stay unscored until
    :func:`score_quiets`, which a node cut off by a capture never needs.
    """
    quiets = start
    for i in range(start, end):
        move = move_at(work, i)
        victim = captured_type(state, move)
        if victim >= 0 or move_promotion(move):
            work[i] = work[quiets]
            work[quiets] = move
            work[quiets + SCORES] = _noisy_score(state, work, mvv_lva_weight, move, victim)
            quiets += 1
    return quiets


@kernel(hot=True, inline=True)
def score_quiets(ctx, ply, start, end):
    """Score the quiet moves in ``[start, end)`` of negamax's list at ``ply`` (killers, the countermove of
    the parent's move, then history)."""
    order_quiets(ctx, ply, start, end, ctx.stack[ply - 1 + STACK_ROOT].move)


@kernel(hot=True, inline=True)
def pick_move(work, index, end):
    """Swap the best-scored move of ``[index, end)`` to ``index`` and return it."""
    best = index
    for i in range(index + 1, end):
        if work[i + SCORES] > work[best + SCORES]:
            best = i
    if best != index:
        move = work[best]
        score = work[best + SCORES]
        work[best] = work[index]
        work[best + SCORES] = work[index + SCORES]
        work[index] = move
        work[index + SCORES] = score
    return work[index]


@kernel(hot=True, inline=True)
def sort_moves(work, start, end):
    """Sort ``[start, end)`` by score, best first (insertion sort: the lists are short)."""
    for i in range(start + 1, end):
        move = work[i]
        score = work[i + SCORES]
        j = i - 1
        while j >= start and work[j + SCORES] < score:
            work[j + 1] = work[j]
            work[j + 1 + SCORES] = work[j + SCORES]
            j -= 1
        work[j + 1] = move
        work[j + 1 + SCORES] = score


@kernel(hot=True, inline=True)
def see_verdict(score):
    """What an ordering score says of its move's exchange: ``NOT_GOOD_CAPTURE``, ``SEE_UNCHECKED`` or ``SEE_WINS``."""
    if not SCORE_GOOD_CAPTURE <= score < SCORE_TT_MOVE:
        return NOT_GOOD_CAPTURE
    return SEE_WINS if score & SEE_CHECKED else SEE_UNCHECKED


@kernel(hot=True)
def check_capture(bbs, state, tables, work, index):
    """Check the exchange of the good-capture candidate at ``index``: mark it, or demote it."""
    score = work[index + SCORES]
    if see_ge(bbs, state, tables, move_at(work, index), ZERO):
        work[index + SCORES] = score | SEE_CHECKED
        return True
    work[index + SCORES] = score - SCORE_GOOD_CAPTURE + SCORE_BAD_CAPTURE
    return False


@kernel(hot=True, inline=True)
def pick_checked(bbs, state, tables, work, index, end):
    """:func:`pick_move`, with the SEE of a capture picked as good checked first (a loser is put back)."""
    while True:
        pick_move(work, index, end)
        if see_verdict(work[index + SCORES]) != SEE_UNCHECKED or check_capture(bbs, state, tables, work, index):
            return work[index]


@kernel(hot=True)
def check_captures(bbs, state, tables, work, start, end):
    """Check the exchange of every good-capture candidate in ``[start, end)`` (before sorting them)."""
    for i in range(start, end):
        if see_verdict(work[i + SCORES]) == SEE_UNCHECKED:
            check_capture(bbs, state, tables, work, i)


@kernel(hot=True, inline=True)
def _start(node, stage, count, sort_rest):
    node.pick_stage = stage
    node.pick_next = 0
    node.pick_count = count
    node.pick_quiets = count
    node.pick_sort_rest = sort_rest
    node.pick_skip_quiets = 0


@kernel(hot=True, inline=True)
def _put_first(work, base, count, move):
    """Swap ``move``, if among the ``count`` moves at ``base``, into the first slot; whether it was there."""
    for j in range(base, base + count):
        if work[j] == move:
            work[j] = work[base]
            work[base] = move
            return True
    return False


@kernel(hot=True)
def _generate_after_tt_move(bbs, state, tables, work, base):
    """Generate the moves at ``base`` once the TT move there is searched, and put it back first, where
    :func:`init_picker` would have put it (the same order follows); how many there are."""
    tt_move = work[base]
    count = generate_moves(bbs, state, tables, work, base, ALL_MOVES)
    _put_first(work, base, count, tt_move)
    return count


@kernel(hot=True, inline=True)
def init_picker(ctx, ply, tt_move, excluded, sort_rest):
    """Start negamax's picker at ``ply`` (``ctx``: the search context); False if there is no legal move.

    A legal TT move is handed out alone, before the other moves are generated: most cut nodes cut off on it,
    and then nothing else is generated or scored.  Otherwise the moves are generated now, and the TT move,
    if among them (castling, en passant, or the excluded move of a singular search), still goes first.
    """
    work = ctx.work
    base = move_list(ply)
    node = ctx.stack[ply + STACK_ROOT]
    sort_flag = 1 if sort_rest else 0
    if tt_move != 0 and tt_move != excluded and is_legal_normal_move(ctx.bbs, ctx.state, ctx.tables, tt_move):
        work[base] = tt_move
        work[base + SCORES] = SCORE_TT_MOVE
        _start(node, STAGE_TT_ALONE, 1, sort_flag)
        return True
    count = generate_moves(ctx.bbs, ctx.state, ctx.tables, work, base, ALL_MOVES)
    stage = STAGE_NOISY_FIRST
    if tt_move != 0 and _put_first(work, base, count, tt_move):
        work[base + SCORES] = SCORE_TT_MOVE
        stage = STAGE_TT
    _start(node, stage, count, sort_flag)
    return count > 0


@kernel(hot=True, inline=True)
def init_qsearch_picker(ctx, ply, count, tt_move):
    """Start quiescence's picker on the ``count`` moves generated at ``ply``: all scored now."""
    score_moves(ctx, move_list(ply), count, tt_move, ply)
    _start(ctx.stack[ply + STACK_ROOT], STAGE_ALL_SCORED, count, 0)


@kernel(hot=True, inline=True)
def _pick_good_noisy(ctx, ply, at, end, sorting):
    """Stage 2: put the best good capture at ``at`` and return True; False (with the quiet moves
    scored and the stage moved on) once none is left or the rest is about to be sorted."""
    node = ctx.stack[ply + STACK_ROOT]
    quiets = move_list(ply) + node.pick_quiets
    if at < quiets:
        pick_checked(ctx.bbs, ctx.state, ctx.tables, ctx.work, at, quiets)
        if ctx.work[at + SCORES] >= SCORE_GOOD_CAPTURE and not sorting:
            return True
    score_quiets(ctx, ply, quiets, end)
    node.pick_quiets = node.pick_count
    node.pick_stage = STAGE_REST
    return False


@kernel(hot=True, llvm_inline=True, cold_start=ENGINE_FIRST)
def _order(ctx, ply, index):
    """Put the move to hand out ``index``-th at ``ply`` in its slot, as the picker's stage says."""
    bbs, state, tables, work = ctx.bbs, ctx.state, ctx.tables, ctx.work
    node = ctx.stack[ply + STACK_ROOT]
    base = move_list(ply)
    at = base + index
    end = base + node.pick_count
    stage = node.pick_stage
    if stage == STAGE_NOISY_FIRST:
        quiets = score_noisy_first(state, work, ctx.params[Param.CAPTURE_MVV_LVA_WEIGHT], at, end)
        node.pick_quiets = quiets - base
        stage = STAGE_GOOD_NOISY if quiets < end else STAGE_REST  # no quiet move: nothing to wait for
        node.pick_stage = stage
        if node.pick_skip_quiets != 0:
            return
    sorting = node.pick_sort_rest != 0 and index == SELECTION_PICKS
    if stage == STAGE_GOOD_NOISY and _pick_good_noisy(ctx, ply, at, end, sorting):
        return
    if sorting:
        check_captures(bbs, state, tables, work, at, end)
        sort_moves(work, at, end)
        node.pick_stage = STAGE_SORTED
    else:
        pick_checked(bbs, state, tables, work, at, end)


@kernel(hot=True, inline=True)
def next_move(ctx, ply):
    """The slot in ``work`` of the next move to search at ``ply``, or -1 when none is left.

    Inlined into the searches: quiescence's picks, the TT move, and the moves
    handed out as they lie (once sorted, or once quiet moves are skipped) cost
    no call.
    """
    node = ctx.stack[ply + STACK_ROOT]
    index = node.pick_next
    base = move_list(ply)
    if node.pick_stage == STAGE_TT_ALONE and index == 1:
        node.pick_count = _generate_after_tt_move(ctx.bbs, ctx.state, ctx.tables, ctx.work, base)
        node.pick_quiets = node.pick_count
        node.pick_stage = STAGE_NOISY_FIRST
    if index >= node.pick_count:
        return -1
    node.pick_next = index + 1
    at = base + index
    stage = node.pick_stage
    if stage == STAGE_ALL_SCORED:
        pick_move(ctx.work, at, base + node.pick_count)
    elif stage == STAGE_TT:
        node.pick_stage = STAGE_NOISY_FIRST
    elif stage == STAGE_TT_ALONE or stage == STAGE_SORTED:
        pass  # handed out as they lie
    elif stage == STAGE_NOISY_FIRST or node.pick_skip_quiets == 0:
        _order(ctx, ply, index)
    return at


@kernel(hot=True, inline=True)
def skip_quiet_moves(ctx, ply):
    """From now on the node at ``ply`` searches only the checks among its quiet moves: stop ordering."""
    ctx.stack[ply + STACK_ROOT].pick_skip_quiets = 1


@kernel(hot=True, inline=True)
def quiet_score(ctx, ply, slot):
    """The ordering score of the quiet move at ``slot`` (killer, countermove, history), scoring it
    first if the picker handed it out unscored (a check searched while the quiet moves are skipped)."""
    if slot >= move_list(ply) + ctx.stack[ply + STACK_ROOT].pick_quiets:
        score_quiets(ctx, ply, slot, slot + 1)
    return ctx.work[slot + SCORES]
