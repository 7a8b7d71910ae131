"""Games of chance on the blackboard: expectiminimax, and what a chance node does to pruning.

In backgammon a player's moves depend on a roll of the dice, so the game
tree has *chance nodes* between the players' nodes.  A chance node's value is
the expectation ``sum(P(r) * value(r))`` over its outcomes ``r``: that is
*expectiminimax*.  Its cost grows as ``O(b^m n^m)`` for ``n`` outcomes per
roll, and pruning is harder: the expectation of some outcomes says nothing
about the rest, unless the values are *bounded*.  If every utility lies in
``[low, high]``, a chance node whose first outcomes are known is worth at
most ``seen + rest * high``; when that is no better than what MAX already
has (alpha), the remaining outcomes need not be looked at (Ballard's Star1,
:func:`jitfish.teach.toytree._star1`).

A tree is given as nested lists, as in :mod:`jitfish.teach.toytree`, with a
chance level after every player's level (MAX, chance, MIN, chance, MAX...).
At a chance level each child is a pair ``[probability, subtree]``::

    >>> tree = build_chance_tree([[[0.5, [3, 1]], [0.5, [2, 3]]], [[0.5, [-2, 3]], [0.5, [3, 0]]]])
    >>> minimax_value(tree)
    1.5
"""

from __future__ import annotations

import copy
import math

from jitfish.teach.toytree import INFINITY, Node, ToyResult, alphabeta_tree, minimax_value

# A lecture-style example: MAX chooses one of three moves, a coin decides, MIN answers; utilities in [-3, 3].
CHANCE_TREE = [
    [[0.5, [3, 1]], [0.5, [2, 3]]],
    [[0.5, [-2, 3]], [0.5, [3, 0]]],
    [[0.5, [2, 1]], [0.5, [0, 3]]],
]
CHANCE_BOUNDS = (-3, 3)
# The textbook's warning (Russell and Norvig): with chance nodes, an order-preserving change of the leaf
# values (1, 2, 3, 4 -> 1, 20, 30, 400) changes the best move; only positive linear changes are safe.
ORDER_TREES = (
    [[[0.9, [2, 2]], [0.1, [3, 3]]], [[0.9, [1, 1]], [0.1, [4, 4]]]],
    [[[0.9, [20, 20]], [0.1, [30, 30]]], [[0.9, [1, 1]], [0.1, [400, 400]]]],
)
PROBABILITY_TOLERANCE = 1e-9


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def build_chance_tree(nested, maximizing: bool = True, path: tuple[int, ...] = ()) -> Node:
    """A :class:`Node` tree from nested lists, a chance level after each player's level.

    ``maximizing`` is the player at the root.  Raises ``ValueError`` naming
    the node at fault when a chance node's pairs are malformed or its
    probabilities do not sum to 1.
    """
    if _is_number(nested):
        return Node(maximizing, value=nested, path=path)
    if not isinstance(nested, (list, tuple)) or not nested:
        raise ValueError(f"at {list(path)}: a player's node is a number or a non-empty list, got {nested!r}")
    children = []
    for i, roll in enumerate(nested):
        here = path + (i,)
        if _is_number(roll):  # the game ends with this move: no roll follows
            children.append(Node(not maximizing, value=roll, path=here))
            continue
        if not isinstance(roll, (list, tuple)) or not roll:
            raise ValueError(f"at {list(here)}: a chance node is a non-empty list of [probability, subtree]")
        outcomes = []
        for j, pair in enumerate(roll):
            if not (isinstance(pair, (list, tuple)) and len(pair) == 2 and _is_number(pair[0]) and 0 < pair[0] <= 1):
                raise ValueError(
                    f"at {list(here + (j,))}: a chance node's child is [probability, subtree] "
                    f"with 0 < probability <= 1, got {pair!r}"
                )
            outcome = build_chance_tree(pair[1], not maximizing, here + (j,))
            outcome.probability = float(pair[0])
            outcomes.append(outcome)
        total = sum(outcome.probability for outcome in outcomes)
        if abs(total - 1) > PROBABILITY_TOLERANCE:
            raise ValueError(f"at {list(here)}: the probabilities of a chance node sum to {total:g}, not 1")
        children.append(Node(not maximizing, outcomes, path=here, chance=True))
    return Node(maximizing, children, path=path)


def leaf_bounds(root: Node) -> tuple[float, float]:
    """The smallest and largest leaf values."""
    values = [leaf.value for leaf in root.leaves()]
    return min(values), max(values)


def star1_tree(tree, bounds: tuple[float, float] | None = None, trace=None) -> ToyResult:
    """Alpha-beta with Star1 at the chance nodes, on a tree of :func:`build_chance_tree` (or its nested lists).

    ``bounds`` are (lowest, highest) utility; by default the leaves' own
    range.  Afterwards every node holds its exact expectiminimax ``value``
    (pruned ones too, for the picture), is marked ``visited`` or ``pruned``,
    and a chance node where the search cut holds the bound it used in
    ``note``.  The result's ``value`` is the search's own root value, which
    equals expectiminimax's.  A ``trace`` (:class:`jitfish.teach.trace.Trace`)
    records the search.
    """
    root = tree if isinstance(tree, Node) else build_chance_tree(tree)
    low, high = leaf_bounds(root) if bounds is None else bounds
    if not low <= high or math.isnan(low) or math.isnan(high):
        raise ValueError(f"bounds must be two numbers, lowest first; got {low}, {high}")
    outside = [leaf.value for leaf in root.leaves() if not low <= leaf.value <= high]
    if outside:
        raise ValueError(f"leaf values {outside} lie outside the bounds [{low:g}, {high:g}]")
    result = alphabeta_tree(root, (low, high), trace)
    for node in root.walk():
        node.value = minimax_value(node)
    return result


def unbounded_leaves_visited(tree) -> int:
    """Leaves the same search visits knowing no bounds: a chance node can then never be cut (searches a copy)."""
    root = copy.deepcopy(tree) if isinstance(tree, Node) else build_chance_tree(tree)
    return len(alphabeta_tree(root, (-INFINITY, INFINITY)).visited_leaves)


def describe(result: ToyResult, bounds: tuple[float, float]) -> str:
    """The values, the leaf counts with and without pruning, and the cut chance nodes, as text."""
    root = result.root
    leaves = root.leaves()
    lines = [
        f"expectiminimax value {minimax_value(root):g}; the root's moves are worth "
        + ", ".join(f"{child.value:g}" for child in root.children),
        f"leaves visited: expectiminimax {len(leaves)}, alpha-beta without bounds "
        f"{unbounded_leaves_visited(root)}, Star1 with utilities in [{bounds[0]:g}, {bounds[1]:g}] "
        f"{len(result.visited_leaves)} (value {result.value:g})",
        "chance nodes cut (path: what Star1 knew): "
        + (", ".join(f"{list(node.path)}: {node.note}" for node in root.walk() if node.chance and node.note) or "none"),
        "pruned leaves (path from the root: value): "
        + (", ".join(f"{list(leaf.path)}: {leaf.value:g}" for leaf in result.pruned_leaves) or "none"),
    ]
    return "\n".join(lines)
