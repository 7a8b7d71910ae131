"""More than two players, or not zero-sum: max^n, "everyone against me", and a random opponent.

With two players and a zero-sum game one number per leaf says everything:
what one player wins the other loses.  Otherwise each leaf carries a
*utility tuple*, one entry per player, and the natural extension of minimax
is *max^n* (Luckhardt and Irani, 1986): the player to move at a node picks
the child whose tuple is best *for itself*, and the node takes that tuple::

    >>> maxn_tree(THREE_PLAYER_TREE, 3).value
    (6, 4, 3)

Nobody is an enemy by definition any more: where one player's interest
coincides with another's they "cooperate" without agreeing to, where it
conflicts they compete, and alliances can form and break as the game goes.
"The 3+ player case is much less well understood": max^n assumes every
player pursues its own tuple entry, and nothing guarantees they do.

Two other models of the opponents turn the game back into one the previous
lessons can search:

* *paranoid* ("everyone against me"): the others are assumed to minimise my
  utility, as if they were one opponent.  That is two-player minimax on a
  tree whose leaves hold my entry alone (:func:`reduction`), so alpha-beta
  prunes it as usual; max^n can hardly be pruned at all.
* *random*: the others pick uniformly; their nodes become chance nodes, and
  the value is expectimax's.  Minimax is optimal against a perfect player;
  against one that is not, it may leave value on the table.

Trees are nested lists, as in :mod:`jitfish.teach.toytree`; a leaf is a
list of ``players`` numbers, the utilities of players A, B, C, ... in that
order, and the levels cycle A, B, C, A, ...  With two players a leaf may be
a single number ``u``, meaning the zero-sum tuple ``(u, -u)`` (see
:func:`build_players_tree`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from jitfish.teach.toytree import PLAYER_NAMES, Node, alphabeta_tree, minimax_value, trace_enter

if TYPE_CHECKING:
    from jitfish.teach.trace import Trace

# Three players (A, B, C), two moves each; worked out by hand in tests/teach/test_multiplayer.py.
# A's first move is safe against anything; its second pays only if B and C each follow their own interest.
THREE_PLAYER_TREE = [
    [[[3, 1, 2], [4, 2, 1]], [[3, 3, 3], [2, 2, 4]]],
    [[[6, 4, 3], [0, 2, 1]], [[1, 3, 5], [0, 7, 2]]],
]
# The three-player figure of Russell and Norvig's *AIMA* (section "optimal decisions in multiplayer games").
TEXTBOOK_THREE_PLAYER_TREE = [
    [[[1, 2, 6], [4, 2, 3]], [[6, 1, 2], [7, 4, 1]]],
    [[[5, 1, 1], [1, 5, 2]], [[7, 7, 1], [5, 4, 5]]],
]
# Two players, zero-sum: the textbook tree with one leaf changed (5 -> 15), so that against a random
# opponent the third move is worth more than minimax's choice, the first.
OPPONENT_TREE = [[3, 12, 8], [2, 4, 6], [14, 15, 2]]
MAX_PLAYERS = len(PLAYER_NAMES)
MODELS = {
    "max^n": "each for itself",
    "paranoid": "against {me}",
    "random": "uniformly random",
}


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_lists(nested):
    """Every list in ``nested`` whose items are all numbers (a leaf's utilities, or a node of number leaves)."""
    if isinstance(nested, (list, tuple)):
        if nested and all(_is_number(item) for item in nested):
            yield nested
        for item in nested:
            yield from _number_lists(item)


def build_players_tree(nested, players: int, player: int = 0, path: tuple[int, ...] = (), zero_sum=None) -> Node:
    """A :class:`Node` tree whose leaves hold utility tuples; ``player`` moves at the root.

    With two players the numbers are zero-sum leaves (a number ``u`` is
    ``(u, -u)``, every list a node, as in :mod:`jitfish.teach.toytree`)
    unless every list of numbers in the tree has two entries: then those are
    the leaves' utility pairs.  Raises ``ValueError`` naming the node at fault.
    """
    if not 2 <= players <= MAX_PLAYERS:
        raise ValueError(f"--players must be between 2 and {MAX_PLAYERS}, got {players}")
    if zero_sum is None:
        zero_sum = players == 2 and (_is_number(nested) or any(len(n) != 2 for n in _number_lists(nested)))
    where = f"at {list(path)}: "
    if _is_number(nested):
        if not zero_sum:
            raise ValueError(f"{where}a leaf of a {players}-player tree is a list of {players} utilities, got {nested}")
        return Node(player == 0, value=(nested, -nested), path=path, player=player)
    if not isinstance(nested, (list, tuple)) or not nested:
        raise ValueError(f"{where}a node is a list of subtrees or a leaf's {players} utilities, got {nested!r}")
    if not zero_sum and all(_is_number(item) for item in nested):
        if len(nested) != players:
            raise ValueError(f"{where}a leaf holds {players} utilities, one per player; got {list(nested)}")
        return Node(player == 0, value=tuple(nested), path=path, player=player)
    following = (player + 1) % players
    children = [build_players_tree(child, players, following, path + (i,), zero_sum) for i, child in enumerate(nested)]
    return Node(player == 0, children, path=path, player=player)


def _as_players_tree(tree, players: int) -> Node:
    return tree if isinstance(tree, Node) else build_players_tree(tree, players)


def maxn_tree(tree, players: int = 3, trace: Trace | None = None) -> Node:
    """max^n: every interior node takes the tuple of the child best for the player to move there.

    Ties go to the first such child.  The children chosen are marked
    ``chosen``; the root is returned, every node's ``value`` filled.  Given a
    ``trace``, every node entered and every tuple backed up is recorded.
    """
    root = _as_players_tree(tree, players)

    def search(node: Node) -> tuple:
        node.visited, node.chosen = True, False
        if trace is not None:
            trace_enter(trace, node)
        if node.is_leaf:
            if trace is not None:
                trace.add("value", path=list(node.path), value=list(node.value))
            return node.value
        values = [search(child) for child in node.children]
        best = max(range(len(values)), key=lambda i: (values[i][node.player], -i))
        node.children[best].chosen = True
        node.value = values[best]
        if trace is not None:
            trace.add(
                "backup", path=list(node.path), player=PLAYER_NAMES[node.player], chosen=best, value=list(node.value)
            )
        return node.value

    search(root)
    return root


def paranoid_value(tree, players: int = 3, me: int = 0) -> float:
    """The value for player ``me`` if all the others play to minimise it (computed on the tuples directly)."""
    node = _as_players_tree(tree, players)
    if node.is_leaf:
        return node.value[me]
    values = [paranoid_value(child, players, me) for child in node.children]
    return max(values) if node.player == me else min(values)


def reduction(tree, players: int = 3, me: int = 0, opponents: str = "paranoid") -> Node:
    """The two-player tree player ``me`` faces under a model of the others: leaves hold ``me``'s utility alone.

    ``me``'s nodes maximise.  With ``opponents="paranoid"`` the others' nodes
    minimise (a minimax tree: :func:`jitfish.teach.toytree.minimax_value` and
    :func:`~jitfish.teach.toytree.alphabeta_tree` search it); with
    ``"random"`` they become chance nodes with equally likely children
    (expectimax's tree).
    """
    if opponents not in ("paranoid", "random"):
        raise ValueError(f"opponents are 'paranoid' or 'random', got {opponents!r}")
    source = _as_players_tree(tree, players)

    def copy(node: Node) -> Node:
        mine = node.player == me
        if node.is_leaf:
            return Node(mine, value=node.value[me], path=node.path, label=node.label)
        children = [copy(child) for child in node.children]
        chance = not mine and opponents == "random"
        for child in children:
            if chance:
                child.probability, child.label = 1 / len(children), f"1/{len(children)}"
        return Node(mine, children, path=node.path, label=node.label, chance=chance)

    return copy(source)


@dataclass
class PlayersResult:
    """A tree searched under the three models: the root player's value of each of its moves, by model."""

    root: Node  # the max^n tree, values filled
    players: int
    me: int
    values: dict[str, list[float]]  # model -> the root player's value of each root move
    pruned_leaves: int  # alpha-beta on the paranoid reduction
    leaves: int
    trace: Trace | None = field(default=None, repr=False, compare=False)  # of max^n, when traced

    def _repr_html_(self) -> str | None:
        """In a notebook, the page of the traced search (none when the search was not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)

    def choice(self, model: str) -> int:
        """The root move (index) the root player picks assuming ``model`` (the first of equals)."""
        values = self.values[model]
        return values.index(max(values))

    @property
    def zero_sum(self) -> bool:
        return all(sum(leaf.value) == 0 for leaf in self.root.leaves())

    def text(self) -> str:
        names = PLAYER_NAMES[: self.players]
        me, others = names[self.me], " and ".join(n for n in names if n != names[self.me])
        play, minimise = ("play", "minimise") if self.players > 2 else ("plays", "minimises")
        kind = "zero-sum: max^n is minimax" if self.zero_sum else "not zero-sum"
        models = "; ".join(f"{model}: {meaning.format(me=me)}" for model, meaning in MODELS.items())
        cell = "{:>10.4g}"
        lines = [
            f"max^n, {self.players} players ({', '.join(names)}; {kind}), each maximising its own utility:",
            f"  value {_tuple(self.root.value)}; the line played: {_line(self.root)}",
            "  nodes: " + ", ".join(f"{list(n.path)} {_tuple(n.value)}" for n in self.root.walk() if not n.is_leaf),
            f"{me}'s value of each move if {others} {play} ({models}):",
            f"  {'move':>8}" + "".join(f"{model:>10}" for model in MODELS),
        ]
        for index in range(len(self.root.children)):
            lines.append(f"  {index + 1:>8}" + "".join(cell.format(self.values[m][index]) for m in MODELS))
        lines.append(f"  {'chosen':>8}" + "".join(f"{self.choice(m) + 1:>10}" for m in MODELS))
        lines.append(f"what {me} gets, by the model it assumes (rows) and the way {others} really {play} (columns):")
        lines.append(f"  {'assumes':>8}" + "".join(f"{model:>10}" for model in MODELS))
        for assumed in MODELS:
            move = self.choice(assumed)
            lines.append(f"  {assumed:>8}" + "".join(cell.format(self.values[actual][move]) for actual in MODELS))
        visited = self.leaves - self.pruned_leaves
        lines.append(
            f"paranoid is two-player minimax on the reduction ({me} maximises its utility, {others} {minimise} it): "
            f"value {max(self.values['paranoid']):g}; alpha-beta reads {visited} of its {self.leaves} leaves"
        )
        return "\n".join(lines)


def _tuple(value) -> str:
    return "(" + ", ".join(f"{v:g}" for v in value) + ")"


def _line(root: Node) -> str:
    moves, node = [], root
    while not node.is_leaf:
        index = next(i for i, child in enumerate(node.children) if child.chosen)
        moves.append(f"{PLAYER_NAMES[node.player]} {index + 1}")
        node = node.children[index]
    return ", ".join(moves)


def players_tree(tree, players: int = 3, trace: Trace | None = None) -> PlayersResult:
    """max^n, paranoid and random opponents on one tree, from the point of view of the root's player (A).

    A ``trace`` records the max^n search.
    """
    root = maxn_tree(tree, players, trace)
    if root.is_leaf:
        raise ValueError("the tree needs at least one move")
    me = 0
    paranoid = reduction(root, players, me, "paranoid")
    random = reduction(root, players, me, "random")
    searched = alphabeta_tree(paranoid)
    values = {
        "max^n": [child.value[me] for child in root.children],
        "paranoid": [minimax_value(child) for child in paranoid.children],
        "random": [minimax_value(child) for child in random.children],
    }
    result = PlayersResult(root, players, me, values, len(searched.pruned_leaves), len(root.leaves()), trace)
    if trace is not None:
        trace.summary = {
            "value": list(root.value),
            "nodes visited": sum(1 for _ in root.walk()),
            "leaves visited": result.leaves,
        }
    return result
