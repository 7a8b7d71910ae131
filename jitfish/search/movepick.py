"""Move ordering: score a generated move list, then hand moves out best first.

Moves and their scores live in the search's ``work`` array, a score
``SCORES`` slots after its move (:mod:`jitfish.search.buffers`).

Order: the TT move; winning and even captures by MVV-LVA (most valuable
victim, then least valuable attacker) and queen promotions; the two killers;
the countermove; other quiet moves by history; captures that lose material
(by SEE) last but for under-promotions.  The first few moves are picked by
selection (one pass per move), which is cheaper than sorting when a cutoff
comes early; a node that gets past them sorts the rest once.  Negamax scores
the captures first and the quiet moves only once the good captures are
used up, and checks a capture's exchange by SEE only when it comes up: most
nodes cut off before either is needed.
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import kernel
from jitfish.board import layout as L
from jitfish.board.moves import move_from, move_promotion
from jitfish.board.squares import QUEEN
from jitfish.search.buffers import SCORES
from jitfish.search.history import KILLERS, countermove_index, history_index, update_history
from jitfish.search.see import captured_type, see_ge

SCORE_TT_MOVE = 1 << 30
SCORE_GOOD_CAPTURE = 1 << 28
SCORE_KILLER_1 = 1 << 27
SCORE_KILLER_2 = SCORE_KILLER_1 - 1
SCORE_COUNTERMOVE = SCORE_KILLER_1 - 2
SCORE_BAD_CAPTURE = -(1 << 28)
SCORE_UNDERPROMOTION = -(1 << 29)
SEE_CHECKED = 1              # low bit of a good capture's score: its exchange was checked by SEE
SEARCHED_QUIET = -(1 << 31)  # the score slot of a quiet move once searched (below every real score)


@kernel(hot=True)
def mvv_lva(state, move, victim):
    """Bigger for a more valuable victim, then for a less valuable attacker."""
    attacker = state[L.MAILBOX + move_from(move)] % 6
    bonus = 0
    if move_promotion(move) == QUEEN:
        bonus = 64
    return (victim + 1) * 16 - attacker + bonus


@kernel(hot=True, inline=True)
def _noisy_score(state, move, victim):
    """A capture or promotion: under-promotions last, else MVV-LVA among the good captures.

    The exchange is not checked yet (the low bit is clear): SEE is costly and
    most nodes cut off before their later captures are reached, so
    :func:`pick_checked` checks a capture only when it comes up.
    """
    promotion = move_promotion(move)
    if promotion and promotion != QUEEN:
        return SCORE_UNDERPROMOTION + victim
    return SCORE_GOOD_CAPTURE + 2 * mvv_lva(state, move, victim)


@kernel(hot=True, inline=True)
def _quiet_score(heuristics, side, move, killer_1, killer_2, counter):
    if move == killer_1:
        return SCORE_KILLER_1
    if move == killer_2:
        return SCORE_KILLER_2
    if move == counter:
        return SCORE_COUNTERMOVE
    return heuristics[history_index(side, move)]


@kernel(hot=True)
def score_moves(state, work, start, count, tt_move, ply, previous_move):
    """Score the moves in ``work[start:start + count]``, captures by MVV-LVA alone."""
    side = state[L.SIDE_TO_MOVE]
    killer_1 = work[KILLERS + 2 * ply]
    killer_2 = work[KILLERS + 2 * ply + 1]
    counter = work[countermove_index(previous_move)]
    for i in range(start, start + count):
        move = work[i]
        if move == tt_move:
            work[i + SCORES] = SCORE_TT_MOVE
            continue
        victim = captured_type(state, move)
        if victim >= 0 or move_promotion(move):
            work[i + SCORES] = _noisy_score(state, move, victim)
        else:
            work[i + SCORES] = _quiet_score(work, side, move, killer_1, killer_2, counter)


@kernel(hot=True)
def score_noisy_first(state, work, start, end):
    """Move the captures and promotions of ``[start, end)`` to its front and score them.

    Returns where the quiet moves begin; they stay unscored until
    :func:`score_quiets`, which a node cut off by a capture never needs.
    """
    quiets = start
    for i in range(start, end):
        move = work[i]
        victim = captured_type(state, move)
        if victim >= 0 or move_promotion(move):
            work[i] = work[quiets]
            work[quiets] = move
            work[quiets + SCORES] = _noisy_score(state, move, victim)
            quiets += 1
    return quiets


@kernel(hot=True)
def score_quiets(state, work, start, end, ply, previous_move):
    """Score the quiet moves of ``[start, end)``: killers, the countermove, then history."""
    side = state[L.SIDE_TO_MOVE]
    killer_1 = work[KILLERS + 2 * ply]
    killer_2 = work[KILLERS + 2 * ply + 1]
    counter = work[countermove_index(previous_move)]
    for i in range(start, end):
        work[i + SCORES] = _quiet_score(work, side, work[i], killer_1, killer_2, counter)


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
def is_unchecked_capture(score):
    """A capture ordered among the good ones whose exchange SEE has not checked yet."""
    return SCORE_GOOD_CAPTURE <= score < SCORE_TT_MOVE and (score & SEE_CHECKED) == 0


@kernel(hot=True, inline=True)
def is_checked_capture(score):
    """A capture that SEE found to win or trade material."""
    return SCORE_GOOD_CAPTURE <= score < SCORE_TT_MOVE and (score & SEE_CHECKED) != 0


@kernel(hot=True)
def check_capture(bbs, state, tables, work, index):
    """Check the exchange of the good-capture candidate at ``index``: mark it, or demote it."""
    score = work[index + SCORES]
    # An int64 move and threshold, as negamax passes them: one compiled see_ge serves both.
    if see_ge(bbs, state, tables, np.int64(work[index]), index - index):
        work[index + SCORES] = score | SEE_CHECKED
        return True
    work[index + SCORES] = score - SCORE_GOOD_CAPTURE + SCORE_BAD_CAPTURE
    return False


@kernel(hot=True, inline=True)
def pick_checked(bbs, state, tables, work, index, end):
    """:func:`pick_move`, with the SEE of a capture picked as good checked first (a loser is put back)."""
    while True:
        pick_move(work, index, end)
        if not is_unchecked_capture(work[index + SCORES]) or check_capture(bbs, state, tables, work, index):
            return work[index]


@kernel(hot=True)
def check_captures(bbs, state, tables, work, start, end):
    """Check the exchange of every good-capture candidate in ``[start, end)`` (before sorting them)."""
    for i in range(start, end):
        if is_unchecked_capture(work[i + SCORES]):
            check_capture(bbs, state, tables, work, i)


@kernel(hot=True, inline=True)
def mark_searched_quiet(work, index):
    """Record that the quiet move at ``index`` was searched (its score is no longer needed: the
    picker only looks at the moves after the one it handed out)."""
    work[index + SCORES] = SEARCHED_QUIET


@kernel(hot=True)
def penalise_searched_quiets(work, side, start, end, bonus):
    """Lower the history of the quiet moves of ``[start, end)`` that were searched before a cut-off.

    Moves that were pruned, excluded or not allowed at the root carry other scores and are left alone.
    """
    for j in range(start, end):
        if work[j + SCORES] == SEARCHED_QUIET:
            update_history(work, side, np.int64(work[j]), -bonus)   # int64 as negamax's: one compile
