"""The static evaluation at each ply of the search: the hand-written one, or a network's from accumulators.

:func:`evaluate_at` is what negamax and quiescence call.  The hand-written evaluation reads the material
and piece-square score the stack keeps move by move (:func:`jitfish.search.buffers.set_child_psq`); a
network reads the accumulators this module keeps, one pair per ply, updated lazily from the moves made.

A network's first layer sums a weight row per piece on the board, so a move changes it by two to four rows
(:func:`jitfish.board.moves.move_changes`), never by a full recount.  The search keeps the pair of accumulators
(one per perspective, :mod:`jitfish.nnue.inference`) of every ply of its current line in ``network``'s stack,
and when it makes a move it only notes in the child's record of the search stack which pieces the move removes
and adds (:func:`note_move`); the child's accumulators are computed when the child is evaluated
(:func:`evaluate_network_at`), from the nearest ancestor's that are ready, one ply at a time.  Nodes that are
never evaluated (most of those cut off by the TT or by a null move) then cost nothing.

Invariants:

* ``nn_ready`` is 1 at ply ``p`` exactly when the stack's row ``p`` holds the accumulators of the
  position at ply ``p`` of the current line; noting a move into ply ``p + 1`` clears it there, and the
  worker makes the root's ready before each search (``SearchWorker.evaluate_root`` in
  :mod:`jitfish.search.worker` calls :func:`prepare_root`), so a walk back from any ply stops at the root
  at the latest;
* ``nn_removed_*``/``nn_added_*`` of ply ``p`` are the pieces the move into ply ``p`` took off and
  put on the board (a null move: none), each as ``piece * 64 + square`` (``piece`` as in the mailbox,
  ``colour * 6 + piece_type``), or ``NO_CHANGE``.

``network`` is the tuple :func:`network_arrays` builds: the :class:`~jitfish.nnue.inference.KernelNetwork`
fields, then the thread's stack of accumulators (``int16 [plies, 2, N]``).  A network with no hidden
neuron (:func:`no_network`) means the hand-written evaluation: every kernel here then does nothing, and
the search never calls :func:`evaluate_network_at`.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.moves import NO_CHANGE, SQUARE_BITS, SQUARE_MASK, move_changes, piece_colour, piece_type
from jitfish.board.squares import PIECE_TYPE_COUNT
from jitfish.eval.evaluation import evaluate_with_psq
from jitfish.nnue.inference import (
    ACCUMULATOR_DTYPE,
    KernelNetwork,
    evaluate_accumulators,
    feature_index,
    piece_count,
    refresh_accumulator,
)
from jitfish.runtime.jit import kernel
from jitfish.search.buffers import NO_EVAL, STACK_ROOT
from jitfish.search.history import corrected_eval
from jitfish.types import MAX_PLY

STACK_PLIES = MAX_PLY + 4  # rows of accumulators, one per ply from the root (the search stack's plies)


@kernel(hot=True, inline=True)
def network_hidden(network):
    """The network's hidden size; 0 for :func:`no_network` (the hand-written evaluation)."""
    return network[1].shape[0]


@kernel(hot=True, inline=True)
def _note(record, removed_1, removed_2, added_1, added_2):
    """Write the changes of the move into a ply in its stack record; its accumulators are not ready."""
    record.nn_removed_1 = removed_1
    record.nn_removed_2 = removed_2
    record.nn_added_1 = added_1
    record.nn_added_2 = added_2
    record.nn_ready = 0


@kernel(hot=True, inline=True)
def note_move(network, stack, state, ply, move):
    """Before ``move`` is made at ``ply``: note its changes in the child's record (its accumulators wait)."""
    if network_hidden(network) > 0:
        removed_1, removed_2, added_1, added_2 = move_changes(state, move)
        _note(stack[ply + 1 + STACK_ROOT], removed_1, removed_2, added_1, added_2)


@kernel(hot=True, inline=True)
def note_null_move(network, stack, ply):
    """Before a null move at ``ply``: the child's pieces are this ply's."""
    if network_hidden(network) > 0:
        _note(stack[ply + 1 + STACK_ROOT], NO_CHANGE, NO_CHANGE, NO_CHANGE, NO_CHANGE)


@kernel(hot=True, inline=True)
def _row(weights, perspective, change):
    """The weight row of the piece ``change`` (``piece * 64 + square``) seen from ``perspective``."""
    piece = change >> SQUARE_BITS
    return weights[feature_index(perspective, piece_colour(piece), piece_type(piece), change & SQUARE_MASK)]


@kernel(hot=True, llvm_inline=True)
def _update(weights, parent, child, perspective, removed_1, removed_2, added_1, added_2):
    """``child = parent`` minus the rows removed plus the rows added (one pass: LLVM vectorises it)."""
    if added_1 == NO_CHANGE:
        for i in range(child.shape[0]):
            child[i] = parent[i]
        return
    take = _row(weights, perspective, removed_1)
    put = _row(weights, perspective, added_1)
    if removed_2 == NO_CHANGE:
        for i in range(child.shape[0]):
            child[i] = parent[i] - take[i] + put[i]
    elif added_2 == NO_CHANGE:
        take_2 = _row(weights, perspective, removed_2)
        for i in range(child.shape[0]):
            child[i] = parent[i] - take[i] - take_2[i] + put[i]
    else:
        take_2 = _row(weights, perspective, removed_2)
        put_2 = _row(weights, perspective, added_2)
        for i in range(child.shape[0]):
            child[i] = parent[i] - take[i] - take_2[i] + put[i] + put_2[i]


@kernel(hot=True)
def _make_ready(weights, accumulators, stack, ply):
    """Bring the ``accumulators`` of ``ply`` up to date from the nearest ready ancestor's (``weights``: the
    network's first layer; the two arrays only, since a call copies every word of every argument)."""
    ready = ply
    while stack[ready + STACK_ROOT].nn_ready == 0:
        ready -= 1
    for p in range(ready + 1, ply + 1):
        record = stack[p + STACK_ROOT]
        for perspective in range(2):
            _update(
                weights,
                accumulators[p - 1, perspective],
                accumulators[p, perspective],
                perspective,
                record.nn_removed_1,
                record.nn_removed_2,
                record.nn_added_1,
                record.nn_added_2,
            )
        record.nn_ready = 1


@kernel(hot=True, inline=True)
def evaluate_network_at(network, stack, bbs, state, ply):
    """The network's score of the position at ``ply`` (``bbs``, ``state``) in centipawns for the side to
    move; its piece count picks the output bucket."""
    if stack[ply + STACK_ROOT].nn_ready == 0:
        _make_ready(network[0], network[9], stack, ply)
    side = state[L.SIDE_TO_MOVE]
    stack = network[9]
    return evaluate_accumulators(
        stack[ply, side],
        stack[ply, 1 - side],
        piece_count(bbs),
        network[2],
        network[3],
        network[4],
        network[5],
        network[6],
        network[7],
        network[8],
    )


@kernel(hot=True, inline=True)
def evaluate_at(ctx, ply):
    """The static evaluation at ``ply`` for the side to move (``ctx``: the search context): the network's if
    there is one, else the hand-written one from the material and piece-square score kept on the stack."""
    if network_hidden(ctx.network) > 0:
        return evaluate_network_at(ctx.network, ctx.stack, ctx.bbs, ctx.state, ply)
    record = ctx.stack[ply + STACK_ROOT]
    return evaluate_with_psq(ctx.bbs, ctx.state, ctx.tables, ctx.weights, record.psq_mg, record.psq_eg)


@kernel(hot=True, inline=True)
def static_eval_at(ctx, ply, entry):
    """The static evaluation at ``ply``: the one stored in the TT ``entry`` (:func:`jitfish.search.tt.tt_read`)
    if there is one, else computed."""
    if entry.found:
        return entry.eval
    return evaluate_at(ctx, ply)


@kernel(hot=True, inline=True)
def node_static_eval(ctx, ply, in_check, entry):
    """The static evaluation that the node at ``ply`` stands on (``NO_EVAL`` in check): :func:`static_eval_at`
    corrected by the correction history (:func:`jitfish.search.history.corrected_eval`).  The raw one goes to
    the node's stack record (``raw_eval``, 0 in check) for the TT, so that no correction is counted twice."""
    node = ctx.stack[ply + STACK_ROOT]
    if in_check:
        node.raw_eval = 0
        return NO_EVAL
    node.raw_eval = static_eval_at(ctx, ply, entry)
    return corrected_eval(ctx, ply, node.raw_eval)


@kernel(hot=True)
def prepare_root(network, stack, bbs):
    """Before a search: the root's accumulators from scratch, ready (nothing to do without a network)."""
    if network_hidden(network) > 0:
        accumulators = network[9]
        for perspective in range(2):
            refresh_accumulator(bbs, network[0], network[1], perspective, accumulators[0, perspective])
        stack[STACK_ROOT].nn_ready = 1


def no_network() -> KernelNetwork:
    """The placeholder that selects the hand-written evaluation: a network with no hidden neuron."""
    return KernelNetwork(
        np.zeros((2 * PIECE_TYPE_COUNT * 64, 0), dtype=np.int16),
        np.zeros(0, dtype=np.int16),
        np.zeros((1, 0), dtype=np.int16),
        np.zeros(1, dtype=np.int64),
        1,
        1,
        1,
        False,
        True,
    )


def network_arrays(net: KernelNetwork | None) -> tuple:
    """The ``network`` argument of the search kernels for one thread: ``net``'s fields (or
    :func:`no_network`'s) and a stack of accumulators of its own."""
    net = no_network() if net is None else net
    stack = np.zeros((STACK_PLIES, 2, net.hidden), dtype=ACCUMULATOR_DTYPE)
    return (
        net.weights,
        net.biases,
        net.output_weights,
        net.output_bias,
        np.int64(net.qa),
        np.int64(net.qb),
        np.int64(net.scale),
        np.bool_(net.screlu),
        np.bool_(net.narrow),
        stack,
    )
