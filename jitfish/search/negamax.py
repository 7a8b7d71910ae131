"""Negamax alpha-beta with principal variation search; depth 0 hands over to quiescence.

One self-recursive kernel, called from Python once per aspiration window with the search context (the position,
tables and buffers: :mod:`jitfish.search.context`) and its node's scalars; at depth 0 it calls the quiescence search,
which the move loop also calls itself for a child of depth 0 (:func:`search_child`), as Stockfish does.
Its steps are numbered in the order they run; each says what it does and why it is sound, the longer ones are inlined
helpers named after it, so a new step is one more numbered block (docs/contributing.md, "Adding a search step").

The steps are Stockfish's ideas, not its numbers; against the steps of its ``search()`` (Stockfish 16 and 17):

====================================  ===========================================================
here                                  Stockfish
====================================  ===========================================================
1 initialize node                     1 (Stockfish hands depth 0 to quiescence just before it)
2 draws, 3 mate distance pruning      2, 3
4 transposition table lookup          4 (with its early cut-off)
5 tablebases                          5
6 static evaluation                   6
7 reverse futility pruning            8 "futility pruning: child node"
8 null move pruning                   9 (with its verification search)
9 razoring                            7 (there before the futility and null move steps)
10 ProbCut                            11
11 internal iterative reduction       10 (there before ProbCut)
12 singular extension                 15 (there in the move loop; here searched before it)
13 generate the moves                 13's move picker
14 the move loop                      13
15 pruning at shallow depth           14
16 principal variation search         16 to 19 (make, LMR, full-depth search, undo)
17 no move searched: fail low         21 (mate and stalemate are found at step 13 here)
18 store in the transposition table   the store after 21 (unnumbered)
====================================  ===========================================================

Stockfish's step 12 has no counterpart; its 20 ends the loop body after step 16, its 15's extensions come before 16.

Layouts: the buffers in :mod:`jitfish.search.buffers`, ``ctx.tt`` in :mod:`jitfish.search.tt`, ``ctx.params`` (the
margins, reductions and thresholds) in :mod:`jitfish.search.params`.
"""

# Kept as written, not as ruff would format or sort it: the numbered steps read as one page of 150 lines.
# fmt: off
# isort: skip_file

from __future__ import annotations

import math

import numpy as np
from numba.extending import overload

from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.board.movegen import check_squares, generate_moves, gives_check_given
from jitfish.board.squares import BISHOP, KNIGHT, QUEEN, ROOK
from jitfish.runtime.jit import WHILE_WAITING, kernel
from jitfish.search.buffers import (
    C_AGE, C_NMP_MIN_PLY, C_STOP, CHECK_UNKNOWN, GAVE_CHECK, GAVE_NO_CHECK, LMR, LMR_SIDE, NO_EVAL, SCORES,
    STACK_ROOT, clear_pv, end_root_move, move_list, root_allowed, start_root_move, update_pv,
)
from jitfish.search.context import (
    ALL_MOVES, CUT, LOWER_BOUND, NO_MOVE, NO_SCORE, NOISY_MOVES, NOT_CUT, enter_node, has_tables, in_check_at, play,
    play_null, prefetch_child, take_back, take_back_null, without_tables,
)
from jitfish.search.draws import insufficient_material, is_repetition
from jitfish.search.evalstack import evaluate_at, node_static_eval
from jitfish.search.history import (
    SCORE_COUNTERMOVE, capture_history, clear_killers, mark_searched, update_correction, update_histories)
from jitfish.search.movepick import (
    SEE_WINS, SELECTION_PICKS, init_picker, init_qsearch_picker, move_at, next_move, quiet_score,
    see_verdict, skip_quiet_moves,
)
from jitfish.search.params import Param, default_params
from jitfish.search.quiescence import quiescence
from jitfish.search.see import captured_type, is_quiet, see_ge
from jitfish.search.tt import bound_settles, tt_read, tt_store
from jitfish.syzygy.search import probe_in_search
from jitfish.types import (
    BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, INF, MATE_BOUND, TB_WIN_BOUND, mate_in, mated_in,
)

# Every pruning margin, reduction and extension threshold is a row of ``Param`` (:mod:`jitfish.search.params`),
# named and explained once; kernels read ``params[Param.RFP_MARGIN]``, so a tuner changes them without recompiling.

# A tablebase result is stored this much deeper than the node's depth: deeper searches could not improve it.
TB_DEPTH_BONUS = 6


def late_move_reductions(params: np.ndarray | None = None) -> np.ndarray:
    """The reduction table negamax reads from ``work[LMR:]``: ``[depth * LMR_SIDE + move number]``.

    ``base + ln(depth) * ln(move number) / divisor``, truncated, with ``LMR_BASE_PCT`` and
    ``LMR_DIVISOR_PCT`` of ``params`` (default: the shipped ones) in hundredths; computed in
    Python whenever they change, rather than with two logarithms per reduced move.
    """
    params = default_params() if params is None else params
    base = params[Param.LMR_BASE_PCT] / 100
    divisor = params[Param.LMR_DIVISOR_PCT] / 100
    table = np.zeros((LMR_SIDE, LMR_SIDE), dtype=np.int32)
    for depth in range(1, LMR_SIDE):
        for number in range(1, LMR_SIDE):
            table[depth, number] = int(base + math.log(depth) * math.log(number) / divisor)
    return table.ravel()


@kernel(hot=True, cold_start=WHILE_WAITING)
def _pieces(bbs, side):
    """The side's knights, bishops, rooks and queens."""
    base = side * 6
    return bbs[base + KNIGHT] | bbs[base + BISHOP] | bbs[base + ROOK] | bbs[base + QUEEN]


@kernel(hot=True, cold_start=WHILE_WAITING)
def _has_non_pawn_material(bbs, side):
    return _pieces(bbs, side) != 0


@kernel(hot=True, inline=True)
def draw_score(ctx, ply, in_check):
    """Step 2. Draws: repetition, the fifty-move rule, insufficient material; ``NO_SCORE`` if none.

    A mate given on the hundredth ply still counts, so a position with the
    clock run out is a draw only if the side to move is not mated.
    """
    if is_repetition(ctx.bbs, ctx.state, ctx.key_history) or insufficient_material(ctx.bbs):
        return 0
    if ctx.state[L.HALFMOVE_CLOCK] >= 100:
        if in_check and generate_moves(ctx.bbs, ctx.state, ctx.tables, ctx.work, move_list(ply), ALL_MOVES) == 0:
            return mated_in(ply)
        return 0
    return NO_SCORE


def tablebase_score(ctx, ply, depth, alpha, beta, pv_node):
    """Step 5. Tablebases: the score to return when the tables settle the node, else ``NO_SCORE``.

    Right after a capture or pawn move with few pieces left the tables know
    the result (:func:`jitfish.syzygy.search.probe_in_search`).  It is stored
    (``TB_DEPTH_BONUS`` deeper: no search would refine it) and returned when
    the window cannot change it, and at PV nodes always: a win or loss stands
    for the line, whose mate the search need not find.  Not at the root (its
    moves are ranked in Python: :mod:`jitfish.syzygy.root`), nor in a search
    without the singular move (its result is not the node's).

    The search without tables has no such step: :func:`_tablebase_step` picks
    the version by the context's type, when Numba compiles negamax (this
    Python function only names the step).
    """
    raise TypeError("tablebase_score is a step of the compiled search")


def _probe_tables(ctx, ply, depth, alpha, beta, pv_node):
    if ply == 0 or ctx.stack[ply + STACK_ROOT].excluded != 0:
        return NO_SCORE
    score, bound = probe_in_search(ctx, ply, depth)
    if bound == BOUND_NONE or not (pv_node or bound_settles(bound, score, alpha, beta)):
        return NO_SCORE
    tt_store(ctx.tt, ctx.bbs[L.KEY], NO_MOVE, score, evaluate_at(ctx, ply), depth + TB_DEPTH_BONUS, bound, ply,
             ctx.control[C_AGE])
    return score


def _no_tables(ctx, ply, depth, alpha, beta, pv_node):
    return NO_SCORE


@overload(tablebase_score, inline="always")
def _tablebase_step(ctx, ply, depth, alpha, beta, pv_node):
    """Step 5 for this context type (``overload``: Numba's way to choose code by argument types)."""
    return _probe_tables if has_tables(ctx) else _no_tables


@kernel(hot=True, inline=True)
def static_evaluation(ctx, ply, in_check, entry):
    """Step 6. The node's static evaluation, corrected (``NO_EVAL`` in check: ``node_static_eval``), and the
    best estimate of its score: a TT score (``entry``) bounded on the right side of the evaluation is a better one."""
    static_eval = node_static_eval(ctx, ply, in_check, entry)
    if in_check:
        return NO_EVAL, NO_EVAL
    if entry.found and ((entry.bound == BOUND_LOWER and entry.score > static_eval)
                        or (entry.bound == BOUND_UPPER and entry.score < static_eval)):
        return static_eval, entry.score
    return static_eval, static_eval


@kernel(hot=True, inline=True)
def search_child(ctx, alpha, beta, depth, ply, cut_node):
    """A child's search from the move loop and null move pruning: quiescence at depth 0 is called here,
    not through negamax's step 1, which would pass the context once more (a call copies every array
    it is passed, and most children of the last plies are quiescence nodes).  The same tree."""
    if depth <= 0:
        return quiescence(without_tables(ctx), alpha, beta, ply)
    return negamax(ctx, alpha, beta, depth, ply, cut_node)


@kernel(hot=True, inline=True)
def null_move_reduction(ctx, ply, depth, beta, eval_estimate):
    """Step 8. How much shallower the null move is searched, or -1 where the node may not pass.

    If passing still fails high, a real move almost surely does -- except in
    zugzwang, where every real move is worse than none.  So not with fewer
    than ``NMP_MIN_PIECES`` pieces besides king and pawns (where zugzwang is
    common), not twice in a row (nor at the root: its padding record says no
    move), not within a verification search, and not against a beta that is
    itself a mate score: there the question is whether *every* move is mated,
    which passing cannot answer.
    """
    params = ctx.params
    if (depth >= params[Param.NMP_MIN_DEPTH] and eval_estimate >= beta and ctx.stack[ply - 1 + STACK_ROOT].move != 0
            and beta > -MATE_BOUND and ply >= ctx.control[C_NMP_MIN_PLY]
            and popcount(_pieces(ctx.bbs, ctx.state[L.SIDE_TO_MOVE])) >= params[Param.NMP_MIN_PIECES]):
        return (params[Param.NMP_BASE_REDUCTION] + depth // params[Param.NMP_DEPTH_DIVISOR]
                + min((eval_estimate - beta) // params[Param.NMP_EVAL_DIVISOR], params[Param.NMP_EVAL_MAX]))
    return -1


@kernel(hot=True, inline=True)
def null_move_search(ctx, ply, depth, beta, eval_estimate, cut_node):
    """Step 8. Null move pruning: the score to return if passing still fails high, else ``NO_SCORE``.

    A deep cut-off is verified by searching the real moves to the reduced
    depth, with no null move for the next plies (before this node generates
    its moves: the verification search reuses its buffers).
    """
    reduction = null_move_reduction(ctx, ply, depth, beta, eval_estimate)
    if reduction < 0:
        return NO_SCORE
    params = ctx.params
    null_depth = depth - reduction - 1
    play_null(ctx, ply)
    score = -search_child(ctx, -beta, -beta + 1, null_depth, ply + 1, CUT - cut_node)
    take_back_null(ctx)
    if ctx.control[C_STOP] != 0:
        return 0
    if score < beta:
        return NO_SCORE
    if score >= MATE_BOUND:
        score = beta   # a mate found after passing is not proven
    if depth < params[Param.NMP_VERIFY_DEPTH] or ctx.control[C_NMP_MIN_PLY] != 0:
        return score
    ctx.control[C_NMP_MIN_PLY] = ply + params[Param.NMP_VERIFY_PLIES_PCT] * null_depth // 100
    verified = negamax(ctx, beta - 1, beta, null_depth, ply, NOT_CUT)
    ctx.control[C_NMP_MIN_PLY] = 0
    if ctx.control[C_STOP] != 0:
        return 0
    if verified >= beta:
        return score
    clear_pv(ctx.work, ply)
    return NO_SCORE


@kernel(hot=True, inline=True)
def has_quiet_check(bbs, state, tables, moves, start):
    """Whether the side to move has a legal quiet move (no capture, no promotion) that gives check; the
    legal moves are left in ``moves[start:]``."""
    count = generate_moves(bbs, state, tables, moves, start, ALL_MOVES)
    their_king, discoverers, diagonal_checks, straight_checks = check_squares(bbs, state, tables)
    for slot in range(start, start + count):
        move = move_at(moves, slot)
        if is_quiet(state, move) and gives_check_given(bbs, state, tables, move, their_king, discoverers,
                                                       diagonal_checks, straight_checks):
            return True
    return False


@kernel(hot=True, inline=True)
def razoring(ctx, ply, depth, alpha, eval_estimate):
    """Step 9. Razoring: the score to return when a shallow node is so far below alpha that only a capture
    could save it and quiescence says none does, else ``NO_SCORE``.  Quiescence runs at this node's ply
    (its moves and picker are this node's, generated again afterwards); its fail-low is an upper bound.
    Not where a quiet move gives check, which quiescence does not try: after a sacrifice the side that gave
    material is far below alpha, and the quiet check that follows is often the point of it (razoring it
    away cost 9 of Win At Chess's 300 at 20,000 nodes; docs/strength.md)."""
    params = ctx.params
    if not (depth <= params[Param.RAZOR_MAX_DEPTH] and abs(alpha) < TB_WIN_BOUND
            and eval_estimate + params[Param.RAZOR_BASE] + params[Param.RAZOR_MARGIN] * depth * depth < alpha):
        return NO_SCORE
    if has_quiet_check(ctx.bbs, ctx.state, ctx.tables, ctx.work, move_list(ply)):
        return NO_SCORE
    score = quiescence(without_tables(ctx), alpha - 1, alpha, ply)
    if ctx.control[C_STOP] != 0:
        return 0
    return score if score < alpha else NO_SCORE


@kernel(hot=True, inline=True)
def probcut(ctx, ply, depth, beta, static_eval, entry, cut_node):
    """Step 10. ProbCut: a capture that beats ``beta`` by ``PROBCUT_MARGIN`` in quiescence and then in a
    search ``PROBCUT_REDUCTION`` plies shallower almost surely beats beta at full depth: the score to
    return (stored as a lower bound), else ``NO_SCORE``.  Only captures whose exchange alone wins the
    margin over the evaluation are tried, and not where the TT already says the node stays below the
    raised beta.  A mate or tablebase score cuts nothing: the full search finds its exact distance."""
    params = ctx.params
    probcut_beta = beta + params[Param.PROBCUT_MARGIN]
    if not (depth >= params[Param.PROBCUT_MIN_DEPTH] and abs(beta) < TB_WIN_BOUND
            and not (entry.found and entry.depth >= depth - params[Param.PROBCUT_REDUCTION]
                     and entry.score < probcut_beta)):
        return NO_SCORE
    count = generate_moves(ctx.bbs, ctx.state, ctx.tables, ctx.work, move_list(ply), NOISY_MOVES)
    init_qsearch_picker(ctx, ply, count, entry.move)
    probcut_depth = depth - params[Param.PROBCUT_REDUCTION]
    while True:
        slot = next_move(ctx, ply)
        if slot < 0:
            return NO_SCORE
        move = move_at(ctx.work, slot)
        if not see_ge(ctx.bbs, ctx.state, ctx.tables, move, probcut_beta - static_eval):
            continue
        play(ctx, ply, move, CHECK_UNKNOWN)
        score = -quiescence(without_tables(ctx), -probcut_beta, -probcut_beta + 1, ply + 1)
        if score >= probcut_beta:
            score = -negamax(ctx, -probcut_beta, -probcut_beta + 1, probcut_depth, ply + 1, CUT - cut_node)
        take_back(ctx)
        if ctx.control[C_STOP] != 0:
            return 0
        if probcut_beta <= score < TB_WIN_BOUND:
            tt_store(ctx.tt, ctx.bbs[L.KEY], move, score, ctx.stack[ply + STACK_ROOT].raw_eval, probcut_depth + 1,
                     LOWER_BOUND, ply, ctx.control[C_AGE])
            return score


@kernel(hot=True, inline=True)
def singular_search(ctx, ply, depth, beta, entry, cut_node):
    """Step 12. Singular extension: ``(extension, score to return or NO_SCORE)``.

    If every other move fails low against a margin below the TT score, the
    TT move is singular and gets one more ply; if even without it the search
    beats beta, the node cuts off (multi-cut).  Only for a TT move whose lower
    bound was searched nearly as deep, and not a mate score.  Done before
    this node generates its moves: the search without the TT move reuses its
    buffers.
    """
    params = ctx.params
    if not (depth >= params[Param.SE_MIN_DEPTH] and entry.move != 0 and entry.bound == BOUND_LOWER
            and entry.depth >= depth - params[Param.SE_TT_DEPTH_SLACK] and abs(entry.score) < MATE_BOUND):
        return 0, NO_SCORE
    singular_beta = entry.score - params[Param.SE_MARGIN] * depth
    node = ctx.stack[ply + STACK_ROOT]
    node.excluded = entry.move
    score = negamax(ctx, singular_beta - 1, singular_beta, (depth - 1) // 2, ply, cut_node)
    node.excluded = 0
    if ctx.control[C_STOP] != 0:
        return 0, 0
    if score >= singular_beta and singular_beta >= beta:
        return 0, singular_beta
    clear_pv(ctx.work, ply)
    return (1 if score < singular_beta else 0), NO_SCORE


@kernel(hot=True, inline=True)
def late_move_limits(ctx, depth, improving, pv_node, in_check):
    """Step 14. How many quiet moves late move pruning lets through, and whether the picker sorts the
    moves left after its first picks: only where many moves will be searched (where late move pruning
    soon skips the quiet moves, a few selection passes are cheaper)."""
    params = ctx.params
    lmp_limit = params[Param.LMP_BASE] + depth * depth
    if not improving:
        lmp_limit //= 2
    return lmp_limit, pv_node or in_check or depth > params[Param.LMP_MAX_DEPTH] or lmp_limit > 2 * SELECTION_PICKS


@kernel(hot=True, inline=True)
def shallow_pruning(ctx, ply, move, slot, quiet, depth, alpha, best_score, static_eval, searched, quiets_seen,
                    lmp_limit, in_check, pv_node):
    """Step 15. Whether to skip a move at a shallow depth, once a move has saved us from being mated
    (never at the root, nor without pieces besides king and pawns): late quiet moves and futile quiet
    moves (both also skip every quiet move after them: :func:`skip_quiet_moves`), quiet moves with a bad
    history (killers and the countermove score far above it), and moves that lose too much material by
    SEE.  A capture's SEE threshold moves with its capture history: one that has often worked may lose up
    to twice the margin, one that has often failed must not lose at all.  The caller keeps the moves that
    give check."""
    params = ctx.params
    if ply == 0 or best_score <= -MATE_BOUND or not _has_non_pawn_material(ctx.bbs, ctx.state[L.SIDE_TO_MOVE]):
        return False
    if quiet:
        if ((depth <= params[Param.LMP_MAX_DEPTH] and quiets_seen > lmp_limit and not in_check and not pv_node)
                or (depth <= params[Param.FUTILITY_MAX_DEPTH] and not in_check and not pv_node
                    and static_eval + params[Param.FUTILITY_BASE] + params[Param.FUTILITY_MARGIN] * depth <= alpha
                    and searched > 0)):
            skip_quiet_moves(ctx, ply)
            return True
        if (depth <= params[Param.HISTORY_PRUNE_MAX_DEPTH] and not in_check and not pv_node
                and quiet_score(ctx, ply, slot) < -params[Param.HISTORY_PRUNE_MARGIN] * depth):
            return True
        return depth <= params[Param.SEE_MAX_DEPTH] and not see_ge(ctx.bbs, ctx.state, ctx.tables, move,
                                                                   -params[Param.SEE_QUIET_MARGIN] * depth * depth)
    if depth > params[Param.SEE_MAX_DEPTH] or see_verdict(ctx.work[slot + SCORES]) == SEE_WINS:
        return False
    margin = params[Param.SEE_CAPTURE_MARGIN] * depth
    history = capture_history(ctx.state, ctx.work, move, captured_type(ctx.state, move))
    leeway = max(-margin, min(history // params[Param.SEE_CAPTURE_HISTORY_DIVISOR], margin))
    return not see_ge(ctx.bbs, ctx.state, ctx.tables, move, -margin - leeway)


@kernel(hot=True, inline=True)
def late_move_reduction(ctx, ply, slot, depth, searched, new_depth, quiet, pv_node, improving, cut_node, checking):
    """Step 16. How much shallower a late move is searched: the table's, more at non-PV, cut and
    not-improving nodes, less for checks, killers and the countermove, and less or more by the move's
    history (butterfly and continuation: one ply per ``LMR_HISTORY_DIVISOR``, at most ``LMR_HISTORY_MAX``);
    a capture only once SEE has found it losing (its ordering score is then negative), at an expected cut
    node and not a check, ``LMR_NOISY_OFFSET`` less (elsewhere such a capture is often the sacrifice a
    tactic starts with)."""
    params = ctx.params
    if depth < params[Param.LMR_MIN_DEPTH] or searched < 1 + 2 * pv_node or not (quiet or ctx.work[slot + SCORES] < 0):
        return 0
    reduction = np.int64(ctx.work[LMR + min(depth, LMR_SIDE - 1) * LMR_SIDE + min(searched + 1, LMR_SIDE - 1)])
    if not pv_node:
        reduction += 1
    if not quiet:   # a losing capture that gives check may be the sacrifice of a mating attack: not reduced
        if checking or cut_node == 0:
            return 0
        return max(0, min(reduction - params[Param.LMR_NOISY_OFFSET], new_depth - 1))
    if not improving:
        reduction += 1
    reduction += cut_node
    if checking:
        reduction -= 1
    ordering = quiet_score(ctx, ply, slot)
    if ordering >= SCORE_COUNTERMOVE:   # killers and the countermove
        reduction -= 1
    else:
        most = params[Param.LMR_HISTORY_MAX]
        reduction -= max(-most, min(ordering // params[Param.LMR_HISTORY_DIVISOR], most))
    return max(0, min(reduction, new_depth - 1))


@kernel(hot=True, inline=True)
def store_result(ctx, ply, move, score, static_eval, depth, original_alpha, beta, pv_node):
    """Step 18. Store the node's result (with the raw static evaluation): a lower bound if it failed high,
    exact if it raised alpha at a PV node, else an upper bound; and teach the correction history."""
    if score >= beta:
        bound = BOUND_LOWER
    elif pv_node and score > original_alpha:
        bound = BOUND_EXACT
    else:
        bound = BOUND_UPPER
    tt_store(ctx.tt, ctx.bbs[L.KEY], move, score, ctx.stack[ply + STACK_ROOT].raw_eval, depth, bound, ply,
             ctx.control[C_AGE])
    update_correction(ctx, ply, move, score, static_eval, beta, depth)


@kernel(hot=True)
def negamax(ctx, alpha, beta, depth, ply, cut_node):
    """The score of the position for the side to move, searched ``depth`` plies.

    Fails soft: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower
    bound.  Returns 0 as soon as ``ctx.control[C_STOP]`` is set; callers must
    then discard the result.  Recursive calls pass the int64 constants of
    :mod:`jitfish.search.context` (``CUT``, ``NOT_CUT``), never literals.
    """
    # Step 1. Initialize node.
    if depth <= 0:
        return quiescence(without_tables(ctx), alpha, beta, ply)
    score = enter_node(ctx, ply)
    if score != NO_SCORE:
        return score
    ss = ctx.stack[ply + STACK_ROOT]
    in_check = in_check_at(ctx, ply)
    params = ctx.params
    pv_node = beta - alpha > 1
    root = ply == 0
    excluded = ss.excluded

    if not root:
        # Step 2. Draws (draw_score).
        draw = draw_score(ctx, ply, in_check)
        if draw != NO_SCORE:
            return draw
        # Step 3. Mate distance pruning: no line from here beats a mate found closer to the root.
        alpha = max(alpha, mated_in(ply))
        beta = min(beta, mate_in(ply + 1))
        if alpha >= beta:
            return alpha

    # Step 4. Transposition table lookup: cut off at non-PV nodes when draft and bound settle it.
    entry = tt_read(ctx.tt, ctx.bbs[L.KEY], ply)
    if (not pv_node and excluded == 0 and entry.depth >= depth
            and bound_settles(entry.bound, entry.score, alpha, beta)):
        return entry.score

    # Step 5. Tablebases (tablebase_score).
    score = tablebase_score(ctx, ply, depth, alpha, beta, pv_node)
    if score != NO_SCORE:
        return score

    # Step 6. Static evaluation, and whether it improved on our last turn (the padding has nothing to improve on).
    static_eval, eval_estimate = static_evaluation(ctx, ply, in_check, entry)
    ss.eval = static_eval
    improving = not in_check and static_eval > ctx.stack[ply - 2 + STACK_ROOT].eval
    clear_killers(ctx, ply + 1)

    if not pv_node and not in_check and excluded == 0:
        # Step 7. Reverse futility pruning: so far above beta that no quiet move brings it back within a few plies.
        if (depth <= params[Param.RFP_MAX_DEPTH]
                and eval_estimate - params[Param.RFP_MARGIN] * (depth - improving) >= beta and abs(beta) < MATE_BOUND):
            return eval_estimate

        # Steps 8 to 10. Null move pruning (null_move_search), razoring (razoring), ProbCut (probcut).
        score = null_move_search(ctx, ply, depth, beta, eval_estimate, cut_node)
        if score == NO_SCORE:
            score = razoring(ctx, ply, depth, alpha, eval_estimate)
        if score == NO_SCORE:
            score = probcut(ctx, ply, depth, beta, static_eval, entry, cut_node)
        if score != NO_SCORE:
            return score

    # Step 11. Internal iterative reduction: with no TT move the ordering is poor; search shallower.
    if depth >= params[Param.IIR_MIN_DEPTH] and entry.move == 0 and (pv_node or cut_node != 0):
        depth -= 1

    # Step 12. Singular extension (singular_search).
    singular_extension = 0
    if not root and excluded == 0:
        singular_extension, score = singular_search(ctx, ply, depth, beta, entry, cut_node)
        if score != NO_SCORE:
            return score

    # Step 13. Generate the moves.  The staged picker (movepick) orders them as they are asked for: the TT
    # move first (a legal one before the others are generated), then good captures, killers, the
    # countermove, quiet moves by history, bad captures.
    lmp_limit, sort_rest = late_move_limits(ctx, depth, improving, pv_node, in_check)
    if not init_picker(ctx, ply, entry.move, excluded, sort_rest):
        return mated_in(ply) if in_check else 0

    # Step 14. Loop over the moves, as the picker hands them out.
    their_king, discoverers, diagonal_checks, straight_checks = check_squares(ctx.bbs, ctx.state, ctx.tables)
    best_score, best_move, searched, quiets_seen, original_alpha, root_nodes = -INF, 0, 0, 0, alpha, 0
    while True:
        slot = next_move(ctx, ply)
        if slot < 0:
            break
        move = move_at(ctx.work, slot)
        if move == excluded or (root and not root_allowed(ctx.control, move)):
            continue
        quiet = is_quiet(ctx.state, move)
        checks = gives_check_given(ctx.bbs, ctx.state, ctx.tables, move, their_king, discoverers,
                                   diagonal_checks, straight_checks)
        if quiet and ss.pick_skip_quiets != 0 and not checks:
            continue
        prefetch_child(ctx, move)
        quiets_seen += quiet

        # Step 15. Pruning at shallow depth (shallow_pruning); moves that give check are kept.
        if shallow_pruning(ctx, ply, move, slot, quiet, depth, alpha, best_score, static_eval, searched,
                           quiets_seen, lmp_limit, in_check, pv_node) and not checks:
            continue
        play(ctx, ply, move, GAVE_CHECK if checks else GAVE_NO_CHECK)
        if root:
            root_nodes = start_root_move(ctx.control, move, searched + 1)
        # Extensions: one ply for a check, or for the singular TT move.
        new_depth = depth - 1 + (checks or (move == entry.move and singular_extension == 1))

        # Step 16. Principal variation search: the first move with the full window, later ones with a null
        # window (reduced if late and quiet: late_move_reduction), re-searched when they unexpectedly beat alpha.
        if searched == 0:
            score = -search_child(ctx, -beta, -alpha, new_depth, ply + 1, NOT_CUT)
        else:
            reduction = late_move_reduction(ctx, ply, slot, depth, searched, new_depth, quiet, pv_node, improving,
                                            cut_node, checks or in_check)
            score = -search_child(ctx, -alpha - 1, -alpha, new_depth - reduction, ply + 1, CUT)
            if score > alpha and reduction > 0:
                score = -search_child(ctx, -alpha - 1, -alpha, new_depth, ply + 1, CUT - cut_node)
            if pv_node and alpha < score < beta:
                score = -search_child(ctx, -beta, -alpha, new_depth, ply + 1, NOT_CUT)
        take_back(ctx)
        if root:
            end_root_move(ctx.control, move, root_nodes)
        if ctx.control[C_STOP] != 0:
            return 0
        searched += 1
        mark_searched(ctx, slot, quiet)

        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = move
                if pv_node:
                    update_pv(ctx.work, ply, move)
                if score >= beta:
                    update_histories(ctx, ply, move, depth, slot, quiet)
                    break
                alpha = score

    # Step 17. No move searched: the excluded move was the only one (or every other was pruned): fail low.
    if searched == 0:
        return alpha

    # Step 18. Store in the transposition table (store_result).
    if excluded == 0:
        store_result(ctx, ply, best_move, best_score, static_eval, depth, original_alpha, beta, pv_node)
    return best_score
