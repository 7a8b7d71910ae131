"""Monte Carlo tree search (UCT) on a chess position, compiled: the tree, the playouts, the statistics.

One call of :func:`uct_search` runs every iteration of the search, each of
the four steps of the lecture notes in turn:

1. *selection*: from the root, follow the child with the best UCB1 score
   ``mean + c * sqrt(ln(parent visits) / child visits)`` while every move of
   the node already has a child;
2. *expansion*: add one child, for the next move (in generator order) that
   has none;
3. *simulation*: play random legal moves from it until the game ends (mate,
   stalemate, the fifty-move rule, bare kings) or ``playout_plies`` moves
   have been made, where the evaluation scores the position;
4. *backup*: add the outcome to every node on the path, from the point of
   view of the side that moved into it.

Outcomes are scores in [0, 1] (a win 1, a draw 1/2, a loss 0); an evaluation
of ``cp`` centipawns counts as the expected score ``1 / (1 + 10^(-cp / 400))``.
Inside the tree, as in the teaching searches, repetitions and the fifty-move
rule are ignored (a playout applies the fifty-move rule, or random games
would rarely end).

The tree lives in preallocated arrays, one row per node, children linked as
a list (``FIRST_CHILD``, ``NEXT_SIBLING``); at most one node is added per
iteration.  Random numbers come from a xorshift64* generator whose state is
the one-element array ``rng``: a seed gives the same search on every machine.

This module calls no kernel of another teaching file (only the engine's
board and evaluation, whose sources ``jitfish.runtime.jit`` digests), so Numba's own
per-file cache check is enough here; see the note on ``kernel_sources`` in
``jitfish/runtime/jit.py``.
"""

from __future__ import annotations

import math

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move, unmake_move
from jitfish.board.movegen import GEN_ALL, generate_moves, is_in_check
from jitfish.board.squares import BLACK, KING, WHITE
from jitfish.eval.evaluation import evaluate
from jitfish.runtime.jit import kernel

# One row of ``tree`` per node.
MOVE = 0  # the move from the parent (0 at the root)
FIRST_CHILD = 1  # -1 while the node has no child
NEXT_SIBLING = 2  # -1 for the last child
MOVE_COUNT = 3  # legal moves of the node's position; UNKNOWN until the node is first selected
EXPANDED = 4  # children made so far (they are the first EXPANDED moves in generator order)
VISITS = 5
NODE_FIELDS = 6
UNKNOWN = -1

# ``trace``: one row per iteration (see ``uct_search``).
TRACE_NODE, TRACE_EXPANDED, TRACE_SCORE = 0, 1, 2
TRACE_FIELDS = 3

# ``counters``
NODES = 0  # positions visited: every move made, in the tree or in a playout
TREE_SIZE = 1  # nodes of the tree
COUNTERS_SIZE = 2

# Scores.
WIN, DRAW, LOSS = 1.0, 0.5, 0.0
EVAL_SCALE = 400.0  # centipawns for a factor of 10 in the odds of winning (the Elo scale)
FIFTY_MOVE_PLIES = 100
MAX_PATH = 256  # deepest line of the tree (a tree this deep needs far more iterations than any lesson)
XORSHIFT_MULTIPLIER = np.uint64(0x2545F4914F6CDD1D)


@kernel
def _random_index(rng, count):
    """A uniform integer in [0, count): one step of xorshift64*, its high bits scaled to the range."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return np.int64(((x * XORSHIFT_MULTIPLIER) >> np.uint64(33)) % np.uint64(count))


@kernel
def expected_score(centipawns):
    """The evaluation as an expected score in [0, 1] for the side it is given for."""
    return 1.0 / (1.0 + 10.0 ** (-centipawns / EVAL_SCALE))


@kernel
def _only_kings(bbs):
    return bbs[L.OCCUPIED] == (bbs[WHITE * 6 + KING] | bbs[BLACK * 6 + KING])


@kernel
def _game_over_score(bbs, state, tables):
    """The score of a position without legal moves, for its side to move: mated (a loss) or stalemate."""
    return LOSS if is_in_check(bbs, state, tables) else DRAW


@kernel
def playout(bbs, state, undo, key_history, tables, weights, moves, rng, playout_plies, counters):
    """Random legal moves until the game ends or ``playout_plies`` are made; the score for the side to move now.

    The position is restored before returning.  With ``playout_plies`` 0
    this is the evaluation alone.
    """
    plies = 0
    while True:
        count = generate_moves(bbs, state, tables, moves, 0, np.int64(GEN_ALL))
        if count == 0:
            score = _game_over_score(bbs, state, tables)
            break
        if state[L.HALFMOVE_CLOCK] >= FIFTY_MOVE_PLIES or _only_kings(bbs):
            score = DRAW
            break
        if plies == playout_plies:
            score = expected_score(evaluate(bbs, state, tables, weights))
            break
        make_move(bbs, state, undo, key_history, tables, np.int64(moves[_random_index(rng, count)]))
        counters[NODES] += 1
        plies += 1
    for _ in range(plies):
        unmake_move(bbs, state, undo, key_history, tables)
    # The score is for the side to move at the end; an odd number of plies turns it round.
    return score if plies % 2 == 0 else 1.0 - score


@kernel
def _best_child(tree, rewards, node, exploration):
    """The child with the highest UCB1 score (every child has been visited); the first of equals."""
    log_parent = math.log(tree[node, VISITS])
    best, best_score = -1, -1.0
    child = tree[node, FIRST_CHILD]
    while child != -1:
        visits = tree[child, VISITS]
        score = rewards[child] / visits + exploration * math.sqrt(log_parent / visits)
        if score > best_score:
            best, best_score = child, score
        child = tree[child, NEXT_SIBLING]
    return best


@kernel
def _add_child(tree, rewards, node, move, counters):
    """A new node for ``move`` below ``node``, appended to its children; its index."""
    child = counters[TREE_SIZE]
    counters[TREE_SIZE] += 1
    tree[child, MOVE] = move
    tree[child, FIRST_CHILD] = -1
    tree[child, NEXT_SIBLING] = -1
    tree[child, MOVE_COUNT] = UNKNOWN
    tree[child, EXPANDED] = 0
    tree[child, VISITS] = 0
    rewards[child] = 0.0
    if tree[node, FIRST_CHILD] == -1:
        tree[node, FIRST_CHILD] = child
    else:
        last = tree[node, FIRST_CHILD]
        while tree[last, NEXT_SIBLING] != -1:
            last = tree[last, NEXT_SIBLING]
        tree[last, NEXT_SIBLING] = child
    tree[node, EXPANDED] += 1
    return child


@kernel
def uct_search(
    bbs,
    state,
    undo,
    key_history,
    tables,
    weights,
    moves,
    tree,
    rewards,
    path,
    rng,
    iterations,
    exploration,
    playout_plies,
    checkpoints,
    root_visits,
    root_rewards,
    checkpoint_nodes,
    counters,
    trace,
):
    """Run ``iterations`` UCT iterations from the position; snapshot the root's children at ``checkpoints``.

    ``tree`` (``iterations + 1`` rows of ``NODE_FIELDS``) and ``rewards``
    (the sum of the outcomes backed up through each node, for the side that
    moved into it) start empty: the root is made here.  At each iteration
    count in ``checkpoints`` (ascending), row ``k`` of ``root_visits`` and
    ``root_rewards`` receives the visits and reward sums of the root's
    children in generator order, and ``checkpoint_nodes[k]`` the positions
    visited so far.  The position is restored before returning.

    ``trace`` records each iteration when it has a row for every one (else
    nothing): row ``iteration - 1`` holds the node the selection ended at
    (``TRACE_NODE``: the new node, or one where the game is over), whether
    it was added by this iteration's expansion (``TRACE_EXPANDED``), and the
    playout's outcome for the side to move there (``TRACE_SCORE``).  With the
    tree (``MOVE``, ``FIRST_CHILD``, ``NEXT_SIBLING``) that is the whole
    iteration: the path is the node's ancestors, the backup follows from the
    outcome.
    """
    tracing = trace.shape[0] >= iterations
    counters[NODES] = 0
    counters[TREE_SIZE] = 1
    tree[0, MOVE] = 0
    tree[0, FIRST_CHILD] = -1
    tree[0, NEXT_SIBLING] = -1
    tree[0, MOVE_COUNT] = UNKNOWN
    tree[0, EXPANDED] = 0
    tree[0, VISITS] = 0
    rewards[0] = 0.0
    next_checkpoint = 0
    for iteration in range(1, iterations + 1):
        node = 0
        depth = 0
        path[0] = 0
        expanded = False
        # 1. Selection: descend through nodes all of whose moves have children.
        while True:
            if tree[node, MOVE_COUNT] == UNKNOWN:
                tree[node, MOVE_COUNT] = generate_moves(bbs, state, tables, moves, 0, np.int64(GEN_ALL))
            if tree[node, MOVE_COUNT] == 0 or depth == MAX_PATH - 1:
                break  # the game is over here: nothing to expand
            if tree[node, EXPANDED] < tree[node, MOVE_COUNT]:
                # 2. Expansion: a child for the next move without one.
                generate_moves(bbs, state, tables, moves, 0, np.int64(GEN_ALL))
                move = np.int64(moves[tree[node, EXPANDED]])
                node = _add_child(tree, rewards, node, move, counters)
                make_move(bbs, state, undo, key_history, tables, move)
                counters[NODES] += 1
                depth += 1
                path[depth] = node
                expanded = True
                break
            node = _best_child(tree, rewards, node, exploration)
            make_move(bbs, state, undo, key_history, tables, tree[node, MOVE])
            counters[NODES] += 1
            depth += 1
            path[depth] = node
        # 3. Simulation: the outcome for the side to move at the new node.
        score = playout(bbs, state, undo, key_history, tables, weights, moves, rng, playout_plies, counters)
        if tracing:
            trace[iteration - 1, TRACE_NODE] = node
            trace[iteration - 1, TRACE_EXPANDED] = 1.0 if expanded else 0.0
            trace[iteration - 1, TRACE_SCORE] = score
        # 4. Backup: each node collects the outcome for the side that moved into it.
        for level in range(depth, -1, -1):
            visited = path[level]
            tree[visited, VISITS] += 1
            rewards[visited] += 1.0 - score
            score = 1.0 - score
            if level > 0:
                unmake_move(bbs, state, undo, key_history, tables)
        # Snapshot the root's children.
        while next_checkpoint < len(checkpoints) and checkpoints[next_checkpoint] == iteration:
            child = tree[0, FIRST_CHILD]
            index = 0
            while child != -1:
                root_visits[next_checkpoint, index] = tree[child, VISITS]
                root_rewards[next_checkpoint, index] = rewards[child]
                child = tree[child, NEXT_SIBLING]
                index += 1
            checkpoint_nodes[next_checkpoint] = counters[NODES]
            next_checkpoint += 1
