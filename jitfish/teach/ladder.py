"""The ladder: one position searched by each algorithm in turn, depth by depth, measured.

Each rung adds one idea to the one below it:

====================  ==========================================================  ======
rung                  what it adds                                                exact?
====================  ==========================================================  ======
``minimax``           every move, every line (negamax without pruning)            yes
``alphabeta``         alpha-beta pruning, moves in the generator's order          yes
``ordering``          captures first (MVV-LVA), then killer moves                 yes
``deepening``         iterative deepening and a transposition table               yes
``pvs``               principal variation search and aspiration windows           yes
``mtdf``              zero-window tests only (MTD(f)), a table of bounds          yes
``pruning``           null-move pruning and late-move reductions                  no
``quiescence``        captures played out at the horizon                          no
``engine``            Jitfish's own search (all the above, and more)              no
====================  ==========================================================  ======

"Exact" rungs return minimax's value at every depth (the report checks it).
Rungs without iterative deepening search each depth from scratch; the others
reach depth ``d`` by searching 1, 2, ..., ``d``, and their node counts and
times at ``d`` are the totals of that whole run (what it costs to get there).

The minimax tree of depth ``d`` has ``perft(0) + ... + perft(d)`` nodes, so
the fraction of it a search visits is known even where minimax itself is too
slow to run.
"""

from __future__ import annotations

import time

import numpy as np

from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.teach.report import ALGORITHM_NAMES, BY_NAME, DepthResult, LadderReport
from jitfish.types import INF

MAX_LADDER_DEPTH = 12
DEFAULT_MINIMAX_BUDGET = 5_000_000  # nodes: minimax is skipped at depths whose tree is larger
ASPIRATION_WINDOW = 50  # centipawns each side of the previous iteration's value
ASPIRATION_MIN_DEPTH = 4  # shallower iterations swing too much for a narrow window (as the engine)
TT_ENTRIES = 1 << 18
PERFT_BUDGET = 10_000_000  # the minimax tree is counted (by perft) while a level is smaller


class _Buffers:
    """The arrays the teaching kernels work in (allocated once per ladder run)."""

    def __init__(self, tt_entries: int = TT_ENTRIES) -> None:
        from jitfish.teach import kernels as K

        self.moves = np.zeros(K.MAX_TEACH_PLY * MAX_MOVES, dtype=np.int32)
        self.scores = np.zeros(K.MAX_TEACH_PLY * MAX_MOVES, dtype=np.int64)
        self.killers = np.zeros(2 * K.MAX_TEACH_PLY, dtype=np.int64)
        self.tt_keys = np.zeros(tt_entries, dtype=np.uint64)
        self.tt_entries = np.zeros(tt_entries * K.TT_FIELDS, dtype=np.int64)
        self.pv = np.zeros(K.MAX_TEACH_PLY * K.PV_STRIDE, dtype=np.int64)
        self.counters = np.zeros(K.COUNTERS_SIZE, dtype=np.int64)
        self.no_trace = np.zeros(K.TRACE_HEADER, dtype=np.int64)  # records nothing
        self.recorder = None  # a jitfish.teach.chess_trace.ChessRecorder while a search is traced

    def trace_buffer(self) -> np.ndarray:
        return self.no_trace if self.recorder is None else self.recorder.buffer

    def clear(self) -> None:
        self.killers[:] = 0
        self.tt_keys[:] = 0
        self.tt_entries[:] = 0
        self.counters[:] = 0

    def root_pv(self, chess960: bool) -> list[str]:
        return [move_to_uci(int(m), chess960) for m in self.pv[1 : 1 + int(self.pv[0])]]


def _features(name: str) -> int:
    from jitfish.teach import kernels as K

    return {
        "ordering": 0,
        "deepening": K.TRANSPOSITION_TABLE,
        "pvs": K.TRANSPOSITION_TABLE | K.PVS,
        "mtdf": K.TRANSPOSITION_TABLE | K.BOUNDS,
        "pruning": K.TRANSPOSITION_TABLE | K.PVS | K.NULL_MOVE | K.REDUCTIONS,
        "quiescence": K.TRANSPOSITION_TABLE | K.PVS | K.NULL_MOVE | K.REDUCTIONS | K.QUIESCENCE,
    }[name]


def _call(
    name: str, position, buffers: _Buffers, depth: int, alpha: int = -INF, beta: int = INF, features: int | None = None
) -> int:
    """One search of ``position`` from the root; the counters keep adding up.

    ``features`` overrides the rung's refinements of ``enhanced_search``.
    """
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.params import default_weights
    from jitfish.teach import kernels as K

    p, b = position, buffers
    tables, weights = lookup_tables(), default_weights()
    if b.recorder is not None:  # minimax has no window to record
        b.recorder.search(name, depth, *((None, None) if name == "minimax" else (alpha, beta)))
    trace = b.trace_buffer()
    board = (p.bbs, p.state, p.undo, p.key_history, tables, weights)
    if name == "minimax":
        value = K.minimax(*board, b.moves, b.pv, b.counters, trace, depth, 0)
    elif name == "alphabeta":
        value = K.alphabeta(*board, b.moves, b.pv, b.counters, trace, alpha, beta, depth, 0)
    else:
        value = K.enhanced_search(
            *board,
            _features(name) if features is None else features,
            b.moves,
            b.scores,
            b.killers,
            b.tt_keys,
            b.tt_entries,
            b.pv,
            b.counters,
            trace,
            alpha,
            beta,
            depth,
            0,
        )
    if b.recorder is not None:
        b.recorder.collect()
    return int(value)


def _aspiration(name: str, position, buffers: _Buffers, depth: int, previous: int) -> int:
    """Search with a narrow window around the last value; a value outside it reopens that side and searches again."""
    alpha, beta = previous - ASPIRATION_WINDOW, previous + ASPIRATION_WINDOW
    while True:
        value = _call(name, position, buffers, depth, alpha, beta)
        if value <= alpha:
            alpha = -INF
        elif value >= beta:
            beta = INF
        else:
            return value


def _run_fixed(name: str, board, depth: int, buffers: _Buffers) -> DepthResult:
    """A search to ``depth`` from scratch (the rungs without iterative deepening)."""
    buffers.clear()
    position = board.position.copy()
    started = time.perf_counter()
    value = _call(name, position, buffers, depth)
    elapsed = time.perf_counter() - started
    return DepthResult(
        name, depth, int(buffers.counters[0]), int(buffers.counters[1]), elapsed, value, buffers.root_pv(board.chess960)
    )


def _run_deepening(name: str, board, depth: int, buffers: _Buffers) -> list[DepthResult]:
    """Iterative deepening to ``depth``: each iteration's totals so far (aspiration windows from ``pvs`` up)."""
    buffers.clear()
    position = board.position.copy()
    started = time.perf_counter()
    results, value = [], 0
    for d in range(1, depth + 1):
        if name == "deepening" or d < ASPIRATION_MIN_DEPTH:
            value = _call(name, position, buffers, d)
        else:
            value = _aspiration(name, position, buffers, d, value)
        results.append(
            DepthResult(
                name,
                d,
                int(buffers.counters[0]),
                int(buffers.counters[1]),
                time.perf_counter() - started,
                value,
                buffers.root_pv(board.chess960),
            )
        )
    return results


def _zero_window_search(board, position, buffers: _Buffers, depth: int):
    """The search MTD(f) asks its questions of: ``position`` to ``depth`` over the table of bounds."""

    def search(alpha: int, beta: int) -> tuple[int, int, list[str]]:
        before = int(buffers.counters[0])
        value = _call("mtdf", position, buffers, depth, alpha, beta)
        return value, int(buffers.counters[0]) - before, buffers.root_pv(board.chess960)

    return search


def _run_mtdf(board, depth: int, buffers: _Buffers) -> tuple[list[DepthResult], dict, dict]:
    """MTD(f) by iterative deepening to ``depth``: each depth's totals so far, its passes, and its first guess.

    Each depth's first guess is the value of the depth before; depth 1's is
    the static evaluation (depth 0's value, one node).
    """
    from jitfish.teach.mtdf import mtdf

    buffers.clear()
    position = board.position.copy()
    started = time.perf_counter()
    value = _call("mtdf", position, buffers, 0)
    results, passes, guesses = [], {}, {}
    for d in range(1, depth + 1):
        guesses[d] = value
        trace = None if buffers.recorder is None else buffers.recorder.trace
        value, pv, passes[d] = mtdf(_zero_window_search(board, position, buffers, d), value, trace, d)
        results.append(
            DepthResult(
                "mtdf", d, int(buffers.counters[0]), int(buffers.counters[1]), time.perf_counter() - started, value, pv
            )
        )
    return results, passes, guesses


def mtdf_passes(position, depth: int, guess: int) -> list:
    """MTD(f) at ``depth`` alone, from an empty table and the first ``guess``: its passes (:class:`MtdfPass`).

    How much the guess matters: a perfect guess needs two passes (">= v?"
    yes, ">= v + 1?" no); each centipawn it is off can cost one more.
    """
    from jitfish.teach.mtdf import mtdf

    if not 1 <= depth <= MAX_LADDER_DEPTH:
        raise ValueError(f"depth must be between 1 and {MAX_LADDER_DEPTH}, got {depth}")
    board = _as_board(position)
    buffers = _Buffers()
    return mtdf(_zero_window_search(board, board.position.copy(), buffers, depth), guess)[2]


def _run_engine(board, depth: int, trace=None) -> list[DepthResult]:
    """Jitfish's own search to ``depth``: a row per iteration it reports (``trace``: those iterations)."""
    from jitfish.search import Searcher, SearchLimits

    result = Searcher(hash_mb=16).search(board, SearchLimits(depth=depth))
    infos = [info for info in result.infos if info.multipv == 1]
    if trace is not None:
        from jitfish.teach.chess_trace import record_engine

        record_engine(trace, board.fen(), board.chess960, infos)
    return [DepthResult("engine", info.depth, info.nodes, 0, info.time, info.score, info.pv) for info in infos]


def minimax_tree_sizes(board, depth: int) -> dict[int, int | None]:
    """Nodes of the full minimax tree to each depth: ``perft(0) + ... + perft(d)``.

    ``None`` once the tree is too big to count quickly (``PERFT_BUDGET`` leaves a level before).
    """
    sizes: dict[int, int | None] = {0: 1}
    total, level = 1, 1
    for d in range(1, depth + 1):
        if level > PERFT_BUDGET:
            sizes[d] = None
            continue
        level = board.perft(d)
        total += level
        sizes[d] = total
    return sizes


def _check_arguments(depth: int, algorithms) -> list[str]:
    if not 1 <= depth <= MAX_LADDER_DEPTH:
        raise ValueError(f"ladder depth must be between 1 and {MAX_LADDER_DEPTH}, got {depth}")
    names = list(ALGORITHM_NAMES if algorithms is None else algorithms)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown or not names:
        raise ValueError(f"unknown algorithm(s) {unknown}; choose from {', '.join(ALGORITHM_NAMES)}")
    return [n for n in ALGORITHM_NAMES if n in names]  # ladder order


def _as_board(position):
    from jitfish.board.board import Board

    return position if isinstance(position, Board) else Board(position)


def ladder(
    position, depth: int = 4, algorithms=None, minimax_budget: int = DEFAULT_MINIMAX_BUDGET, trace=None
) -> LadderReport:
    """Search ``position`` (a :class:`jitfish.Board` or a FEN) to ``depth`` with each algorithm.

    ``algorithms`` picks rungs by name (default: all, see ``ALGORITHM_NAMES``);
    minimax (and plain alpha-beta, its close cousin) is skipped at depths whose
    full tree exceeds ``minimax_budget`` nodes.  The first call compiles the
    teaching kernels (see the README for how long that takes).

    A ``trace`` (:class:`jitfish.teach.trace.Trace`) records the search of one
    rung (``algorithms`` names one) that the report's row
    at ``depth`` counts: the search to ``depth`` alone for the rungs that
    search each depth from scratch, the whole run of iterative deepening (and
    MTD(f)'s passes) for the others; for ``engine``, its iterations as it
    reports them (their nodes, values and lines), not node by node.
    """
    names = _check_arguments(depth, algorithms)
    board = _as_board(position)
    if trace is not None and len(names) != 1:
        raise ValueError(f"a trace follows one rung of the ladder; got {', '.join(names)}")
    report = LadderReport([board.fen()], depth, names, minimax_tree_sizes(board, depth))
    report.trace = trace
    buffers = _Buffers()
    recorder = None
    if trace is not None and names[0] != "engine":  # the engine's kernel records nothing: its iterations are traced
        from jitfish.teach.chess_trace import ChessRecorder

        recorder = ChessRecorder(trace, board.fen(), board.chess960)
        if names[0] not in ("minimax", "alphabeta", "ordering"):
            buffers.recorder = recorder
    for name in names:
        if name in ("minimax", "alphabeta", "ordering"):
            for d in range(1, depth + 1):
                if name != "ordering" and report.minimax_tree[d] > minimax_budget:
                    report.skipped[(name, d)] = f"tree of {report.minimax_tree[d]:,} nodes is over the budget"
                    continue
                buffers.recorder = recorder if d == depth else None
                report.results[(name, d)] = _run_fixed(name, board, d, buffers)
        elif name == "mtdf":
            results, report.passes, report.guesses = _run_mtdf(board, depth, buffers)
            for result in results:
                report.results[(name, result.depth)] = result
        elif name == "engine":
            for result in _run_engine(board, depth, trace):
                report.results[(name, result.depth)] = result
        else:
            for result in _run_deepening(name, board, depth, buffers):
                report.results[(name, result.depth)] = result
    row = report.results.get((names[0], depth))
    if trace is not None and row is not None:
        trace.summary = {"value": row.value, "nodes visited": row.nodes}
        if names[0] != "engine":  # the engine counts no leaves
            trace.summary["leaves visited"] = row.leaves
        if names[0] == "mtdf":
            trace.summary["MTD(f) passes"] = sum(len(passes) for passes in report.passes.values())
    return report


def ladder_suite(
    positions, depth: int = 3, algorithms=None, minimax_budget: int = DEFAULT_MINIMAX_BUDGET
) -> LadderReport:
    """The ladder over several positions: nodes, leaves and times summed; values compared position by position.

    A rung is kept at a depth only if it ran on every position; the report's
    ``disagreements`` list each position where a rung's value differs from
    minimax's (for exact rungs, an error).
    """
    boards = [_as_board(p) for p in positions]
    if not boards:
        raise ValueError("the suite holds no positions")
    names = _check_arguments(depth, algorithms)
    total = LadderReport([b.fen() for b in boards], depth, names, {d: 0 for d in range(depth + 1)})
    for index, board in enumerate(boards):
        single = ladder(board, depth, names, minimax_budget)
        for d in range(depth + 1):
            total.minimax_tree[d] += single.minimax_tree[d]
        for line in single.flags():
            total.disagreements.append(f"position {index + 1} ({board.fen()}): {line}")
        for key, result in single.results.items():
            if key in total.skipped:
                continue
            into = total.results.setdefault(key, DepthResult(key[0], key[1], 0, 0, 0.0, 0, []))
            into.nodes += result.nodes
            into.leaves += result.leaves
            into.time += result.time
        for key, reason in single.skipped.items():
            total.skipped[key] = f"position {index + 1}: {reason}"
            total.results.pop(key, None)
    return total


def warm_up(engine: bool = True) -> float:
    """Load (or compile) the teaching kernels, and the engine's search too if ``engine``; return the seconds taken.

    Run before measuring, so that no rung's time includes loading code.
    """
    from jitfish.board.board import Board

    started = time.perf_counter()
    board = Board("4k3/8/8/3p4/4P3/8/8/4K2R w K - 0 1")
    buffers = _Buffers(tt_entries=1 << 10)
    for name in ALGORITHM_NAMES[:-1]:
        _run_fixed(name, board, 2, buffers)
    if engine:
        _run_engine(board, 2)
    return time.perf_counter() - started
