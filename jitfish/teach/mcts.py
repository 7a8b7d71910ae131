"""Monte Carlo tree search: value a move by the average outcome of games simulated after it.

Alpha-beta needs an evaluation it can trust at the leaves; Monte Carlo tree
search (MCTS) needs only the rules.  It grows a tree from the root, one node
per iteration, choosing where to grow by UCB1 (the UCT rule): the mean score
of a child plus ``c * sqrt(ln(parent visits) / child visits)``, so that
moves that did well are tried again (exploitation) and rarely tried ones are
not forgotten (exploration, weighted by the constant ``c``).  From the new
node it *simulates* the rest of the game, and backs the outcome up the path.
The move finally played is the root's most visited.

Two simulation policies (``POLICIES``):

* ``random``: uniform random moves until the game ends, or a ply cap where
  the evaluation scores the position.  This is MCTS as it began in Go.  In
  chess random games mostly end in draws by the fifty-move rule, and a
  random defender finds the refutation of a sacrifice no more often than
  any other move, so the averages mislead it in sharp positions.
* ``eval``: a few random plies, then the evaluation ("combine MCTS with
  evaluation heuristics"): the averages of a heuristic instead of game
  results, which is how MCTS plays chess at all.

:func:`mcts` runs UCT on a chess position (the compiled
:mod:`jitfish.teach.mcts_kernels`, with the engine's move generator) and
puts beside it the move that alpha-beta chooses having visited no more
positions.  :func:`uct_tree` runs the same four steps, in plain Python, on a
small game tree of :mod:`jitfish.teach.toytree`, where minimax's answer is
known by hand.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.teach.positions import read_positions
from jitfish.teach.toytree import Node, build_tree, minimax_value
from jitfish.types import INF, MATE, MATE_BOUND

UCB1_EXPLORATION = math.sqrt(2)  # UCB1's constant for scores in [0, 1] (Auer et al.)
DEFAULT_SEED = 1
MAX_ITERATIONS = 1_000_000  # the tree holds a node per iteration: 56 bytes each
MAX_ALPHABETA_DEPTH = 12
POSITIONS_FILE = Path(__file__).resolve().parent / "data" / "mcts.epd"


@dataclass(frozen=True)
class Policy:
    name: str
    playout_plies: int  # the default cap: random moves, then the evaluation
    exploration: float  # the default UCB1 constant
    description: str


POLICIES = {
    "random": Policy(
        "random",
        300,
        math.sqrt(2),
        "uniform random playouts to the end of the game, or {plies} plies then the evaluation",
    ),
    "eval": Policy("eval", 2, 0.7, "{plies} random plies, then the evaluation"),
}


def checkpoint_schedule(iterations: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... below ``iterations``, and ``iterations`` itself: where the root is reported."""
    points, scale = [], 1
    while True:
        for step in (1, 2, 5):
            if step * scale >= iterations:
                return points + [iterations]
            points.append(step * scale)
        scale *= 10


def _seed_state(seed: int) -> np.ndarray:
    """The generator's state for ``seed``: one SplitMix64 step, so that nearby seeds start far apart (never 0)."""
    mask = (1 << 64) - 1
    x = (seed * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & mask
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
    x ^= x >> 31
    return np.array([x or 1], dtype=np.uint64)


@dataclass
class AlphaBetaIteration:
    """One iteration of the alpha-beta comparison: its depth, the positions visited so far, value and move."""

    depth: int
    nodes: int
    value: int
    best_move: str


@dataclass
class MctsReport:
    """UCT's root statistics at each checkpoint, and alpha-beta's choices at the same numbers of positions."""

    fen: str
    policy: str
    playout_plies: int
    exploration: float
    seed: int
    moves: list[str]  # the root's moves, UCI, in generator order (the columns below)
    san: list[str]
    checkpoints: list[int]  # iterations
    nodes: list[int]  # positions MCTS visited by each checkpoint
    visits: np.ndarray  # [checkpoint, move]
    rewards: np.ndarray  # [checkpoint, move]: sums of the outcomes, for the side to move at the root
    alphabeta: list[AlphaBetaIteration] = field(default_factory=list)
    choice_value: int | None = None  # alpha-beta's value of MCTS's final choice, at the depth it reached
    trace: Any = field(default=None, repr=False, compare=False)  # a jitfish.teach.trace.Trace, when traced

    def _repr_html_(self) -> str | None:
        """In a notebook, the page of the traced search (none when the search was not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)

    @property
    def iterations(self) -> int:
        return self.checkpoints[-1]

    def shares(self, checkpoint: int = -1) -> np.ndarray:
        """Each root move's share of the root's visits at a checkpoint (index into ``checkpoints``)."""
        visits = self.visits[checkpoint]
        return visits / max(1, visits.sum())

    def means(self, checkpoint: int = -1) -> np.ndarray:
        """Each root move's mean outcome (expected score in [0, 1]) at a checkpoint; NaN where not yet visited."""
        visits = self.visits[checkpoint]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(visits > 0, self.rewards[checkpoint] / np.maximum(visits, 1), np.nan)

    def ranking(self, checkpoint: int = -1) -> list[int]:
        """Root move indices by visits, then mean, best first."""
        visits, means = self.visits[checkpoint], np.nan_to_num(self.means(checkpoint), nan=-1.0)
        return sorted(range(len(self.moves)), key=lambda i: (-visits[i], -means[i], i))

    def choice(self, checkpoint: int = -1) -> str:
        """The move MCTS plays at a checkpoint: the most visited (UCI)."""
        return self.moves[self.ranking(checkpoint)[0]]

    @property
    def best_move(self) -> str:
        return self.choice(-1)

    def alphabeta_at(self, nodes: int) -> AlphaBetaIteration | None:
        """The deepest alpha-beta iteration that visited at most ``nodes`` positions in all."""
        within = [iteration for iteration in self.alphabeta if iteration.nodes <= nodes]
        return within[-1] if within else None

    @property
    def alphabeta_choice(self) -> AlphaBetaIteration | None:
        return self.alphabeta_at(self.nodes[-1])

    @property
    def choice_loss(self) -> int | None:
        """Centipawns MCTS's choice gives away by alpha-beta's reckoning (0 when they agree)."""
        best = self.alphabeta_choice
        if best is None or self.choice_value is None:
            return None
        return best.value - self.choice_value

    def san_of(self, uci: str) -> str:
        return self.san[self.moves.index(uci)]

    def text(self, top: int = 3) -> str:
        from jitfish.teach.report import format_value

        plies = POLICIES[self.policy].description.format(plies=self.playout_plies)
        width = 24 * top - 2
        lines = [
            f"Position: {self.fen}",
            f"UCT, policy {self.policy} ({plies}), exploration {self.exploration:.2f}, seed {self.seed}",
            "",
            f"{'iterations':>10} {'positions':>11}  {'most visited: move, share (mean score)':<{width}}  "
            f"alpha-beta with as many positions",
        ]
        for k, iterations in enumerate(self.checkpoints):
            shares, means = self.shares(k), self.means(k)
            cells = "  ".join(
                f"{self.san[i]:<7} {shares[i]:4.0%} {_mean_text(means[i]):<8}" for i in self.ranking(k)[:top]
            )
            reference = self.alphabeta_at(self.nodes[k])
            versus = (
                "-"
                if reference is None
                else f"depth {reference.depth}: {self.san_of(reference.best_move)} ({format_value(reference.value)})"
            )
            lines.append(f"{iterations:>10,} {self.nodes[k]:>11,}  {cells:<{width}}  {versus}")
        lines += [
            "",
            f"MCTS plays {self.san_of(self.best_move)} after {self.iterations:,} iterations "
            f"({self.nodes[-1]:,} positions).",
        ]
        reference = self.alphabeta_choice
        if reference is not None:
            same = reference.best_move == self.best_move
            loss = (
                ""
                if same or max(abs(reference.value), abs(self.choice_value)) >= MATE_BOUND
                else f", {self.choice_loss} cp less"
            )
            lines.append(
                f"Alpha-beta with as many positions reaches depth {reference.depth} and plays "
                f"{self.san_of(reference.best_move)} ({format_value(reference.value)})"
                + (
                    ": the same move."
                    if same
                    else f"; it values {self.san_of(self.best_move)} at {format_value(self.choice_value)}{loss}."
                )
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


def _mean_text(mean: float) -> str:
    return "(-)" if np.isnan(mean) else f"({mean:.2f})"


def _alphabeta_iterations(board, budget: int) -> list[AlphaBetaIteration]:
    """Iterative deepening (ordering, table, PVS, quiescence: no forward pruning) until ``budget`` positions.

    The iteration that crosses the budget is kept (its total is above it, so
    :meth:`MctsReport.alphabeta_at` never picks it); a mate ends the run early.
    """
    from jitfish.teach import kernels as K
    from jitfish.teach.ladder import _Buffers, _call

    features = K.TRANSPOSITION_TABLE | K.PVS | K.QUIESCENCE
    buffers = _Buffers()
    position = board.position.copy()
    iterations = []
    for depth in range(1, MAX_ALPHABETA_DEPTH + 1):
        value = _call("ordering", position, buffers, depth, features=features)
        iterations.append(
            AlphaBetaIteration(depth, int(buffers.counters[K.NODES]), value, buffers.root_pv(board.chess960)[0])
        )
        if iterations[-1].nodes > budget or abs(value) >= MATE_BOUND:
            break
    return iterations


def alphabeta_move_value(board, move: str, depth: int) -> int:
    """Alpha-beta's value of playing ``move`` (UCI) at the root, searched as its root search would to ``depth``."""
    from jitfish.teach import kernels as K
    from jitfish.teach.ladder import _Buffers, _call

    after = board.copy()
    after.push_uci(move)
    if not after.legal_moves():
        return MATE - 1 if after.is_check() else 0
    features = K.TRANSPOSITION_TABLE | K.PVS | K.QUIESCENCE
    return -_call(
        "ordering", after.position.copy(), _Buffers(tt_entries=1 << 16), depth - 1, -INF, INF, features=features
    )


def mcts(
    position,
    iterations: int = 10_000,
    policy: str = "eval",
    exploration: float | None = None,
    seed: int = DEFAULT_SEED,
    playout_plies: int | None = None,
    alphabeta: bool = True,
    trace=None,
) -> MctsReport:
    """UCT on ``position`` (a :class:`jitfish.Board` or a FEN) for ``iterations`` iterations.

    ``policy`` is ``"random"`` or ``"eval"`` (see :data:`POLICIES`);
    ``playout_plies`` and ``exploration`` override the policy's cap on a
    playout's random moves and its UCB1 constant.
    The same ``seed`` gives the same search.  With ``alphabeta``, alpha-beta
    runs by iterative deepening up to as many positions as MCTS visited,
    and values MCTS's choice at the depth it reached.  A ``trace``
    (:class:`jitfish.teach.trace.Trace`) records every iteration (one event
    each: the cap bounds the iterations).
    """
    from jitfish.board.board import Board
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.params import default_weights
    from jitfish.teach import mcts_kernels as K

    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; choose from {', '.join(POLICIES)}")
    if not 1 <= iterations <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be between 1 and {MAX_ITERATIONS:,}, got {iterations}")
    exploration = POLICIES[policy].exploration if exploration is None else exploration
    if not exploration >= 0 or math.isinf(exploration):
        raise ValueError(f"the exploration constant must be a finite number >= 0, got {exploration}")
    plies = POLICIES[policy].playout_plies if playout_plies is None else playout_plies
    if not 0 <= plies <= 2000:
        raise ValueError(f"playout plies must be between 0 and 2000, got {plies}")
    board = position if isinstance(position, Board) else Board(position)
    legal = board.position.legal_moves()
    if len(legal) == 0:
        raise ValueError(f"no legal moves in {board.fen()}")

    if trace is not None and len(trace) + iterations > trace.cap:
        from jitfish.teach.trace import TraceFull

        raise TraceFull(trace.full_message())
    checkpoints = checkpoint_schedule(iterations)
    p = board.position.copy()
    tree = np.zeros((iterations + 1, K.NODE_FIELDS), dtype=np.int64)
    counters = np.zeros(K.COUNTERS_SIZE, dtype=np.int64)
    rows = np.zeros((iterations if trace is not None else 0, K.TRACE_FIELDS), dtype=np.float64)
    root_visits = np.zeros((len(checkpoints), MAX_MOVES), dtype=np.int64)
    root_rewards = np.zeros((len(checkpoints), MAX_MOVES), dtype=np.float64)
    checkpoint_nodes = np.zeros(len(checkpoints), dtype=np.int64)
    K.uct_search(
        p.bbs,
        p.state,
        p.undo,
        p.key_history,
        lookup_tables(),
        default_weights(),
        np.zeros(MAX_MOVES, dtype=np.int32),
        tree,
        np.zeros(iterations + 1, dtype=np.float64),
        np.zeros(K.MAX_PATH, dtype=np.int64),
        _seed_state(seed),
        iterations,
        float(exploration),
        plies,
        np.array(checkpoints, dtype=np.int64),
        root_visits,
        root_rewards,
        checkpoint_nodes,
        counters,
        rows,
    )
    if trace is not None:
        from jitfish.teach.chess_trace import record_uct

        record_uct(trace, board.fen(), board.chess960, tree, int(counters[K.TREE_SIZE]), rows)
    moves = [move_to_uci(int(m), board.chess960) for m in legal]
    chess_board = board.to_chess()
    report = MctsReport(
        board.fen(),
        policy,
        plies,
        float(exploration),
        seed,
        moves,
        [chess_board.san(chess_board.parse_uci(m)) for m in moves],
        checkpoints,
        [int(n) for n in checkpoint_nodes],
        root_visits[:, : len(moves)],
        root_rewards[:, : len(moves)],
    )
    report.trace = trace
    if trace is not None:
        most = report.moves.index(report.best_move)
        trace.summary = {
            "iterations": report.iterations,
            "positions visited": report.nodes[-1],
            f"visits of {report.san[most]} (most)": int(report.visits[-1][most]),
        }
    if alphabeta:
        report.alphabeta = _alphabeta_iterations(board, report.nodes[-1])
        reference = report.alphabeta_choice
        if reference is not None:
            report.choice_value = alphabeta_move_value(board, report.best_move, reference.depth)
    return report


def load_positions(path: str | Path = POSITIONS_FILE) -> list[tuple[str, int, str]]:
    """(FEN, iterations, comment) from a positions file: ``FEN; iterations N; comment``; ``#`` starts a comment."""
    return read_positions(path, "iterations")


# ----------------------------------------------------------------------------
# UCT on a small game tree, in plain Python
# ----------------------------------------------------------------------------


@dataclass
class ToyUct:
    """UCT's root statistics on a toy tree at each checkpoint; values are in the tree's leaf units, for MAX."""

    root: Node
    checkpoints: list[int]
    visits: list[list[int]]  # [checkpoint][root child]
    means: list[list[float]]  # [checkpoint][root child]; NaN where not yet visited
    minimax_values: list[float]  # each root child's minimax value

    @property
    def minimax_choice(self) -> int:
        """The root child minimax chooses (the first of equals)."""
        values = self.minimax_values
        return values.index(max(values) if self.root.maximizing else min(values))

    def share(self, child: int, checkpoint: int = -1) -> float:
        visits = self.visits[checkpoint]
        return visits[child] / max(1, sum(visits))

    def choice(self, checkpoint: int = -1) -> int:
        """UCT's choice at a checkpoint: the most visited root child (the first of equals)."""
        visits = self.visits[checkpoint]
        return visits.index(max(visits))


def _trace_iteration(trace, number: int, path: list[Node], expanded: bool, end: Node, outcome, visits, rewards) -> None:
    """One toy UCT iteration as an ``iteration`` event (see :func:`jitfish.teach.chess_trace.record_uct`)."""
    node = path[-1]
    event: dict = {"number": number, "path": list(node.path), "expanded": expanded}
    if expanded and node is not path[0]:
        event["new"] = {"label": node.label or str(node.path[-1] + 1), "role": "max" if node.maximizing else "min"}
    # The playout's outcome for the side to move at the path's end, as the compiled search writes it.
    event["playout"] = round(outcome if node.maximizing else 1 - outcome, 4)
    event["leaf"] = end.value
    event["backed"] = [[visits[n.path], round(rewards[n.path] / visits[n.path], 4)] for n in path]
    trace.add("iteration", **event)


def uct_tree(
    tree, iterations: int = 1000, exploration: float = UCB1_EXPLORATION, seed: int = DEFAULT_SEED, trace=None
) -> ToyUct:
    """UCT on a toy tree (nested lists, levels MAX, MIN, MAX...; see :mod:`jitfish.teach.toytree`).

    Leaves are the game's ends: a playout walks random children down to one.
    Scores are the leaf values scaled to [0, 1] over the tree's leaves, so
    that UCB1's constant means what it does for game results.  A ``trace``
    records each iteration as :func:`mcts` does (one event each).
    """
    root = tree if isinstance(tree, Node) else build_tree(tree)
    if root.is_leaf:
        raise ValueError("UCT needs a tree with at least one move")
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, got {iterations}")
    values = [leaf.value for leaf in root.leaves()]
    low, span = min(values), (max(values) - min(values)) or 1
    rng = random.Random(seed)
    visits: dict[tuple[int, ...], int] = {}
    rewards: dict[tuple[int, ...], float] = {}  # for the player who moved into the node

    def score_for_max(leaf: Node) -> float:
        return (leaf.value - low) / span

    checkpoints = checkpoint_schedule(iterations)
    result = ToyUct(root, checkpoints, [], [], [minimax_value(child) for child in root.children])
    for iteration in range(1, iterations + 1):
        # 1. Selection: UCB1 down through nodes whose children all have statistics.
        path = [root]
        node = root
        while not node.is_leaf and all(child.path in visits for child in node.children):
            log_parent = math.log(visits[node.path])
            node = max(
                node.children,
                key=lambda child: (
                    rewards[child.path] / visits[child.path] + exploration * math.sqrt(log_parent / visits[child.path])
                ),
            )
            path.append(node)
        # 2. Expansion: the first child without statistics.
        if not node.is_leaf:
            node = next(child for child in node.children if child.path not in visits)
            path.append(node)
        # 3. Simulation: random children down to a leaf.
        end = node
        while not end.is_leaf:
            end = rng.choice(end.children)
        outcome = score_for_max(end)
        # 4. Backup: a node moved into by MAX (its parent is a MAX node) collects MAX's score, else MIN's.
        expanded = path[-1].path not in visits
        for visited in path:
            visits[visited.path] = visits.get(visited.path, 0) + 1
            mover_is_max = not visited.maximizing
            rewards[visited.path] = rewards.get(visited.path, 0.0) + (outcome if mover_is_max else 1 - outcome)
        if trace is not None:
            _trace_iteration(trace, iteration, path, expanded, end, outcome, visits, rewards)
        if iteration in checkpoints:
            counts = [visits.get(child.path, 0) for child in root.children]
            means = []
            for child, count in zip(root.children, counts):
                # The root's children hold the root player's scores: MAX's, or MIN's (1 - MAX's).
                mean = rewards[child.path] / count if count else math.nan
                means.append(low + span * (mean if root.maximizing else 1 - mean))
            result.visits.append(counts)
            result.means.append(means)
    return result
