"""Quiescence search: play out captures before trusting the static evaluation.

Negamax calls :func:`quiescence` at depth 0.  The side to move may "stand
pat" on its static evaluation or try its captures and queen promotions,
best first by MVV-LVA; captures that lose material by SEE, and captures that
could not reach alpha even if they won the piece for free (delta pruning),
are skipped.  A side in check cannot stand pat: every evasion is searched,
and having none is mate.

Like negamax it is a plain recursive kernel taking the search context
(:mod:`jitfish.search.context`) and its node's scalars.  Its nodes test
whether they are in check themselves (their stack record says
``CHECK_UNKNOWN``), except the first, whose parent, a negamax node, knows.

A recursive call copies the whole context (about 120 machine words) at every
quiescence node, which an iterative loop keeping each node's frame in the
stack records avoids.  Measured on ``bench`` (search-thread CPU time, three
runs each alternated with an unchanged reference build, load ~10), this
recursive version is at most about 3 % slower than such a loop (0.89-0.97
against 0.89-0.93 of the reference's speed, 1.65-1.72 against 1.72-1.76 M
nodes/s): within the noise of that machine.
"""

from __future__ import annotations

from jitfish.jit import HELPER, kernel
from jitfish.board import layout as L
from jitfish.board.movegen import generate_moves
from jitfish.board.moves import move_promotion
from jitfish.search.buffers import C_AGE, C_STOP, CHECK_UNKNOWN, NO_EVAL, move_list
from jitfish.search.context import (
    ALL_MOVES, NO_SCORE, NOISY_MOVES, ZERO, enter_node, in_check_at, play, take_back,
)
from jitfish.search.evalstack import static_eval_at
from jitfish.search.movepick import init_qsearch_picker, move_at, next_move
from jitfish.search.see import captured_type, see_ge, see_value
from jitfish.search.tt import bound_settles, tt_read, tt_store
from jitfish.types import BOUND_LOWER, BOUND_UPPER, INF, mated_in

DELTA_MARGIN = 200           # delta pruning: a capture must reach alpha with this much to spare
SEE_MIN_GAIN = ZERO          # captures that lose material by SEE are not searched (an int64: see context)
LEAF_DEPTH = ZERO            # the draft quiescence results are stored with


@kernel(hot=True, inline=True)
def futile_capture(ctx, move, stand_pat, alpha):
    """Whether a capture is not worth searching: even winning its victim for free cannot reach alpha
    (delta pruning), or it loses material by SEE (and so resolves nothing)."""
    if move_promotion(move) == 0 and stand_pat + see_value(captured_type(ctx.state, move)) + DELTA_MARGIN <= alpha:
        return True
    return not see_ge(ctx.bbs, ctx.state, ctx.tables, move, SEE_MIN_GAIN)


@kernel(hot=True, cold_start=HELPER)
def quiescence(ctx, alpha, beta, ply):
    """The quiescent score of the position for the side to move, with negamax's conventions.

    Fails soft.  Returns 0 (with the position restored) as soon as
    ``control[C_STOP]`` is set; the caller must then discard the result.
    """
    score = enter_node(ctx, ply)
    if score != NO_SCORE:
        return score
    key = ctx.bbs[L.KEY]
    entry = tt_read(ctx.tt, key, ply)
    if entry.found and bound_settles(entry.bound, entry.score, alpha, beta):
        return entry.score

    # Stand pat, unless in check: then every evasion is searched, and none is mate.
    base = move_list(ply)
    if in_check_at(ctx, ply):
        stand_pat = NO_EVAL
        best_score = -INF
        count = generate_moves(ctx.bbs, ctx.state, ctx.tables, ctx.work, base, ALL_MOVES)
        if count == 0:
            return mated_in(ply)
    else:
        stand_pat = static_eval_at(ctx, ply, entry)
        if stand_pat >= beta:
            return stand_pat
        best_score = stand_pat
        alpha = max(alpha, stand_pat)
        count = generate_moves(ctx.bbs, ctx.state, ctx.tables, ctx.work, base, NOISY_MOVES)

    init_qsearch_picker(ctx, ply, count, entry.move)
    best_move = 0
    while True:
        slot = next_move(ctx, ply)
        if slot < 0:
            break
        move = move_at(ctx.work, slot)
        if stand_pat != NO_EVAL and futile_capture(ctx, move, stand_pat, alpha):
            continue
        play(ctx, ply, move, CHECK_UNKNOWN)
        score = -quiescence(ctx, -beta, -alpha, ply + 1)
        take_back(ctx)
        if ctx.control[C_STOP] != 0:
            return 0
        if score > best_score:
            best_score = score
            if score > alpha:
                best_move = move
                if score >= beta:
                    break
                alpha = score

    bound = BOUND_LOWER if best_score >= beta else BOUND_UPPER
    tt_store(ctx.tt, key, best_move, best_score, stand_pat if stand_pat != NO_EVAL else 0, LEAF_DEPTH, bound, ply,
             ctx.control[C_AGE])
    return best_score
