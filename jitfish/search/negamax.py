"""Negamax alpha-beta with principal variation search, and quiescence as its depth <= 0 branch.

One self-recursive kernel, called directly from Python once per aspiration
window of each iteration (a cached kernel that *calls* a recursive one can
crash Numba on the next start, issue #6061).  The steps are numbered as in
Stockfish; each says what it does and why it is sound.

Buffers (all preallocated by :mod:`jitfish.search.driver`):

* ``tt``: the transposition table (:mod:`jitfish.search.tt`);
* ``heuristics``: killers, history, countermoves (:mod:`jitfish.search.history`);
* ``stack``: per-ply ``STACK_WIDTH`` int64 fields (static eval, move made, excluded move);
* ``pv``: triangular PV table, row ``ply`` at ``ply * PV_STRIDE``: length, then moves;
* ``moves`` / ``scores``: ``MAX_MOVES`` move slots per ply;
* ``control``: node counter, stop flag and limits, searchmoves (see ``C_*``).
"""

from __future__ import annotations

import math

import numpy as np

from jitfish.jit import kernel
from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.board.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from jitfish.board.movegen import (
    GEN_ALL, GEN_NOISY, check_squares, generate_moves, gives_check_given, is_in_check,
)
from jitfish.board.moves import MAX_MOVES
from jitfish.board.squares import BISHOP, KNIGHT, PAWN, QUEEN, ROOK
from jitfish.eval.evaluation import evaluate
from jitfish.search.history import (
    clear_killers, countermove_index, history_bonus, store_killer, update_history,
)
from jitfish.search.movepick import SCORE_TT_MOVE, pick_move, score_moves, sort_moves
from jitfish.search.see import captured_type, see_ge, see_value
from jitfish.search.tt import (
    tt_bound, tt_depth, tt_eval, tt_move, tt_prefetch, tt_probe, tt_score, tt_store,
)
from jitfish.types import (
    BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, INF, MATE_BOUND, MAX_PLY, mate_in, mated_in,
)

# ---------------------------------------------------------------------------
# Every pruning margin, reduction and extension constant, named once.
# ---------------------------------------------------------------------------
RFP_MAX_DEPTH = 8            # reverse futility: only this close to the leaves
RFP_MARGIN = 80              # ... static eval must beat beta by this per ply
NMP_MIN_DEPTH = 3            # null move: from this depth
NMP_BASE_REDUCTION = 3       # ... reduce by this
NMP_DEPTH_DIVISOR = 4        # ... plus depth / this
NMP_EVAL_DIVISOR = 200       # ... plus (eval - beta) / this
NMP_EVAL_MAX = 3             # ... (at most this much)
IIR_MIN_DEPTH = 4            # internal iterative reduction without a TT move
FUTILITY_MAX_DEPTH = 6       # futility pruning of quiet moves near the leaves
FUTILITY_BASE = 100          # ... when eval + base + margin * depth <= alpha
FUTILITY_MARGIN = 80
LMP_MAX_DEPTH = 8            # late move pruning: quiet moves past 3 + depth^2 (halved if not improving)
LMP_BASE = 3
SEE_QUIET_MARGIN = 60        # prune quiets losing more than this per ply^2 by SEE
SEE_CAPTURE_MARGIN = 90      # prune captures losing more than this per ply by SEE
SEE_MAX_DEPTH = 8
LMR_MIN_DEPTH = 3            # late move reductions
LMR_BASE = 0.75              # r = base + ln(depth) * ln(move number) / divisor
LMR_DIVISOR = 2.25
LMR_HISTORY_DIVISOR = 8192   # history score per ply of reduction removed
SE_MIN_DEPTH = 8             # singular extension: from this depth
SE_TT_DEPTH_SLACK = 3        # ... when the TT entry's draft is at least depth - this
SE_MARGIN = 2                # ... singular beta = tt score - this * depth
DELTA_MARGIN = 200           # quiescence delta pruning: capture + margin must reach alpha
ASPIRATION_DELTA = 25        # (driver) first aspiration half-window
SELECTION_PICKS = 4          # moves picked by selection before the rest are sorted at once
# ---------------------------------------------------------------------------

# Per-ply stack fields.
S_EVAL = 0
S_MOVE = 1
S_EXCLUDED = 2
STACK_WIDTH = 4
STACK_SIZE = (MAX_PLY + 4) * STACK_WIDTH
NO_EVAL = -INF

PV_STRIDE = MAX_PLY + 2
PV_SIZE = PV_STRIDE * (MAX_PLY + 2)
MOVES_SIZE = (MAX_PLY + 2) * MAX_MOVES

# The control array.
C_NODES = 0                  # nodes searched (this thread)
C_STOP = 1                   # set to 1 (by anyone) to abort
C_NODE_LIMIT = 2             # stop after this many nodes
C_SELDEPTH = 3               # deepest ply reached
C_AGE = 4                    # TT generation of this search
C_POLL_MASK = 5              # poll the limits when nodes & mask == 0
C_ROOT_COUNT = 6             # number of allowed root moves (0: all)
C_CURRMOVE = 7               # root move being searched | its number << 32 (for currmove reports)
C_ROOT_MOVES = 8             # allowed root moves
CONTROL_SIZE = C_ROOT_MOVES + MAX_MOVES


@kernel(hot=True)
def _visit(control, ply):
    """Count a node, and every few thousand nodes check the stop flag and node limit."""
    nodes = control[C_NODES] + 1
    control[C_NODES] = nodes
    if ply > control[C_SELDEPTH]:
        control[C_SELDEPTH] = ply
    if (nodes & control[C_POLL_MASK]) == 0 and nodes >= control[C_NODE_LIMIT]:
        control[C_STOP] = 1


@kernel(hot=True)
def _is_repetition(bbs, state, key_history):
    """Whether the position occurred before, in the game or the search, since the last irreversible move."""
    ply = state[L.GAME_PLY]
    oldest = max(0, ply - state[L.HALFMOVE_CLOCK])
    key = bbs[L.KEY]
    i = ply - 4
    while i >= oldest:
        if key_history[i] == key:
            return True
        i -= 2
    return False


@kernel(hot=True)
def _insufficient_material(bbs):
    """No pawns, rooks or queens and at most one minor piece: nobody can mate."""
    if bbs[PAWN] | bbs[6 + PAWN] | bbs[ROOK] | bbs[6 + ROOK] | bbs[QUEEN] | bbs[6 + QUEEN]:
        return False
    return popcount(bbs[KNIGHT] | bbs[6 + KNIGHT] | bbs[BISHOP] | bbs[6 + BISHOP]) <= 1


@kernel(hot=True)
def _has_non_pawn_material(bbs, side):
    base = side * 6
    return (bbs[base + KNIGHT] | bbs[base + BISHOP] | bbs[base + ROOK] | bbs[base + QUEEN]) != 0


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
def _update_pv(pv, ply, move):
    row = ply * PV_STRIDE
    child = (ply + 1) * PV_STRIDE
    length = pv[child]
    pv[row + 1] = move
    for i in range(length):
        pv[row + 2 + i] = pv[child + 1 + i]
    pv[row] = length + 1


@kernel(hot=True)
def negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv, moves, scores,
            control, alpha, beta, depth, ply, cut_node):
    """The score of the position for the side to move, searched ``depth`` plies.

    Fails soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower
    bound.  Returns 0 as soon as ``control[C_STOP]`` is set; callers must
    then discard the result.
    """
    # Step 1. Initialize node.  Recursive calls must pass exactly the argument
    # types of the outer call (no literals): a cast in a recursive call
    # crashes a cached kernel on the next load (Numba issues #6061, #6713).
    # ``zero`` and ``one`` are int64 values the type checker cannot see as literals.
    zero = ply - ply
    one = zero + 1
    _visit(control, ply)
    pv[ply * PV_STRIDE] = 0
    if control[C_STOP] != 0:
        return 0
    if ply >= MAX_PLY - 1:
        return evaluate(bbs, state, tables, weights)
    in_check = is_in_check(bbs, state, tables)
    age = control[C_AGE]
    base = ply * MAX_MOVES
    key = bbs[L.KEY]

    if depth <= 0 and not in_check:
        # Quiescence: resolve captures so that the static evaluation is only
        # trusted in quiet positions.  The side to move may "stand pat" on
        # its evaluation instead of capturing.  (In check, the full search
        # below runs at depth 1: every evasion is tried.)
        found, data = tt_probe(tt, key)
        if found:
            entry_score = tt_score(data, ply)
            entry_bound = tt_bound(data)
            if ((entry_bound == BOUND_LOWER and entry_score >= beta)
                    or (entry_bound == BOUND_UPPER and entry_score <= alpha)
                    or entry_bound == BOUND_EXACT):
                return entry_score
            stand_pat = tt_eval(data)
        else:
            stand_pat = evaluate(bbs, state, tables, weights)
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best_score = stand_pat
        best_move = 0
        count = generate_moves(bbs, state, tables, moves, base, GEN_NOISY)
        score_moves(bbs, state, tables, heuristics, moves, scores, base, count, 0, ply, 0, False)
        for i in range(count):
            move = pick_move(moves, scores, base + i, base + count)
            # Delta pruning: even winning this piece for free cannot reach alpha.
            if ((move >> 12) & 7) == 0 and \
                    stand_pat + see_value(captured_type(state, move)) + DELTA_MARGIN <= alpha:
                continue
            # SEE pruning: a capture that loses material does not resolve anything.
            if not see_ge(bbs, state, tables, move, 0):
                continue
            make_move(bbs, state, undo, key_history, tables, move)
            tt_prefetch(tt, bbs[L.KEY])
            score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv,
                             moves, scores, control, -beta, -alpha, zero, ply + 1, zero)
            unmake_move(bbs, state, undo, key_history, tables)
            if control[C_STOP] != 0:
                return 0
            if score > best_score:
                best_score = score
                if score > alpha:
                    best_move = move
                    if score >= beta:
                        break
                    alpha = score
        tt_store(tt, key, best_move, best_score, stand_pat, 0,
                 BOUND_LOWER if best_score >= beta else BOUND_UPPER, ply, age)
        return best_score

    depth = max(depth, 1)
    pv_node = beta - alpha > 1
    root = ply == 0
    us = state[L.SIDE_TO_MOVE]
    excluded = stack[ply * STACK_WIDTH + S_EXCLUDED]

    if not root:
        # Step 2. Draws: repetition, the fifty-move rule, insufficient material.
        # A mate given on the hundredth ply still counts, so a position with
        # the clock run out is a draw only if the side to move is not mated.
        if _is_repetition(bbs, state, key_history) or _insufficient_material(bbs):
            return 0
        if state[L.HALFMOVE_CLOCK] >= 100:
            if in_check and generate_moves(bbs, state, tables, moves, base, GEN_ALL) == 0:
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
                and ((entry_bound == BOUND_LOWER and entry_score >= beta)
                     or (entry_bound == BOUND_UPPER and entry_score <= alpha)
                     or entry_bound == BOUND_EXACT)):
            return entry_score

    # Step 5. Static evaluation (none in check), and whether it improved on
    # our previous turn.
    if in_check:
        static_eval = NO_EVAL
        eval_estimate = NO_EVAL
    else:
        if found:
            static_eval = tt_eval(data)
        else:
            static_eval = evaluate(bbs, state, tables, weights)
        eval_estimate = static_eval
        # A TT score bounded on the right side is a better estimate.
        if found and ((entry_bound == BOUND_LOWER and entry_score > static_eval)
                      or (entry_bound == BOUND_UPPER and entry_score < static_eval)):
            eval_estimate = entry_score
    stack[ply * STACK_WIDTH + S_EVAL] = static_eval
    improving = (not in_check and ply >= 2
                 and static_eval > stack[(ply - 2) * STACK_WIDTH + S_EVAL])
    clear_killers(heuristics, ply + 1)

    if not pv_node and not in_check and excluded == 0:
        # Step 6. Reverse futility pruning: so far above beta that a quiet
        # move will not bring it back below within a few plies.
        if (depth <= RFP_MAX_DEPTH and eval_estimate - RFP_MARGIN * (depth - improving) >= beta
                and abs(beta) < MATE_BOUND):
            return eval_estimate

        # Step 7. Null move pruning: if passing still fails high, a real move
        # almost surely does.  Not with only king and pawns (zugzwang), not
        # twice in a row.
        previous = stack[(ply - 1) * STACK_WIDTH + S_MOVE] if ply > 0 else 1
        if (depth >= NMP_MIN_DEPTH and eval_estimate >= beta and previous != 0
                and _has_non_pawn_material(bbs, us)):
            reduction = (NMP_BASE_REDUCTION + depth // NMP_DEPTH_DIVISOR
                         + min((eval_estimate - beta) // NMP_EVAL_DIVISOR, NMP_EVAL_MAX))
            stack[ply * STACK_WIDTH + S_MOVE] = 0
            make_null_move(bbs, state, undo, key_history, tables)
            score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv,
                             moves, scores, control, -beta, -beta + 1, depth - reduction - 1, ply + 1,
                             one - cut_node)
            unmake_null_move(bbs, state, undo, key_history, tables)
            if control[C_STOP] != 0:
                return 0
            if score >= beta:
                return beta if score >= MATE_BOUND else score

    # Step 8. Internal iterative reduction: with no TT move the ordering is
    # poor; search shallower and let the next iteration do the work.
    if depth >= IIR_MIN_DEPTH and hash_move == 0 and (pv_node or cut_node != 0):
        depth -= 1

    # Step 9. Singular extension: if every other move fails low against a
    # margin below the TT score, the TT move is singular and gets one more
    # ply.  If even without it the search beats beta, cut off (multi-cut).
    # Done before generating moves: the verification search reuses this ply's buffers.
    singular_extension = 0
    if (not root and excluded == 0 and depth >= SE_MIN_DEPTH and hash_move != 0
            and entry_bound == BOUND_LOWER and entry_depth >= depth - SE_TT_DEPTH_SLACK
            and abs(entry_score) < MATE_BOUND):
        singular_beta = entry_score - SE_MARGIN * depth
        stack[ply * STACK_WIDTH + S_EXCLUDED] = hash_move
        score = negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv,
                        moves, scores, control, singular_beta - 1, singular_beta, (depth - 1) // 2, ply,
                        cut_node)
        stack[ply * STACK_WIDTH + S_EXCLUDED] = 0
        if control[C_STOP] != 0:
            return 0
        if score < singular_beta:
            singular_extension = 1
        elif singular_beta >= beta:
            return singular_beta
        pv[ply * PV_STRIDE] = 0

    # Step 10. Generate and order the moves.
    count = generate_moves(bbs, state, tables, moves, base, GEN_ALL)
    if count == 0:
        return mated_in(ply) if in_check else 0
    previous_move = stack[(ply - 1) * STACK_WIDTH + S_MOVE] if ply > 0 else 0
    # The TT move goes first and the others are scored only if it does not cut off: at most
    # cut nodes it does, and scoring (with SEE on every capture) is then saved.
    scored_from = 0  # 1 when the TT move stands first, unscored moves after it
    if hash_move != 0:
        for j in range(base, base + count):
            if moves[j] == hash_move:
                moves[j] = moves[base]
                moves[base] = hash_move
                scores[base] = SCORE_TT_MOVE
                scored_from = 1
                break

    # Step 11. Loop over the moves.
    their_king, discoverers, diagonal_checks, straight_checks = check_squares(bbs, state, tables)
    best_score = -INF
    best_move = 0
    searched = 0
    quiets_seen = 0
    original_alpha = alpha
    lmp_limit = LMP_BASE + depth * depth
    if not improving:
        lmp_limit //= 2
    skip_quiets = False
    # Sort once past the first picks only where many moves will be searched; where late move
    # pruning soon skips the quiet moves, a few selection passes are cheaper.
    sort_rest = pv_node or in_check or depth > LMP_MAX_DEPTH or lmp_limit > 2 * SELECTION_PICKS
    for i in range(count):
        if i == scored_from:
            score_moves(bbs, state, tables, heuristics, moves, scores, base + i, count - i, hash_move, ply,
                        previous_move, True)
        if i == SELECTION_PICKS and sort_rest and not skip_quiets:
            sort_moves(moves, scores, base + i, base + count)
        # Once quiet moves are being skipped, the rest are taken as they lie: only checks, losing
        # captures and under-promotions are left among them, not worth a selection pass to order.
        if skip_quiets or (sort_rest and i >= SELECTION_PICKS) or i < scored_from:
            move = moves[base + i]
        else:
            move = pick_move(moves, scores, base + i, base + count)
        if move == excluded:
            continue
        if root and not _root_allowed(control, move):
            continue
        victim = captured_type(state, move)
        quiet = victim < 0 and ((move >> 12) & 7) == 0
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
                if ((depth <= LMP_MAX_DEPTH and quiets_seen > lmp_limit and not in_check and not pv_node)
                        or (depth <= FUTILITY_MAX_DEPTH and not in_check and not pv_node
                            and static_eval + FUTILITY_BASE + FUTILITY_MARGIN * depth <= alpha
                            and searched > 0)):
                    skip_quiets = True
                    prune = True
                elif depth <= SEE_MAX_DEPTH and not see_ge(bbs, state, tables, move,
                                                            -SEE_QUIET_MARGIN * depth * depth):
                    prune = True
            elif depth <= SEE_MAX_DEPTH and not see_ge(bbs, state, tables, move,
                                                        -SEE_CAPTURE_MARGIN * depth):
                prune = True

        if prune and not checks:
            continue
        make_move(bbs, state, undo, key_history, tables, move)
        tt_prefetch(tt, bbs[L.KEY])
        stack[ply * STACK_WIDTH + S_MOVE] = move
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
            score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv,
                             moves, scores, control, -beta, -alpha, new_depth, ply + 1, zero)
        else:
            reduction = 0
            if depth >= LMR_MIN_DEPTH and searched >= 1 + 2 * pv_node and quiet:
                reduction = np.int64(LMR_BASE + math.log(depth) * math.log(searched + 1) / LMR_DIVISOR)
                if not pv_node:
                    reduction += 1
                if not improving:
                    reduction += 1
                reduction += cut_node
                if checks or in_check:
                    reduction -= 1
                if scores[base + i] >= (1 << 26):   # killers and the countermove
                    reduction -= 1
                else:
                    reduction -= scores[base + i] // LMR_HISTORY_DIVISOR
                reduction = max(0, min(reduction, new_depth - 1))
            score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack, pv,
                             moves, scores, control, -alpha - 1, -alpha, new_depth - reduction, ply + 1,
                             one)
            if score > alpha and reduction > 0:
                score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack,
                                 pv, moves, scores, control, -alpha - 1, -alpha, new_depth, ply + 1,
                                 one - cut_node)
            if pv_node and alpha < score < beta:
                score = -negamax(bbs, state, undo, key_history, tables, weights, tt, heuristics, stack,
                                 pv, moves, scores, control, -beta, -alpha, new_depth, ply + 1, zero)
        unmake_move(bbs, state, undo, key_history, tables)
        if control[C_STOP] != 0:
            return 0
        searched += 1

        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = move
                if pv_node:
                    _update_pv(pv, ply, move)
                if score >= beta:
                    # A quiet move that refutes: remember it, and lower the
                    # history of the quiet moves tried before it.
                    if quiet:
                        bonus = history_bonus(depth)
                        store_killer(heuristics, ply, move)
                        update_history(heuristics, us, move, bonus)
                        if ply > 0:
                            heuristics[countermove_index(previous_move)] = move
                        for j in range(base, base + i):
                            other = moves[j]
                            if captured_type(state, other) < 0 and ((other >> 12) & 7) == 0:
                                update_history(heuristics, us, other, -bonus)
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

