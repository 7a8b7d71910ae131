"""Negamax alpha-beta with principal variation search; depth 0 hands over to quiescence.

One self-recursive kernel, called directly from Python once per aspiration
window of each iteration (a cached kernel that *calls* a recursive one can
crash Numba on the next start, issue #6061); the quiescence search it calls
is iterative.  The steps are numbered as in Stockfish; each says what it
does and why it is sound.

Its buffers are laid out in :mod:`jitfish.search.buffers`; ``tt`` is the
transposition table (:mod:`jitfish.search.tt`); ``params`` holds the
margins, reductions and thresholds (:mod:`jitfish.search.params`).
"""

from __future__ import annotations

import math

import numpy as np

from jitfish.jit import kernel
from jitfish.board import layout as L
from jitfish.board.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from jitfish.board.movegen import (
    GEN_ALL, check_squares, generate_moves, gives_check_given, is_in_check,
)
from jitfish.board.bitops import popcount
from jitfish.board.moves import move_promotion
from jitfish.board.squares import BISHOP, KNIGHT, QUEEN, ROOK
from jitfish.search.buffers import (
    C_AGE, C_CURRMOVE, C_NMP_MIN_PLY, C_ROOT_COUNT, C_ROOT_MOVES, C_STOP, LMR, LMR_SIDE, NO_EVAL, PV,
    PV_STRIDE, SCORES, S_CHECK_KNOWN, S_EVAL, S_EXCLUDED, S_MOVE, CHECK_UNKNOWN, GAVE_CHECK,
    GAVE_NO_CHECK, frame, move_list, previous_move, set_child_psq, set_null_move_psq, visit_node,
)
from jitfish.search.evalstack import NETWORK_SYZYGY, evaluate_at, note_move, note_null_move, static_eval_at
from jitfish.search.draws import insufficient_material, is_repetition
from jitfish.search.history import (
    clear_killers, countermove_index, history_bonus, store_killer, update_history,
)
from jitfish.search.movepick import (
    SCORE_COUNTERMOVE, SELECTION_PICKS, init_picker, is_checked_capture, mark_searched_quiet, next_move,
    penalise_searched_quiets, quiet_score, skip_quiet_moves,
)
from jitfish.search.params import (
    FUTILITY_BASE, FUTILITY_MARGIN, FUTILITY_MAX_DEPTH, IIR_MIN_DEPTH, LMP_BASE, LMP_MAX_DEPTH, LMR_BASE_PCT,
    LMR_DIVISOR_PCT, LMR_HISTORY_DIVISOR, LMR_MIN_DEPTH, NMP_BASE_REDUCTION, NMP_DEPTH_DIVISOR, NMP_EVAL_DIVISOR,
    NMP_EVAL_MAX, NMP_MIN_DEPTH, NMP_MIN_PIECES, NMP_VERIFY_DEPTH, NMP_VERIFY_PLIES_PCT, RFP_MARGIN, RFP_MAX_DEPTH,
    SE_MARGIN, SE_MIN_DEPTH, SE_TT_DEPTH_SLACK, SEE_CAPTURE_MARGIN, SEE_MAX_DEPTH, SEE_QUIET_MARGIN, default_params,
)
from jitfish.search.quiescence import quiescence
from jitfish.search.see import captured_type, see_ge
from jitfish.search.tt import (
    bound_settles, tt_bound, tt_depth, tt_move, tt_prefetch, tt_probe, tt_score, tt_store,
)
from jitfish.syzygy.search import probe_in_search
from jitfish.types import (
    BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, INF, MATE_BOUND, MAX_PLY, mate_in, mated_in,
)

# A tablebase result is stored this much deeper than the node's depth: deeper searches could not improve it.
TB_DEPTH_BONUS = 6

# Every pruning margin, reduction and extension threshold is a slot of ``params``, named
# and explained once in :mod:`jitfish.search.params` (``FIELDS``); kernels read
# ``params[RFP_MARGIN]`` and so on, so a tuner changes them without recompiling.


def late_move_reductions(params: np.ndarray | None = None) -> np.ndarray:
    """The reduction table negamax reads from ``work[LMR:]``: ``[depth * LMR_SIDE + move number]``.

    ``base + ln(depth) * ln(move number) / divisor``, truncated, with ``LMR_BASE_PCT`` and
    ``LMR_DIVISOR_PCT`` of ``params`` (default: the shipped ones) in hundredths; computed in
    Python whenever they change, rather than with two logarithms per reduced move.
    """
    params = default_params() if params is None else params
    base = params[LMR_BASE_PCT] / 100
    divisor = params[LMR_DIVISOR_PCT] / 100
    table = np.zeros((LMR_SIDE, LMR_SIDE), dtype=np.int32)
    for depth in range(1, LMR_SIDE):
        for number in range(1, LMR_SIDE):
            table[depth, number] = int(base + math.log(depth) * math.log(number) / divisor)
    return table.ravel()


@kernel(hot=True)
def _pieces(bbs, side):
    """The side's knights, bishops, rooks and queens."""
    base = side * 6
    return bbs[base + KNIGHT] | bbs[base + BISHOP] | bbs[base + ROOK] | bbs[base + QUEEN]


@kernel(hot=True)
def _has_non_pawn_material(bbs, side):
    return _pieces(bbs, side) != 0


@kernel(hot=True)
def _root_allowed(control, move):
    count = control[C_ROOT_COUNT]
    if count == 0:
        return True
    for i in range(count):
        if control[C_ROOT_MOVES + i] == move:
            return True
    return False


@kernel(hot=True)
def _update_pv(work, ply, move):
    """The PV at ``ply`` becomes ``move`` followed by the child's PV."""
    row = PV + ply * PV_STRIDE
    child = row + PV_STRIDE
    length = work[child]
    work[row + 1] = move
    for i in range(length):
        work[row + 2 + i] = work[child + 1 + i]
    work[row] = length + 1


@kernel(hot=True)
def negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
            alpha, beta, depth, ply, cut_node):
    """The score of the position for the side to move, searched ``depth`` plies.

    Fails soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower
    bound.  Returns 0 as soon as ``control[C_STOP]`` is set; callers must
    then discard the result.
    """
    # Step 1. Initialize node.  Recursive calls must pass exactly the argument
    # types of the outer call (no literals): a cast in a recursive call
    # crashes a cached kernel on the next load (Numba issues #6061, #6713).
    # ``zero`` and ``one`` are int64 values the type checker cannot see as literals.
    if depth <= 0:
        return quiescence(bbs, state, undo, key_history, tables, weights, network, tt, work, control,
                          alpha, beta, ply)
    zero = ply - ply
    one = zero + 1
    # Likewise the move generator's mode: an int64 value, not a literal, so that the search
    # shares one compiled generate_moves with the Python API instead of compiling one per mode.
    all_moves = zero + GEN_ALL
    visit_node(control, ply)
    work[PV + ply * PV_STRIDE] = 0
    if control[C_STOP] != 0:
        return 0
    if ply >= MAX_PLY - 1:
        return evaluate_at(bbs, state, tables, weights, network, control, ply)
    node = frame(ply)   # this ply's stack fields in ``control``
    # The parent already knows whether its move gave check (the root's field is 0: unknown).
    check_known = control[node + S_CHECK_KNOWN]
    if check_known == CHECK_UNKNOWN:
        in_check = is_in_check(bbs, state, tables)
    else:
        in_check = check_known == GAVE_CHECK
    age = control[C_AGE]
    base = move_list(ply)
    key = bbs[L.KEY]

    pv_node = beta - alpha > 1
    root = ply == 0
    us = state[L.SIDE_TO_MOVE]
    excluded = control[node + S_EXCLUDED]

    if not root:
        # Step 2. Draws: repetition, the fifty-move rule, insufficient material.
        # A mate given on the hundredth ply still counts, so a position with
        # the clock run out is a draw only if the side to move is not mated.
        if is_repetition(bbs, state, key_history) or insufficient_material(bbs):
            return 0
        if state[L.HALFMOVE_CLOCK] >= 100:
            if in_check and generate_moves(bbs, state, tables, work, base, all_moves) == 0:
                return mated_in(ply)
            return 0

        # Step 3. Mate distance pruning: no line from here can beat a mate
        # already found closer to the root.
        alpha = max(alpha, mated_in(ply))
        beta = min(beta, mate_in(ply + 1))
        if alpha >= beta:
            return alpha

    # Step 4. Transposition table lookup; cut off at non-PV nodes when the
    # stored draft and bound settle the question.
    found, data = tt_probe(tt, key)
    hash_move = 0
    entry_score = 0
    entry_bound = 0
    entry_depth = -1
    if found:
        hash_move = tt_move(data)
        entry_score = tt_score(data, ply)
        entry_bound = tt_bound(data)
        entry_depth = tt_depth(data)
        if (not pv_node and excluded == 0 and entry_depth >= depth
                and bound_settles(entry_bound, entry_score, alpha, beta)):
            return entry_score

    # Step 4b. Tablebases (jitfish.syzygy.search): right after a capture or pawn
    # move with few pieces left the tables know the result.  It is stored (deep:
    # no search would refine it) and returned when the window cannot change it,
    # and at PV nodes always: a win or loss stands for the line, whose mate the
    # search need not find.  Otherwise the search goes on as usual.
    if not root and excluded == 0:
        tb_score, tb_bound = probe_in_search(bbs, state, undo, key_history, tables, network[NETWORK_SYZYGY],
                                             ply, depth)
        if tb_bound != BOUND_NONE and (pv_node or tb_bound == BOUND_EXACT
                                       or (tb_bound == BOUND_LOWER and tb_score >= beta)
                                       or (tb_bound == BOUND_UPPER and tb_score <= alpha)):
            tt_store(tt, key, 0, tb_score, evaluate_at(bbs, state, tables, weights, network, control, ply),
                     min(depth + TB_DEPTH_BONUS, MAX_PLY - 1), tb_bound, ply, age)
            return tb_score

    # Step 5. Static evaluation (none in check), and whether it improved on
    # our previous turn.
    if in_check:
        static_eval = NO_EVAL
        eval_estimate = NO_EVAL
    else:
        static_eval = static_eval_at(bbs, state, tables, weights, network, control, ply, found, data)
        eval_estimate = static_eval
        # A TT score bounded on the right side is a better estimate.
        if found and ((entry_bound == BOUND_LOWER and entry_score > static_eval)
                      or (entry_bound == BOUND_UPPER and entry_score < static_eval)):
            eval_estimate = entry_score
    control[node + S_EVAL] = static_eval
    improving = (not in_check and ply >= 2
                 and static_eval > control[frame(ply - 2) + S_EVAL])
    clear_killers(work, ply + 1)

    if not pv_node and not in_check and excluded == 0:
        # Step 6. Reverse futility pruning: so far above beta that a quiet
        # move will not bring it back below within a few plies.
        if (depth <= params[RFP_MAX_DEPTH] and eval_estimate - params[RFP_MARGIN] * (depth - improving) >= beta
                and abs(beta) < MATE_BOUND):
            return eval_estimate

        # Step 7. Null move pruning: if passing still fails high, a real move
        # almost surely does -- except in zugzwang, where every real move is
        # worse than none.  So not with fewer than two pieces besides king and
        # pawns (where zugzwang is common), not twice in a row, and not against
        # a beta that is itself a mate score: there the question is whether
        # *every* move is mated, which passing cannot answer.  A deep cut-off
        # is verified by searching the real moves to the reduced depth, with no
        # null move for the next plies.
        previous = control[frame(ply - 1) + S_MOVE] if ply > 0 else 1
        if (depth >= params[NMP_MIN_DEPTH] and eval_estimate >= beta and previous != 0
                and beta > -MATE_BOUND and ply >= control[C_NMP_MIN_PLY]
                and popcount(_pieces(bbs, us)) >= params[NMP_MIN_PIECES]):
            reduction = (params[NMP_BASE_REDUCTION] + depth // params[NMP_DEPTH_DIVISOR]
                         + min((eval_estimate - beta) // params[NMP_EVAL_DIVISOR], params[NMP_EVAL_MAX]))
            null_depth = depth - reduction - 1
            control[node + S_MOVE] = 0
            control[frame(ply + 1) + S_CHECK_KNOWN] = GAVE_NO_CHECK   # passing cannot give check
            set_null_move_psq(control, ply)
            note_null_move(network, control, ply)
            make_null_move(bbs, state, undo, key_history, tables)
            score = -negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                             -beta, -beta + 1, null_depth, ply + 1,
                             one - cut_node)
            unmake_null_move(bbs, state, undo, key_history, tables)
            if control[C_STOP] != 0:
                return 0
            if score >= beta:
                if score >= MATE_BOUND:
                    score = beta   # a mate found after passing is not proven
                if depth < params[NMP_VERIFY_DEPTH] or control[C_NMP_MIN_PLY] != 0:
                    return score
                # Verification (before moves are generated: it reuses this ply's buffers).
                control[C_NMP_MIN_PLY] = ply + params[NMP_VERIFY_PLIES_PCT] * null_depth // 100
                verified = negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                                   beta - 1, beta, null_depth, ply, zero)
                control[C_NMP_MIN_PLY] = 0
                if control[C_STOP] != 0:
                    return 0
                if verified >= beta:
                    return score
                work[PV + ply * PV_STRIDE] = 0

    # Step 8. Internal iterative reduction: with no TT move the ordering is
    # poor; search shallower and let the next iteration do the work.
    if depth >= params[IIR_MIN_DEPTH] and hash_move == 0 and (pv_node or cut_node != 0):
        depth -= 1

    # Step 9. Singular extension: if every other move fails low against a
    # margin below the TT score, the TT move is singular and gets one more
    # ply.  If even without it the search beats beta, cut off (multi-cut).
    # Done before generating moves: the verification search reuses this ply's buffers.
    singular_extension = 0
    if (not root and excluded == 0 and depth >= params[SE_MIN_DEPTH] and hash_move != 0
            and entry_bound == BOUND_LOWER and entry_depth >= depth - params[SE_TT_DEPTH_SLACK]
            and abs(entry_score) < MATE_BOUND):
        singular_beta = entry_score - params[SE_MARGIN] * depth
        control[node + S_EXCLUDED] = hash_move
        score = negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                        singular_beta - 1, singular_beta, (depth - 1) // 2, ply,
                        cut_node)
        control[node + S_EXCLUDED] = 0
        if control[C_STOP] != 0:
            return 0
        if score < singular_beta:
            singular_extension = 1
        elif singular_beta >= beta:
            return singular_beta
        work[PV + ply * PV_STRIDE] = 0

    # Step 10. Generate the moves.  The staged picker (movepick) orders them as
    # they are asked for: the TT move first, then good captures, killers, the
    # countermove, quiet moves by history, bad captures.
    count = generate_moves(bbs, state, tables, work, base, all_moves)
    if count == 0:
        return mated_in(ply) if in_check else 0
    last_move = previous_move(control, ply)   # its countermove slot learns this node's refutation

    # Step 11. Loop over the moves, as the picker hands them out.
    their_king, discoverers, diagonal_checks, straight_checks = check_squares(bbs, state, tables)
    best_score = -INF
    best_move = 0
    searched = 0
    quiets_seen = 0
    original_alpha = alpha
    lmp_limit = params[LMP_BASE] + depth * depth
    if not improving:
        lmp_limit //= 2
    skip_quiets = False
    # Sort once past the first picks only where many moves will be searched; where late move
    # pruning soon skips the quiet moves, a few selection passes are cheaper.
    sort_rest = pv_node or in_check or depth > params[LMP_MAX_DEPTH] or lmp_limit > 2 * SELECTION_PICKS
    init_picker(work, control, ply, count, hash_move, sort_rest)
    while True:
        here = next_move(bbs, state, tables, work, control, ply)
        if here < 0:
            break
        move = np.int64(work[here])
        if move == excluded:
            continue
        if root and not _root_allowed(control, move):
            continue
        victim = captured_type(state, move)
        quiet = victim < 0 and move_promotion(move) == 0
        checks = gives_check_given(bbs, state, tables, move, their_king, discoverers, diagonal_checks,
                                   straight_checks)
        if quiet:
            if skip_quiets and not checks:
                continue
            quiets_seen += 1

        # Step 12. Pruning at shallow depth, once a move has saved us from
        # being mated: late quiet moves and futile quiet moves (both skip
        # every quiet move after them), and moves that lose too much material
        # by SEE.  Moves that give check are kept.
        prune = False
        if not root and best_score > -MATE_BOUND and _has_non_pawn_material(bbs, us):
            if quiet:
                if ((depth <= params[LMP_MAX_DEPTH] and quiets_seen > lmp_limit and not in_check and not pv_node)
                        or (depth <= params[FUTILITY_MAX_DEPTH] and not in_check and not pv_node
                            and static_eval + params[FUTILITY_BASE] + params[FUTILITY_MARGIN] * depth <= alpha
                            and searched > 0)):
                    skip_quiets = True
                    skip_quiet_moves(control, ply)
                    prune = True
                elif depth <= params[SEE_MAX_DEPTH] and not see_ge(bbs, state, tables, move,
                                                            -params[SEE_QUIET_MARGIN] * depth * depth):
                    prune = True
            elif (depth <= params[SEE_MAX_DEPTH] and not is_checked_capture(work[here + SCORES])
                  and not see_ge(bbs, state, tables, move, -params[SEE_CAPTURE_MARGIN] * depth)):
                prune = True

        if prune and not checks:
            continue
        set_child_psq(control, state, weights, ply, move)
        note_move(network, control, state, ply, move)
        make_move(bbs, state, undo, key_history, tables, move)
        tt_prefetch(tt, bbs[L.KEY])
        control[node + S_MOVE] = move
        control[frame(ply + 1) + S_CHECK_KNOWN] = GAVE_CHECK if checks else GAVE_NO_CHECK
        if root:
            control[C_CURRMOVE] = move | ((searched + 1) << 32)

        # Extensions: the singular TT move, and checks.
        extension = 0
        if move == hash_move:
            extension = singular_extension
        if extension == 0 and checks:
            extension = 1
        new_depth = depth - 1 + extension

        # Step 13. Principal variation search: the first move with the full
        # window, later ones with a null window (reduced if late and quiet),
        # re-searched when they unexpectedly beat alpha.
        if searched == 0:
            score = -negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                             -beta, -alpha, new_depth, ply + 1, zero)
        else:
            reduction = 0
            if depth >= params[LMR_MIN_DEPTH] and searched >= 1 + 2 * pv_node and quiet:
                reduction = np.int64(work[LMR + min(depth, LMR_SIDE - 1) * LMR_SIDE
                                          + min(searched + 1, LMR_SIDE - 1)])
                if not pv_node:
                    reduction += 1
                if not improving:
                    reduction += 1
                reduction += cut_node
                if checks or in_check:
                    reduction -= 1
                ordering = quiet_score(state, work, control, ply, here)
                if ordering >= SCORE_COUNTERMOVE:   # killers and the countermove
                    reduction -= 1
                else:
                    reduction -= ordering // params[LMR_HISTORY_DIVISOR]
                reduction = max(0, min(reduction, new_depth - 1))
            score = -negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                             -alpha - 1, -alpha, new_depth - reduction, ply + 1,
                             one)
            if score > alpha and reduction > 0:
                score = -negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                                 -alpha - 1, -alpha, new_depth, ply + 1,
                                 one - cut_node)
            if pv_node and alpha < score < beta:
                score = -negamax(bbs, state, undo, key_history, tables, weights, network, params, tt, work, control,
                                 -beta, -alpha, new_depth, ply + 1, zero)
        unmake_move(bbs, state, undo, key_history, tables)
        if control[C_STOP] != 0:
            return 0
        searched += 1
        if quiet:
            mark_searched_quiet(work, here)

        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = move
                if pv_node:
                    _update_pv(work, ply, move)
                if score >= beta:
                    # A quiet move that refutes: remember it, and lower the
                    # history of the quiet moves searched before it (not of
                    # those pruned, excluded or left out at the root: they
                    # did not fail, they were not tried).
                    if quiet:
                        bonus = history_bonus(depth)
                        store_killer(work, ply, move)
                        update_history(work, us, move, bonus)
                        if ply > 0:
                            work[countermove_index(last_move)] = move
                        penalise_searched_quiets(work, us, base, here, bonus)
                    break
                alpha = score

    # Step 14. No move searched: the excluded move was the only one (or
    # every other was pruned), so fail low.
    if searched == 0:
        return alpha

    # Step 15. Store in the transposition table.
    if excluded == 0:
        if best_score >= beta:
            bound = BOUND_LOWER
        elif pv_node and best_score > original_alpha:
            bound = BOUND_EXACT
        else:
            bound = BOUND_UPPER
        tt_store(tt, key, best_move, best_score, static_eval if not in_check else 0, depth, bound, ply,
                 age)
    return best_score

