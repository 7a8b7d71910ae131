"""The ladder's results: its rungs, what each measured at each depth, and the report as text.

:mod:`jitfish.teach.ladder` runs the searches and fills a :class:`LadderReport`;
its text is one block per depth, one row per algorithm, then the flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jitfish.types import INF, mate_moves


@dataclass(frozen=True)
class Algorithm:
    name: str
    title: str
    exact: bool
    differs_because: str = ""


ALGORITHMS = (
    Algorithm("minimax", "plain minimax (negamax, no pruning)", True),
    Algorithm("alphabeta", "alpha-beta, moves in generator order", True),
    Algorithm("ordering", "alpha-beta + move ordering (MVV-LVA, killers)", True),
    Algorithm("deepening", "+ iterative deepening and a transposition table", True),
    Algorithm("pvs", "PVS (NegaScout) + aspiration windows", True),
    Algorithm("mtdf", "MTD(f): zero-window passes over a table of bounds", True),
    Algorithm(
        "pruning",
        "+ null move and late-move reductions",
        False,
        "null move and reductions cut or shorten lines on the word of a shallower search, which is not exact",
    ),
    Algorithm(
        "quiescence",
        "+ quiescence search",
        False,
        "its leaves are worth more than a static evaluation: captures are played out first",
    ),
    Algorithm(
        "engine",
        "Jitfish's own search (the above and more)",
        False,
        "the engine prunes (futility, late moves, SEE), extends checks and searches captures",
    ),
)
ALGORITHM_NAMES = tuple(a.name for a in ALGORITHMS)
BY_NAME = {a.name: a for a in ALGORITHMS}


@dataclass
class DepthResult:
    """One algorithm at one depth."""

    algorithm: str
    depth: int
    nodes: int
    leaves: int
    time: float  # seconds
    value: int  # centipawns for the side to move, or a mate score
    pv: list[str]

    @property
    def best_move(self) -> str:
        return self.pv[0] if self.pv else "-"


@dataclass(frozen=True)
class MtdfPass:
    """One zero-window pass of MTD(f): "is the value at least ``gamma``?", and the bounds known afterwards."""

    gamma: int  # searched with the window (gamma - 1, gamma)
    result: int  # fail-soft: >= gamma, a lower bound (yes); < gamma, an upper bound (no)
    lower: int  # the bounds on the value after this pass (+-INF: none yet)
    upper: int
    nodes: int  # visited by this pass

    @property
    def failed_high(self) -> bool:
        return self.result >= self.gamma


@dataclass
class LadderReport:
    """The measurements of one ladder run (or the sums over a suite)."""

    fens: list[str]
    depth: int
    algorithms: list[str]
    minimax_tree: dict[int, int]  # depth -> nodes of the full tree (perft sums)
    results: dict[tuple[str, int], DepthResult] = field(default_factory=dict)
    skipped: dict[tuple[str, int], str] = field(default_factory=dict)
    disagreements: list[str] = field(default_factory=list)  # filled for suites (per position)
    passes: dict[int, list[MtdfPass]] = field(default_factory=dict)  # MTD(f)'s passes by depth (one position)
    guesses: dict[int, int] = field(default_factory=dict)  # MTD(f)'s first guess by depth
    trace: Any = field(default=None, repr=False, compare=False)  # a jitfish.teach.trace.Trace, when traced

    def __str__(self) -> str:
        return format_report(self)

    def _repr_html_(self) -> str | None:
        """In a notebook, the page of the traced search (none when the search was not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)

    def get(self, algorithm: str, depth: int) -> DepthResult | None:
        return self.results.get((algorithm, depth))

    def nodes(self, algorithm: str) -> list[tuple[int, int]]:
        """(depth, nodes) for every depth the algorithm ran."""
        return [(d, r.nodes) for d in range(1, self.depth + 1) if (r := self.get(algorithm, d))]

    def branching_factor(self, algorithm: str, depth: int) -> float | None:
        """Effective branching factor: nodes at ``depth`` over nodes at ``depth - 1``."""
        here, below = self.get(algorithm, depth), self.get(algorithm, depth - 1)
        if here is None or below is None or below.nodes == 0:
            return None
        return here.nodes / below.nodes

    def tree_fraction(self, algorithm: str, depth: int) -> float | None:
        """The nodes visited as a fraction of the minimax tree's (above 1 is possible: re-searches, quiescence)."""
        result = self.get(algorithm, depth)
        return None if result is None else result.nodes / self.minimax_tree[depth]

    def reference_value(self, depth: int) -> int | None:
        """Minimax's value at ``depth``, or that of the first exact rung that ran (they are equal)."""
        for algorithm in ALGORITHMS:
            result = self.get(algorithm.name, depth)
            if algorithm.exact and result is not None:
                return result.value
        return None

    def flags(self) -> list[str]:
        """Where a rung's value differs from minimax's, and why (an exact rung that differs is a bug)."""
        lines = list(self.disagreements)
        if len(self.fens) != 1:
            return lines
        for depth in range(1, self.depth + 1):
            reference = self.reference_value(depth)
            for name in self.algorithms:
                result = self.get(name, depth)
                if result is None or reference is None or result.value == reference:
                    continue
                algorithm = BY_NAME[name]
                said = f"depth {depth}: {name} gives {format_value(result.value)}, minimax {format_value(reference)}"
                if algorithm.exact:
                    lines.append(f"ERROR {said}: this search is exact and must agree")
                else:
                    lines.append(f"{said}: {algorithm.differs_because}")
        return lines


def format_value(value: int) -> str:
    """Centipawns with a sign, ``#N`` for mate in N moves, ``#-N`` when mated in N, ``mated`` when mated now."""
    mate = mate_moves(value)
    if mate == 0:
        return "mated"
    if mate is not None:
        return f"#{mate}" if mate > 0 else f"#-{-mate}"
    return f"{value:+d}"


HEADER = (
    f"  {'algorithm':<11} {'nodes':>11} {'leaves':>11} {'time':>9} {'value':>7} {'best':>6} "
    f"{'EBF':>6} {'of minimax':>10}"
)


def _percent(fraction: float | None) -> str:
    if fraction is None:
        return "?"
    return f"{100 * fraction:.3g}%"


def _seconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _bound(value: int) -> str:
    return "+inf" if value >= INF else "-inf" if value <= -INF else format_value(value)


PASSES_SHOWN = 3  # passes printed at each end of a long run of them


def format_passes(report: LadderReport, depth: int) -> list[str]:
    """MTD(f)'s passes at ``depth``: each question, its answer, and the bounds it left (a long run shortened)."""
    passes = report.passes.get(depth)
    if not passes:
        return []
    lines = [
        f"  mtdf: {len(passes)} zero-window pass{'es' if len(passes) > 1 else ''} from the first guess "
        f"{format_value(report.guesses[depth])} (depth {depth - 1}'s value), {sum(p.nodes for p in passes):,} nodes"
    ]
    for number, p in enumerate(passes, 1):
        if PASSES_SHOWN < number <= len(passes) - PASSES_SHOWN:
            if number == PASSES_SHOWN + 1:
                lines.append(f"    ... {len(passes) - 2 * PASSES_SHOWN} passes more ...")
            continue
        answer = f"yes, >= {format_value(p.result)}" if p.failed_high else f"no, <= {format_value(p.result)}"
        lines.append(
            f"    {number:>3}. value >= {format_value(p.gamma):>6}?  {answer:<15} bounds "
            f"[{_bound(p.lower)}, {_bound(p.upper)}]  {p.nodes:,} nodes"
        )
    return lines


def format_report(report: LadderReport) -> str:
    """Per depth: nodes, leaves, time, value, best move, effective branching factor, fraction of the minimax tree."""
    suite = len(report.fens) > 1
    lines = [
        f"Suite of {len(report.fens)} positions (nodes and times summed)" if suite else f"Position: {report.fens[0]}"
    ]
    lines.append("Rungs: " + "; ".join(f"{name} = {BY_NAME[name].title}" for name in report.algorithms))
    for depth in range(1, report.depth + 1):
        tree = report.minimax_tree.get(depth)
        size = f"{tree:,} nodes" if tree else "too large to count"
        lines += ["", f"depth {depth}   (the minimax tree: {size})", HEADER]
        for name in report.algorithms:
            result = report.get(name, depth)
            if result is None:
                reason = report.skipped.get((name, depth), "not reached")
                lines.append(f"  {name:<11} skipped: {reason}")
                continue
            ebf = report.branching_factor(name, depth)
            value = "" if suite else format_value(result.value)
            best = "" if suite else result.best_move
            leaves = f"{result.leaves:,}" if result.leaves else "-"
            lines.append(
                f"  {name:<11} {result.nodes:>11,} {leaves:>11} {_seconds(result.time):>9} {value:>7} "
                f"{best:>6} {'' if ebf is None else f'{ebf:.2f}':>6} "
                f"{_percent(report.tree_fraction(name, depth)):>10}"
            )
        lines += format_passes(report, depth)
    flags = report.flags()
    lines += ["", "Values compared with minimax's:"]
    if flags:
        lines += [f"  {flag}" for flag in flags]
    else:
        lines.append("  every rung returned minimax's value at every depth")
    exact = [name for name in report.algorithms if BY_NAME[name].exact]
    if exact and not any(flag.startswith("ERROR") or " ERROR " in flag for flag in flags):
        lines.append(f"  exact rungs ({', '.join(exact)}) agree with minimax everywhere, as they must")
    return "\n".join(lines)
