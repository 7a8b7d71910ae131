"""The search context: every array a search kernel needs, in one argument.

Negamax, quiescence and the helpers inlined into them take the context
(:class:`SearchContext`) and their node's own scalars (alpha, beta, depth,
ply, cut node).  The context is a NamedTuple of one thread's preallocated
arrays -- its copy of the position, the lookup tables, the evaluation's
weights or network, the search parameters, the shared transposition table,
the thread's buffers (:mod:`jitfish.search.buffers`) and, with Syzygy
tables, its tablebase arrays -- so adding a table means adding a field here,
not an argument to every kernel.  Numba passes it
field by field, as it would the separate arrays, so a call costs what the
same arrays passed one by one cost; kernels compiled once and called from
several places (``generate_moves``, ``see_ge``) keep taking just the arrays
they read, because a call copies every array it is passed.  The picker's
kernels that need the context to read the history tables (``_order``,
``score_moves``) are pasted into their callers by LLVM instead
(``llvm_inline``: :func:`jitfish.runtime.jit.kernel`), so nothing is copied.

Two searches, one source.  Without tables the ``syzygy`` field is the empty
tuple ``NO_TABLES``, with tables it holds their arrays: the two contexts are
two types, so Numba compiles negamax once for each, and its tablebase step
(``negamax.tablebase_score``) is chosen by the type.  The search without
tables, which every start compiles, then holds no prober: a cold start
compiles the prober only when tables are set
(:func:`jitfish.runtime.compile.warm_tablebases`), not on every first start.
Quiescence never probes; it gets the context without tables
(:func:`without_tables`), so it is compiled once for both.

Typed constants.  A recursive call must pass exactly the argument types of
the outer call: a literal ``0`` where the kernel was called with an int64 makes
Numba type (and cache) a second signature, and a cached kernel whose recursive
call needs a cast crashes on the next start (Numba issues #6061, #6713).  A
literal passed to a shared callee likewise compiles it once more, apart from
the version the Python API uses.  So the scalars the search passes as
constants are the int64 values below, never Python literals: this is the one
place that trick lives.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import key_after, make_move, make_null_move, unmake_move, unmake_null_move
from jitfish.board.movegen import GEN_ALL, GEN_NOISY, is_in_check
from jitfish.runtime.jit import kernel
from jitfish.search.buffers import (
    C_STOP,
    CHECK_UNKNOWN,
    GAVE_CHECK,
    GAVE_NO_CHECK,
    STACK_ROOT,
    clear_pv,
    set_child_psq,
    visit_node,
)
from jitfish.search.evalstack import evaluate_at, network_hidden, note_move, note_null_move
from jitfish.search.history import correction_prefetch, piece_to
from jitfish.search.tt import tt_prefetch
from jitfish.types import BOUND_LOWER, INF, MAX_PLY

# int64 constants (see the module docstring).
NOT_CUT = np.int64(0)  # negamax's cut_node: 0 for PV and all nodes ...
CUT = np.int64(1)  # ... 1 for expected cut nodes
ALL_MOVES = np.int64(GEN_ALL)  # generate_moves's modes
NOISY_MOVES = np.int64(GEN_NOISY)
NO_MOVE = np.int64(0)
ZERO = np.int64(0)
LOWER_BOUND = np.int64(BOUND_LOWER)  # tt_store's bound where a step always stores a fail-high (ProbCut)
NO_SCORE = INF + 1  # a step's answer when the node goes on (no score is this big)


class SearchContext(NamedTuple):
    """One search thread's arrays (see the module docstring); built by ``SearchWorker.context``
    (:mod:`jitfish.search.worker`) before each call into the search."""

    bbs: np.ndarray  # the position (jitfish.board.layout), the thread's own copy
    state: np.ndarray
    undo: np.ndarray
    key_history: np.ndarray
    tables: np.ndarray  # jitfish.board.tables.lookup_tables()
    weights: np.ndarray  # the hand-written evaluation's weights (jitfish.eval.params)
    network: tuple  # the network and the thread's accumulators (jitfish.search.evalstack)
    params: np.ndarray  # margins, reductions, thresholds (jitfish.search.params)
    tt: np.ndarray  # the transposition table, shared by the threads (jitfish.search.tt)
    work: np.ndarray  # move-ordering memory, PV, move lists (jitfish.search.buffers)
    control: np.ndarray  # node count, stop flag, limits (jitfish.search.buffers)
    stack: np.ndarray  # one record per ply (jitfish.search.buffers)
    syzygy: tuple  # NO_TABLES, or the tablebase arrays (tb, scratch, settings): jitfish.syzygy.probe_arrays


# The ``syzygy`` field of a search without tables (see the module docstring).
NO_TABLES = ()


def new_context(
    position, tables, weights, network, params, tt, work, control, stack, syzygy=NO_TABLES
) -> SearchContext:
    """The context of a search of ``position`` (a :class:`jitfish.board.position.Position`, searched in place);
    ``syzygy``: the thread's tablebase arrays, to probe tables in the tree."""
    return SearchContext(
        position.bbs,
        position.state,
        position.undo,
        position.key_history,
        tables,
        weights,
        network,
        params,
        tt,
        work,
        control,
        stack,
        syzygy,
    )


def has_tables(context_type) -> bool:
    """Whether a search context of this Numba type carries tables (its ``syzygy`` field is not ``NO_TABLES``)."""
    return len(context_type.types[context_type.fields.index("syzygy")]) > 0


@kernel(hot=True, inline=True)
def without_tables(ctx):
    """``ctx`` with ``NO_TABLES``: the context quiescence gets, the same type whether or not the main
    search probes tables (a new tuple of the same arrays: nothing is copied)."""
    return SearchContext(
        ctx.bbs,
        ctx.state,
        ctx.undo,
        ctx.key_history,
        ctx.tables,
        ctx.weights,
        ctx.network,
        ctx.params,
        ctx.tt,
        ctx.work,
        ctx.control,
        ctx.stack,
        NO_TABLES,
    )


@kernel(hot=True, inline=True)
def enter_node(ctx, ply):
    """Count the node at ``ply`` and clear its PV; the score to return at once (0 once the search is
    stopped, the static evaluation at the deepest ply), else ``NO_SCORE``."""
    visit_node(ctx.control, ply)
    clear_pv(ctx.work, ply)
    if ctx.control[C_STOP] != 0:
        return 0
    if ply >= MAX_PLY - 1:
        return evaluate_at(ctx, ply)
    return NO_SCORE


@kernel(hot=True, inline=True)
def in_check_at(ctx, ply):
    """Whether the side to move at ``ply`` is in check: as the parent noted it, else tested."""
    check_known = ctx.stack[ply + STACK_ROOT].check_known
    if check_known == CHECK_UNKNOWN:
        return is_in_check(ctx.bbs, ctx.state, ctx.tables)
    return check_known == GAVE_CHECK


@kernel(hot=True, inline=True)
def play(ctx, ply, move, check_known):
    """Make ``move`` at ``ply``: record it, tell the child whether it gives check (``check_known``), keep
    the evaluation's incremental state, and start fetching the child's TT bucket and correction entries."""
    node = ctx.stack[ply + STACK_ROOT]
    child = ctx.stack[ply + 1 + STACK_ROOT]
    if network_hidden(ctx.network) == 0:  # only the hand-written evaluation reads the piece-square score
        set_child_psq(node, child, ctx.state, ctx.weights, move)
    node.piece_to = piece_to(ctx.state, move)
    node.move = move
    note_move(ctx.network, ctx.stack, ctx.state, ply, move)
    make_move(ctx.bbs, ctx.state, ctx.undo, ctx.key_history, ctx.tables, move)
    tt_prefetch(ctx.tt, ctx.bbs[L.KEY])
    correction_prefetch(ctx, ply + 1)
    child.check_known = check_known


@kernel(hot=True, inline=True)
def prefetch_child(ctx, move):
    """Start fetching the TT bucket of the position after ``move`` while the node decides whether to play it
    (its pruning, its check): :func:`play`'s own prefetch comes too late to hide the wait."""
    tt_prefetch(ctx.tt, key_after(ctx.bbs, ctx.state, ctx.tables, move))


@kernel(hot=True, inline=True)
def take_back(ctx):
    """Unmake the last move :func:`play` made."""
    unmake_move(ctx.bbs, ctx.state, ctx.undo, ctx.key_history, ctx.tables)


@kernel(hot=True, inline=True)
def play_null(ctx, ply):
    """Pass at ``ply`` (recorded as move 0): no check, and the child's pieces, so its evaluation state,
    are this ply's."""
    node = ctx.stack[ply + STACK_ROOT]
    child = ctx.stack[ply + 1 + STACK_ROOT]
    node.move = 0
    child.check_known = GAVE_NO_CHECK
    child.psq_mg = node.psq_mg
    child.psq_eg = node.psq_eg
    note_null_move(ctx.network, ctx.stack, ply)
    make_null_move(ctx.bbs, ctx.state, ctx.undo, ctx.key_history, ctx.tables)


@kernel(hot=True, inline=True)
def take_back_null(ctx):
    unmake_null_move(ctx.bbs, ctx.state, ctx.undo, ctx.key_history, ctx.tables)
