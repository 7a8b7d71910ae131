"""Small game trees for the blackboard: minimax and alpha-beta by hand, with the pruned branches marked.

A tree is given as nested lists whose numbers are the leaf values, from the
point of view of the root player (MAX); the levels alternate MAX, MIN, MAX...
The textbook example (Russell and Norvig, *AIMA*, figure "alpha-beta")::

    >>> result = alphabeta_tree(TEXTBOOK_TREE)
    >>> result.value
    3
    >>> [leaf.value for leaf in result.pruned_leaves]
    [4, 6]

:func:`tree_from_position` builds such a tree from a chess position (the
first few moves of each side, leaves scored by Jitfish's evaluation), and
:func:`draw_tree` draws any searched tree with matplotlib.

Everything here is plain Python: the trees are tiny, and the point is to read
the search, not to time it.  Nothing here imports Numba.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.teach.trace import Trace

TEXTBOOK_TREE = [[3, 12, 8], [2, 4, 6], [14, 5, 2]]
INFINITY = float("inf")
AT_MOST, AT_LEAST = "\u2264", "\u2265"


@dataclass
class Node:
    """A node of a toy tree; the search fills in ``value``, ``window``, ``visited`` and ``pruned``.

    A chance node (``chance``, see :mod:`jitfish.teach.chance`) is a roll of
    the dice: its children carry their ``probability``, and ``maximizing``
    says whose move follows the roll.
    """

    maximizing: bool
    children: list[Node] = field(default_factory=list)
    value: float | tuple | None = None  # given for leaves, computed for interior nodes (a tuple: see ``player``)
    label: str = ""  # the move leading here (position trees), else ""
    path: tuple[int, ...] = ()  # child indices from the root
    window: tuple[float, float] | None = None  # (alpha, beta) when alpha-beta entered the node
    visited: bool = False
    pruned: bool = False  # in a subtree alpha-beta cut off
    chance: bool = False
    probability: float | None = None  # of this outcome, when the parent is a chance node
    note: str = ""  # drawn beneath the node (a chance node's bound, say)
    player: int | None = None  # whose move, in a game of several players (values are then utility tuples)
    chosen: bool = False  # the child its player picks (max^n)
    fen: str = ""  # the position, in a tree of chess positions (:func:`tree_from_position`)

    @property
    def is_leaf(self) -> bool:
        return not self.children

    def walk(self):
        """This node and all below it, depth first, left to right."""
        yield self
        for child in self.children:
            yield from child.walk()

    def leaves(self) -> list[Node]:
        return [node for node in self.walk() if node.is_leaf]


def build_tree(nested, maximizing: bool = True, path: tuple[int, ...] = ()) -> Node:
    """A :class:`Node` tree from nested lists of numbers (a number is a leaf)."""
    if isinstance(nested, (int, float)) and not isinstance(nested, bool):
        return Node(maximizing, value=nested, path=path)
    if not isinstance(nested, (list, tuple)) or not nested:
        raise ValueError(f"a toy tree is a number or a non-empty list of toy trees, got {nested!r}")
    children = [build_tree(child, not maximizing, path + (i,)) for i, child in enumerate(nested)]
    return Node(maximizing, children, path=path)


def _as_tree(tree) -> Node:
    return tree if isinstance(tree, Node) else build_tree(tree)


def minimax_value(tree) -> float:
    """The minimax value: MAX takes the largest child value, MIN the smallest.

    A chance node takes the mean of its children's values weighted by their
    probabilities, which makes this *expectiminimax*.
    """
    node = _as_tree(tree)
    if node.is_leaf:
        return node.value
    values = [minimax_value(child) for child in node.children]
    if node.chance:
        return sum(child.probability * value for child, value in zip(node.children, values))
    return max(values) if node.maximizing else min(values)


@dataclass
class ToyResult:
    value: float
    root: Node
    trace: Trace | None = field(default=None, repr=False, compare=False)  # when the search was traced

    @property
    def visited_leaves(self) -> list[Node]:
        return [leaf for leaf in self.root.leaves() if leaf.visited]

    @property
    def pruned_leaves(self) -> list[Node]:
        return [leaf for leaf in self.root.leaves() if leaf.pruned]

    def _repr_html_(self) -> str | None:
        """In a notebook, the page of the traced search (none when the search was not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)


def alphabeta_tree(tree, bounds: tuple[float, float] = (-INFINITY, INFINITY), trace: Trace | None = None) -> ToyResult:
    """Alpha-beta over a toy tree, left to right; every node learns whether it was visited or pruned.

    ``bounds`` (lowest, highest) are what every leaf value is known to lie
    within.  Plain minimax trees need none; at chance nodes they are what
    lets the search cut (see :func:`_star1`).  Given a ``trace``
    (:class:`jitfish.teach.trace.Trace`), the search records in it every node
    it enters with its window, every value returned and every cut-off.
    """
    root = build_tree(tree) if not isinstance(tree, Node) else tree
    for node in root.walk():
        node.visited = node.pruned = False
        node.window = None
        node.note = ""
        if not node.is_leaf:
            node.value = None
    value = _alphabeta(root, -INFINITY, INFINITY, *bounds, trace)
    result = ToyResult(value, root, trace)
    if trace is not None:
        trace.summary = {
            "value": value,
            "nodes visited": sum(1 for node in root.walk() if node.visited),
            "leaves visited": len(result.visited_leaves),
            "leaves pruned": len(result.pruned_leaves),
            "leaves in the tree": len(root.leaves()),
        }
    return result


def describe_tree(result: ToyResult) -> str:
    """What ``jitfish teach tree`` prints: the values, the leaves visited, the leaves pruned."""
    pruned = ", ".join(f"{list(leaf.path)}: {leaf.value:g}" for leaf in result.pruned_leaves) or "none"
    return (
        f"minimax value {minimax_value(result.root):g}, alpha-beta value {result.value:g}\n"
        f"leaves visited: {len(result.visited_leaves)} of {len(result.root.leaves())}\n"
        f"pruned leaves (path from the root: value): {pruned}"
    )


def _role(node: Node) -> str:
    if node.player is not None:
        return PLAYER_NAMES[node.player]
    return "chance" if node.chance else "max" if node.maximizing else "min"


def trace_enter(trace: Trace, node: Node, window: tuple[float, float] | None = None) -> None:
    """Record entering ``node`` (with the window it is searched with, if any)."""
    from jitfish.teach.trace import bound

    event: dict = {"path": list(node.path), "label": node.label, "leaf": node.is_leaf, "role": _role(node)}
    if window is not None:
        event["window"] = [bound(window[0]), bound(window[1])]
    if node.probability is not None:
        event["probability"] = node.probability
    if node.fen:
        event["fen"] = node.fen
    trace.add("enter", **event)


def _trace_value(trace: Trace, node: Node, value, note: str = "") -> None:
    from jitfish.teach.trace import bound

    shown = [bound(v) for v in value] if isinstance(value, tuple) else bound(value)
    trace.add("value", path=list(node.path), value=shown, **({"note": note} if note else {}))


def _prune_after(node: Node, index: int, trace: Trace | None = None, window=(-INFINITY, INFINITY)) -> None:
    """Mark the children after ``index`` (and all below them) as pruned, and record the cut-off."""
    spared = []
    for skipped in node.children[index + 1 :]:
        below = list(skipped.walk())
        for other in below:
            other.pruned = True
        spared.append(
            {
                "path": list(skipped.path),
                "label": skipped.label,
                "nodes": len(below),
                "leaves": sum(1 for other in below if other.is_leaf),
            }
        )
    if trace is not None and spared:
        from jitfish.teach.trace import bound

        trace.add(
            "cutoff", path=list(node.path), after=index, window=[bound(window[0]), bound(window[1])], spared=spared
        )


def _alphabeta(node: Node, alpha: float, beta: float, low: float, high: float, trace: Trace | None = None) -> float:
    # 1. Record the visit and the window (alpha, beta) the node is searched with.
    node.visited = True
    node.window = (alpha, beta)
    if trace is not None:
        trace_enter(trace, node, (alpha, beta))
    if node.is_leaf:
        if trace is not None:
            _trace_value(trace, node, node.value)
        return node.value
    if node.chance:
        node.value = _star1(node, alpha, beta, low, high, trace)
        if trace is not None:
            _trace_value(trace, node, node.value, node.note)
        return node.value
    # 2. MAX raises alpha, MIN lowers beta; once alpha >= beta the other player
    #    already has a better choice higher up, so the remaining children cannot matter.
    best = -INFINITY if node.maximizing else INFINITY
    for i, child in enumerate(node.children):
        value = _alphabeta(child, alpha, beta, low, high, trace)
        if node.maximizing:
            best = max(best, value)
            alpha = max(alpha, best)
        else:
            best = min(best, value)
            beta = min(beta, best)
        if alpha >= beta:
            # 3. Cut-off: mark the children not searched (and all below them) as pruned.
            _prune_after(node, i, trace, (alpha, beta))
            break
    node.value = best
    if trace is not None:
        _trace_value(trace, node, best)
    return best


def _star1(node: Node, alpha: float, beta: float, low: float, high: float, trace: Trace | None = None) -> float:
    """A chance node searched with Ballard's Star1: cut once the children seen settle the comparison.

    With every value in [low, high], after the children searched so far
    (their probability-weighted sum ``seen``) the node's value lies between
    ``seen + rest * low`` and ``seen + rest * high``, where ``rest`` is the
    probability of the children not yet searched.  If the upper end is at
    most alpha, or the lower end at least beta, the rest cannot matter.  Each
    child is searched with the window in which its value would still leave
    the question open, so the cut-offs reach into the children's subtrees.
    Returned at a cut: the bound (upper or lower), written in ``node.note``.
    """
    seen = 0.0
    for i, child in enumerate(node.children):
        p = child.probability
        rest = sum(later.probability for later in node.children[i + 1 :])
        # 1. The child's values at or below which the node fails low, and at or above which it fails high.
        at_most = rest * high if rest else 0.0  # (0 * infinity would be NaN)
        at_least = rest * low if rest else 0.0
        fails_low = (alpha - seen - at_most) / p
        fails_high = (beta - seen - at_least) / p
        value = _alphabeta(child, max(fails_low, low), min(fails_high, high), low, high, trace)
        seen += p * value
        # 2. Cut: the children not searched cannot bring the node back inside (alpha, beta).
        if value <= fails_low or value >= fails_high:
            _prune_after(node, i, trace, (alpha, beta))
            bound = seen + (at_most if value <= fails_low else at_least)
            node.note = f"{AT_MOST if value <= fails_low else AT_LEAST} {bound:g}"
            return bound
    return seen


def tree_from_position(position, depth: int = 2, width: int = 3) -> Node:
    """A toy tree from a chess position: ``width`` moves per node (captures first), ``depth`` plies.

    Leaves hold Jitfish's static evaluation from the point of view of the
    side to move at the root (MAX); a mate scores +-100000, a stalemate 0.
    The tree is a sample of the game tree, small enough to draw, not all of it.
    """
    import chess

    from jitfish.board.board import Board
    from jitfish.eval import evaluate

    if not 1 <= depth <= 4 or not 1 <= width <= 6:
        raise ValueError("a position tree takes depth 1-4 and width 1-6, so that it stays drawable")
    board = position.to_chess() if isinstance(position, Board) else chess.Board(position)
    root_turn = board.turn

    def expand(node: Node, plies_left: int) -> None:
        moves = sorted(board.legal_moves, key=lambda m: not board.is_capture(m))[:width]
        if plies_left == 0 or not moves:
            if board.is_checkmate():
                node.value = -100000 if board.turn == root_turn else 100000
            elif not moves:
                node.value = 0
            else:
                score = evaluate(Board(board.fen()))
                node.value = score if board.turn == root_turn else -score
            return
        for i, move in enumerate(moves):
            child = Node(not node.maximizing, label=board.san(move), path=node.path + (i,))
            board.push(move)
            child.fen = board.fen()
            expand(child, plies_left - 1)
            board.pop()
            node.children.append(child)

    root = Node(True, fen=board.fen())
    expand(root, depth)
    return root


def _layout(root: Node) -> dict[tuple[int, ...], tuple[float, float]]:
    """x, y of every node: leaves evenly spaced, a parent centred over its children."""
    places: dict[tuple[int, ...], tuple[float, float]] = {}
    next_leaf = [0]

    def place(node: Node, level: int) -> float:
        if node.is_leaf:
            x = float(next_leaf[0])
            next_leaf[0] += 1
        else:
            xs = [place(child, level + 1) for child in node.children]
            x = (xs[0] + xs[-1]) / 2
        places[node.path] = (x, -level)
        return x

    place(root, 0)
    return places


def _show(value: float | tuple | None) -> str:
    if value is None:
        return "?"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if value == INFINITY:
        return "+\u221e"
    if value == -INFINITY:
        return "-\u221e"
    return f"{value:.4g}"


PLAYER_NAMES = "ABCDEF"  # players of a game of several, in the order they move
PLAYER_COLOURS = ("#cfe3ff", "#ffd9cc", "#d6f5d6", "#f0dcff", "#fff2b3", "#e0e0e0")


def _marker(node: Node) -> tuple[str, str]:
    """The marker and face colour of a node: leaf square, MAX up-triangle, MIN down-triangle, chance circle.

    In a game of several players, a colour per player (a leaf white).
    """
    if node.player is not None:
        return "s", "white" if node.is_leaf else PLAYER_COLOURS[node.player % len(PLAYER_COLOURS)]
    if node.is_leaf:
        return "s", "white"
    if node.chance:
        return "o", "#fff2b3"
    return ("^", "#cfe3ff") if node.maximizing else ("v", "#ffd9cc")


def draw_tree(result: ToyResult | Node, path: str | None = None, title: str | None = None):
    """Draw a searched tree: MAX as up-triangles, MIN as down-triangles, pruned branches grey and cut in red.

    Chance nodes are circles, with each outcome's probability on its edge
    and, beneath, the bound a cut-off rested on (``note``).  Visited interior
    nodes show their value and the window ``[alpha, beta]`` they were
    searched with.  Saves to ``path`` (PNG or SVG by extension) when given;
    returns the matplotlib figure.
    """
    from jitfish.runtime.extras import require

    matplotlib = require("matplotlib", "drawing a tree")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = result.root if isinstance(result, ToyResult) else result
    places = _layout(root)
    leaves = len(root.leaves())
    levels = 1 - min(y for _, y in places.values())
    first = root.leaves()[0].value
    spacing = 0.75 if not isinstance(first, tuple) else max(0.9, 0.22 * len(first) + 0.25)  # a tuple needs room
    figure, axes = plt.subplots(figsize=(max(6.0, spacing * leaves), 1.6 * levels + 0.8))
    for node in root.walk():
        x, y = places[node.path]
        for child in node.children:
            cx, cy = places[child.path]
            style = dict(color="0.75", linestyle="--") if child.pruned else dict(color="black")
            if child.chosen:  # the move its player picks (max^n)
                style = dict(color="black", linewidth=3)
            axes.plot([x, cx], [y, cy], zorder=1, **style)
            if child.pruned and not node.pruned:  # the branch where the cut-off happened
                mx, my = (x + cx) / 2, (y + cy) / 2
                axes.plot([mx - 0.15, mx + 0.15], [my - 0.08, my + 0.08], color="red", linewidth=3, zorder=3)
            label = child.label or ("" if child.probability is None else f"{child.probability:g}")
            if label:
                axes.text(
                    (x + cx) / 2,
                    (y + cy) / 2,
                    label,
                    fontsize=8,
                    ha="right",
                    va="bottom",
                    color="0.4" if child.pruned else "navy",
                )
        marker, face = _marker(node)
        face = "0.92" if node.pruned else face
        box = None
        if isinstance(node.value, tuple):  # utilities of several players: a box wide enough for the tuple
            box = dict(boxstyle="round,pad=0.35", facecolor=face, edgecolor="black")
        else:
            axes.scatter(
                [x], [y], s=1000, marker=marker, facecolor=face, edgecolor="0.7" if node.pruned else "black", zorder=2
            )
        axes.text(
            x,
            y,
            _show(node.value),
            ha="center",
            va="center",
            fontsize=8,
            color="0.6" if node.pruned else "black",
            zorder=4,
            bbox=box,
        )
        if node.player is not None and not node.is_leaf:
            axes.text(x, y + 0.22, PLAYER_NAMES[node.player], ha="center", va="bottom", fontsize=9, weight="bold")
        if node.note:
            axes.text(x, y - 0.3, node.note, ha="center", va="top", fontsize=8, color="darkred", zorder=5)
        if node.window is not None and not node.is_leaf:
            axes.text(
                x + 0.22,
                y + 0.05,
                f"[{_show(node.window[0])}, {_show(node.window[1])}]",
                ha="left",
                va="bottom",
                fontsize=7,
                color="0.3",
                zorder=5,
                bbox=dict(facecolor="white", edgecolor="none", pad=0.5),
            )
    axes.set_axis_off()
    axes.set_xlim(-0.7, leaves - 0.3)
    axes.set_ylim(-levels + 0.4, 0.5)
    value = root.value
    axes.set_title(
        title
        or f"alpha-beta: value {_show(value)}, "
        f"{sum(1 for leaf in root.leaves() if leaf.pruned)} of {leaves} leaves pruned (grey)"
    )
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=90)
        plt.close(figure)
    return figure
