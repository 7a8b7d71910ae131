"""Quiescence search: play out captures before trusting the static evaluation.

Negamax calls :func:`quiescence` at depth 0.  The side to move may "stand
pat" on its static evaluation or try its captures and queen promotions,
best first by MVV-LVA; captures that lose material by SEE, and captures that
could not reach alpha even if they won the piece for free (delta pruning),
are skipped.  A side in check cannot stand pat: every evasion is searched,
and having none is mate.

The search is iterative rather than recursive: each node's frame (window,
best score, next move) waits in the ``S_Q_*`` stack fields of ``control`` while its
child is searched.  Quiescence nodes are most of the tree, and a recursive
call with a dozen array arguments costs more than the work at such a node;
negamax, itself recursive, may then call this kernel freely (a kernel that
calls a *recursive* one is what trips Numba's cache, issue #6061).
"""

from __future__ import annotations

import numpy as np

from jitfish.jit import kernel
from jitfish.board import layout as L
from jitfish.board.makemove import make_move, unmake_move
from jitfish.board.movegen import GEN_ALL, GEN_NOISY, generate_moves, is_in_check
from jitfish.board.moves import move_promotion
from jitfish.search.buffers import (
    C_AGE, C_STOP, CHECK_UNKNOWN, GAVE_CHECK, NO_EVAL, PV, PV_STRIDE,
    S_CHECK_KNOWN, S_Q_ALPHA, S_Q_BEST_MOVE, S_Q_BEST_SCORE, S_Q_BETA, S_Q_STAND_PAT,
    frame, move_list, set_child_psq, visit_node,
)
from jitfish.search.evalstack import evaluate_at, note_move, static_eval_at
from jitfish.search.movepick import init_qsearch_picker, next_move, picked_slot, stop_picking
from jitfish.search.see import captured_type, see_ge, see_value
from jitfish.search.tt import (
    bound_settles, tt_bound, tt_move, tt_prefetch, tt_probe, tt_score, tt_store,
)
from jitfish.types import BOUND_LOWER, BOUND_UPPER, INF, MAX_PLY, mated_in

DELTA_MARGIN = 200           # delta pruning: a capture must reach alpha with this much to spare
SEE_MIN_GAIN = 0             # captures that lose material by SEE are not searched

# What the loop does next.
STEP_ENTER = 0               # set up the node at ``ply``
STEP_LEAVE = 1               # return ``value`` to the parent
STEP_NEXT_MOVE = 2           # search the next move of the node at ``ply``


@kernel(hot=True)
def quiescence(bbs, state, undo, key_history, tables, weights, network, tt, work, control, alpha, beta, ply):
    """The quiescent score of the position for the side to move, with negamax's conventions.

    Fails soft.  Returns 0 (with the position restored) as soon as
    ``control[C_STOP]`` is set; the caller must then discard the result.
    """
    top = ply
    age = control[C_AGE]
    # int64 values rather than literals: the callees are then compiled once, for the types the
    # Python API and negamax call them with, not once more for each constant.
    all_moves = ply - ply + GEN_ALL
    noisy_moves = ply - ply + GEN_NOISY
    see_floor = ply - ply + SEE_MIN_GAIN
    leaf_depth = ply - ply   # the draft quiescence results are stored with
    step = STEP_ENTER
    value = 0   # the score of the node being left
    while True:
        if step == STEP_ENTER:
            # Set up the node at ``ply`` with the window (alpha, beta), unless it is settled at once.
            step = STEP_LEAVE
            visit_node(control, ply)
            work[PV + ply * PV_STRIDE] = 0
            if control[C_STOP] != 0:
                value = 0
            elif ply >= MAX_PLY - 1:
                value = evaluate_at(bbs, state, tables, weights, network, control, ply)
            else:
                found, data = tt_probe(tt, bbs[L.KEY])
                hash_move = 0
                settled = False
                if found:
                    entry_score = tt_score(data, ply)
                    entry_bound = tt_bound(data)
                    if bound_settles(entry_bound, entry_score, alpha, beta):
                        value = entry_score
                        settled = True
                    hash_move = tt_move(data)
                if not settled:
                    base = move_list(ply)
                    count = 0
                    # Negamax knows whether the move into the first node gave check; the
                    # fields of the plies below hold older values.
                    check_known = CHECK_UNKNOWN
                    if ply == top:
                        check_known = control[frame(ply) + S_CHECK_KNOWN]
                    if check_known == GAVE_CHECK or (check_known == CHECK_UNKNOWN
                                                     and is_in_check(bbs, state, tables)):
                        stand_pat = NO_EVAL
                        best_score = -INF
                        count = generate_moves(bbs, state, tables, work, base, all_moves)
                        if count == 0:
                            value = mated_in(ply)
                            settled = True
                    else:
                        stand_pat = static_eval_at(bbs, state, tables, weights, network, control, ply, found, data)
                        best_score = stand_pat
                        if stand_pat >= beta:
                            value = stand_pat
                            settled = True
                        else:
                            alpha = max(alpha, stand_pat)
                            count = generate_moves(bbs, state, tables, work, base, noisy_moves)
                    if not settled:
                        init_qsearch_picker(state, work, control, ply, count, hash_move)
                        here = frame(ply)
                        control[here + S_Q_ALPHA] = alpha
                        control[here + S_Q_BETA] = beta
                        control[here + S_Q_BEST_SCORE] = best_score
                        control[here + S_Q_BEST_MOVE] = 0
                        control[here + S_Q_STAND_PAT] = stand_pat
                        step = STEP_NEXT_MOVE

        if step == STEP_LEAVE:
            # Hand ``value`` back to the parent, which takes it as its move's score.
            if ply == top:
                return value
            unmake_move(bbs, state, undo, key_history, tables)
            ply -= 1
            if control[C_STOP] != 0:
                while ply > top:
                    unmake_move(bbs, state, undo, key_history, tables)
                    ply -= 1
                return 0
            here = frame(ply)
            score = -value
            if score > control[here + S_Q_BEST_SCORE]:
                control[here + S_Q_BEST_SCORE] = score
                if score > control[here + S_Q_ALPHA]:
                    control[here + S_Q_BEST_MOVE] = work[picked_slot(control, ply)]
                    if score >= control[here + S_Q_BETA]:
                        stop_picking(control, ply)
                    else:
                        control[here + S_Q_ALPHA] = score

        # STEP_NEXT_MOVE: make the next move of the node at ``ply`` that is not pruned.
        here = frame(ply)
        alpha = control[here + S_Q_ALPHA]
        stand_pat = control[here + S_Q_STAND_PAT]
        move = 0
        while True:
            slot = next_move(bbs, state, tables, work, control, ply)
            if slot < 0:
                break
            candidate = np.int64(work[slot])
            if stand_pat != NO_EVAL:
                # Delta pruning: even winning this piece for free cannot reach alpha.
                if move_promotion(candidate) == 0 and \
                        stand_pat + see_value(captured_type(state, candidate)) + DELTA_MARGIN <= alpha:
                    continue
                # SEE pruning: a capture that loses material does not resolve anything.
                if not see_ge(bbs, state, tables, candidate, see_floor):
                    continue
            move = candidate
            break
        if move == 0:
            # Every move tried, or a cutoff: store the result and leave.
            best_score = control[here + S_Q_BEST_SCORE]
            bound = BOUND_LOWER if best_score >= control[here + S_Q_BETA] else BOUND_UPPER
            tt_store(tt, bbs[L.KEY], control[here + S_Q_BEST_MOVE], best_score,
                     stand_pat if stand_pat != NO_EVAL else 0, leaf_depth, bound, ply, age)
            value = best_score
            step = STEP_LEAVE
        else:
            set_child_psq(control, state, weights, ply, move)
            note_move(network, control, state, ply, move)
            make_move(bbs, state, undo, key_history, tables, move)
            tt_prefetch(tt, bbs[L.KEY])
            beta = -alpha
            alpha = -control[here + S_Q_BETA]
            ply += 1
            step = STEP_ENTER
