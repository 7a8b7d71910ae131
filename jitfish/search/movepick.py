"""Move ordering: score a generated move list, then hand moves out best first.

Order: the TT move; winning and even captures by MVV-LVA (most valuable
victim, then least valuable attacker) and queen promotions; the two killers;
the countermove; other quiet moves by history; captures that lose material
(by SEE) last but for under-promotions.  The first few moves are picked by
selection (one pass per move), which is cheaper than sorting when a cutoff
comes early; a node that gets past them sorts the rest once.
"""

from __future__ import annotations

from jitfish.jit import kernel
from jitfish.board import layout as L
from jitfish.board.squares import QUEEN
from jitfish.search.history import KILLERS, countermove_index, history_index
from jitfish.search.see import captured_type, see_ge

SCORE_TT_MOVE = 1 << 30
SCORE_GOOD_CAPTURE = 1 << 28
SCORE_KILLER_1 = 1 << 27
SCORE_KILLER_2 = SCORE_KILLER_1 - 1
SCORE_COUNTERMOVE = SCORE_KILLER_1 - 2
SCORE_BAD_CAPTURE = -(1 << 28)
SCORE_UNDERPROMOTION = -(1 << 29)


@kernel(hot=True)
def mvv_lva(state, move, victim):
    """Bigger for a more valuable victim, then for a less valuable attacker."""
    attacker = state[L.MAILBOX + (move & 63)] % 6
    bonus = 0
    if (move >> 12) & 7 == QUEEN:
        bonus = 64
    return (victim + 1) * 16 - attacker + bonus


@kernel(hot=True)
def score_moves(bbs, state, tables, heuristics, moves, scores, start, count, tt_move, ply,
                previous_move, use_see):
    """Fill ``scores[start:start + count]`` for ``moves[start:start + count]``."""
    side = state[L.SIDE_TO_MOVE]
    killer_1 = heuristics[KILLERS + 2 * ply]
    killer_2 = heuristics[KILLERS + 2 * ply + 1]
    counter = heuristics[countermove_index(previous_move)]
    for i in range(start, start + count):
        move = moves[i]
        if move == tt_move:
            scores[i] = SCORE_TT_MOVE
            continue
        promotion = (move >> 12) & 7
        victim = captured_type(state, move)
        if promotion and promotion != QUEEN:
            scores[i] = SCORE_UNDERPROMOTION + victim
        elif victim >= 0 or promotion:
            if not use_see or see_ge(bbs, state, tables, move, 0):
                scores[i] = SCORE_GOOD_CAPTURE + mvv_lva(state, move, victim)
            else:
                scores[i] = SCORE_BAD_CAPTURE + mvv_lva(state, move, victim)
        elif move == killer_1:
            scores[i] = SCORE_KILLER_1
        elif move == killer_2:
            scores[i] = SCORE_KILLER_2
        elif move == counter:
            scores[i] = SCORE_COUNTERMOVE
        else:
            scores[i] = heuristics[history_index(side, move)]


@kernel(hot=True, inline=True)
def pick_move(moves, scores, index, end):
    """Swap the best-scored move of ``[index, end)`` to ``index`` and return it."""
    best = index
    for i in range(index + 1, end):
        if scores[i] > scores[best]:
            best = i
    if best != index:
        move = moves[best]
        score = scores[best]
        moves[best] = moves[index]
        scores[best] = scores[index]
        moves[index] = move
        scores[index] = score
    return moves[index]


@kernel(hot=True, inline=True)
def sort_moves(moves, scores, start, end):
    """Sort ``[start, end)`` by score, best first (insertion sort: the lists are short)."""
    for i in range(start + 1, end):
        move = moves[i]
        score = scores[i]
        j = i - 1
        while j >= start and scores[j] < score:
            moves[j + 1] = moves[j]
            scores[j + 1] = scores[j]
            j -= 1
        moves[j + 1] = move
        scores[j + 1] = score
