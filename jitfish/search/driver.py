"""Iterative deepening, aspiration windows, limits, info reports: the search seen from Python.

Python crosses into compiled code once per aspiration window of each
iteration (``negamax`` at the root) and reports what the iteration found.
The clock of a search is one :class:`~jitfish.search.timeman.TimeController`,
owned by whoever starts the search (the engine builds one per ``go``;
:meth:`Searcher.search` makes its own when given none): the driver asks it
after each iteration whether to go on, and a watchdog thread raises the stop
flag of every thread's control array when it says the search must end (its
hard deadline passed, or ``stop()`` was called on it); the kernel polls that
flag every ``POLL_NODES`` nodes (well under a millisecond), so a search stops
within a few ms of ``stop()`` or its deadline.  Each thread's buffers are a
:class:`SearchWorker`; Lazy SMP helpers are Python threads running the same
(GIL-free) kernel on their own worker (a copy of the position, their own
heuristics), sharing the transposition table.  A soft node limit
(``SearchLimits.soft_nodes``) is checked between iterations only: no new
iteration starts once the nodes so far reach it, so the search ends on a
completed iteration; ``nodes`` stays the hard limit that aborts one (the data
generator sets it to a few times the soft limit as a safety net).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move
from jitfish.board.moves import move_from_to, move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.evaluation import psq_score
from jitfish.eval.params import default_weights
from jitfish.nnue.inference import KernelNetwork
from jitfish.search import buffers as B
from jitfish.search import negamax as N
from jitfish.search.context import NO_TABLES, new_context
from jitfish.search.evalstack import network_arrays, prepare_root
from jitfish.search.params import (
    ASPIRATION_DELTA,
    INDEX,
    LMR_BASE_PCT,
    LMR_DIVISOR_PCT,
    check_value,
    checked_params,
    default_params,
)
from jitfish.search.timeman import TimeController
from jitfish.search.tt import AGE_MASK, hashfull as _hashfull, new_table, probe
from jitfish.syzygy import new_settings, probe_arrays
from jitfish.syzygy.layout import PROBE_DEPTH, PROBE_HITS, PROBE_PIECES, PROBE_RULE50
from jitfish.types import INF, MATE_BOUND, MAX_PLY, mate_moves

if TYPE_CHECKING:
    from jitfish.board.board import Board
    from jitfish.board.position import Position
    from jitfish.search.context import SearchContext
    from jitfish.syzygy import Tablebase

# What search() reports: each iteration's lines, and the root move the main thread is on.
InfoCallback = Callable[["SearchInfo"], None]
CurrmoveCallback = Callable[[int, str, int], None]  # (depth, move, its number among the root moves)

POLL_NODES = 1024
MAX_DEPTH = MAX_PLY - 8
ASPIRATION_MIN_DEPTH = 4
ASPIRATION_MAX_DELTA = 1000  # beyond this the window opens fully
CURRMOVE_AFTER = 1.0  # seconds into a search before currmove reports start (as Stockfish)
CURRMOVE_INTERVAL = 0.25  # seconds between currmove polls


@dataclass
class SearchLimits:
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None  # seconds, hard
    mate: int | None = None  # search for mate in N moves; stop when found
    searchmoves: list[str] | None = None  # UCI strings, restrict root moves
    infinite: bool = False  # no limit until the clock stops or is released
    soft_nodes: int | None = None  # do not start a new iteration once this many nodes are searched


@dataclass
class SearchInfo:
    depth: int
    seldepth: int
    multipv: int
    score_cp: int | None
    score_mate: int | None  # mate in N moves, negative if being mated
    bound: str  # "", "lowerbound" or "upperbound"
    nodes: int
    time: float
    nps: int
    hashfull: int
    pv: list[str]
    score: int = 0  # internal score (centipawns or MATE - ply)
    tbhits: int | None = None  # tablebase probes answered so far (None: no tables)


@dataclass
class SearchResult:
    best_move: str  # "0000" if no legal move
    ponder_move: str | None
    score_cp: int | None
    score_mate: int | None
    pv: list[str]
    depth: int
    seldepth: int
    nodes: int
    time: float
    score: int = 0
    infos: list[SearchInfo] = field(default_factory=list, repr=False)
    tbhits: int | None = None


def _split_score(score: int) -> tuple[int | None, int | None]:
    mate = mate_moves(score)
    return (None, mate) if mate is not None else (int(score), None)


class SearchWorker:
    """One search thread's buffers and its iterative deepening: a position copy, heuristics, stack, control array.

    :class:`Searcher` runs one per thread (the first is the main thread, the others Lazy SMP helpers);
    the self-play generator (:mod:`tuning.datagen.selfplay`) drives one on its own, without threads or clock.
    The shared state, the transposition table, evaluation weights and search parameters, is passed to each
    call, so that one table can serve several workers.  A search goes: :meth:`prepare` (the position, the
    limits), then :meth:`aspiration` per iteration (the driver's loop) or :meth:`iterate_nodes` (the whole
    node-limited deepening); :attr:`pv`, :attr:`nodes` and :attr:`stopped` read the result.
    """

    def __init__(self, params: np.ndarray, network: KernelNetwork | None, tablebase: Tablebase | None = None) -> None:
        # The buffers of jitfish.search.buffers; the views name parts of ``work``.
        self.control = np.zeros(B.CONTROL_SIZE, dtype=np.int64)
        self.work = np.zeros(B.WORK_SIZE, dtype=np.int32)
        self.stack = B.new_stack()
        self.heuristics = self.work[: B.HEURISTICS_SIZE]
        self.pv = self.work[B.PV : B.PV + B.PV_SIZE]
        self.set_reductions(params)
        self.set_network(network)
        self.set_tablebase(tablebase)
        self.position: Position  # the root, searched in place: set by prepare()

    def set_network(self, network: KernelNetwork | None) -> None:
        """Evaluate with ``network`` (None: the hand-written evaluation), with a stack of accumulators of our own."""
        self.network = network_arrays(network)

    def set_tablebase(self, tablebase: Tablebase | None) -> None:
        """Probe ``tablebase`` (None: no tables) with a probe scratch and settings of our own; without tables
        the search's context has none (the search compiled without a prober: jitfish.search.context)."""
        self.syzygy = probe_arrays(tablebase)
        self.tables_in_context = self.syzygy if tablebase is not None else NO_TABLES

    @property
    def tb_settings(self) -> np.ndarray:
        """The probe settings and hit counter the search reads (``jitfish.syzygy.layout.PROBE_*``)."""
        return self.syzygy[2]

    def set_reductions(self, params: np.ndarray) -> None:
        """Rebuild the late-move reduction table from ``params`` (in Python: nothing recompiles)."""
        self.work[B.LMR : B.LMR + B.LMR_SIDE * B.LMR_SIDE] = N.late_move_reductions(params)

    def prepare(
        self,
        position: Position,
        age: int,
        node_limit: int,
        root_moves: list[int],
        tb_settings: np.ndarray | None = None,
    ) -> None:
        """Set up a search of ``position``, probing as ``tb_settings`` says (the searcher's, hits at zero;
        None: no probing)."""
        self.position = position
        self.tb_settings[:] = 0 if tb_settings is None else tb_settings
        c = self.control
        c[:] = 0
        B.reset_stack(self.stack)
        c[B.C_NODE_LIMIT] = node_limit
        c[B.C_AGE] = age
        c[B.C_POLL_MASK] = POLL_NODES - 1
        c[B.C_ROOT_COUNT] = len(root_moves)
        c[B.C_ROOT_MOVES : B.C_ROOT_MOVES + len(root_moves)] = root_moves

    def effort(self, move: int) -> float | None:
        """The share of this search's root nodes spent under ``move`` (None before any)."""
        spent = self.control[B.C_ROOT_NODES : B.C_ROOT_NODES + B.ROOT_NODES_SIZE]
        total = int(spent.sum())
        return int(spent[move_from_to(move)]) / total if total else None

    def evaluate_root(self, weights: np.ndarray) -> None:
        """Set up ply 0's evaluation state: the search keeps the material and piece-square
        score (and the network's accumulators) move by move from the root's."""
        mg, eg = psq_score(self.position.bbs, weights)
        self.stack["psq_mg"][B.STACK_ROOT], self.stack["psq_eg"][B.STACK_ROOT] = mg, eg
        prepare_root(self.network, self.stack, self.position.bbs)

    def context(self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray) -> SearchContext:
        """The search context of this thread's position (:mod:`jitfish.search.context`)."""
        return new_context(
            self.position,
            lookup_tables(),
            weights,
            self.network,
            params,
            tt,
            self.work,
            self.control,
            self.stack,
            self.tables_in_context,
        )

    def search_root(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, alpha: int, beta: int, depth: int
    ) -> int:
        """One call of the search kernel at the root with the window ``(alpha, beta)``: its score."""
        self.evaluate_root(weights)
        ctx = self.context(tt, weights, params)
        return int(N.negamax(ctx, alpha, beta, depth, 0, 0))

    def aspiration(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, depth: int, previous: int
    ) -> tuple[int, bool]:
        """One iteration: a window around the previous score, widened on failure, full at last;
        ``(score, whether a stop cut it short)``."""
        delta = int(params[ASPIRATION_DELTA])
        if depth >= ASPIRATION_MIN_DEPTH and abs(previous) < MATE_BOUND:
            alpha, beta = max(previous - delta, -INF), min(previous + delta, INF)
        else:
            alpha, beta = -INF, INF
        while True:
            self.control[B.C_SELDEPTH] = 0
            score = self.search_root(tt, weights, params, alpha, beta, depth)
            if self.stopped:
                return score, True
            if score <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INF)
            elif score >= beta:
                beta = min(score + delta, INF)
            else:
                return score, False
            delta += delta
            if delta > ASPIRATION_MAX_DELTA:
                alpha, beta = -INF, INF

    def finish_first_iteration(self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray) -> tuple[int, bool]:
        """Redo depth 1 past a stop that came before it finished (a deadline already gone when the search
        began, a tiny node limit, an early ``stop``): it takes about a millisecond, and the move played is
        then one a search chose, not merely the first legal move.  The stop is set again afterwards."""
        control = self.control
        node_limit = int(control[B.C_NODE_LIMIT])
        control[B.C_STOP] = 0
        control[B.C_NODE_LIMIT] = 1 << 62
        try:
            return self.aspiration(tt, weights, params, 1, 0)
        finally:
            control[B.C_NODE_LIMIT] = node_limit
            control[B.C_STOP] = 1

    def iterate_nodes(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, soft_nodes: int, max_depth: int
    ) -> tuple[int, int]:
        """The search prepared here, node-limited and quiet: :meth:`Searcher.search`'s iterative deepening
        for one line, no clock, reports or PV strings; no iteration starts once ``soft_nodes`` are
        searched, the hard limit is the one :meth:`prepare` set.  ``(best move, its score)``; the move is
        0 only if no iteration found one (a position without legal moves)."""
        best_move, best_score = 0, 0
        for depth in range(1, max_depth + 1):
            score, aborted = self.aspiration(tt, weights, params, depth, best_score)
            if aborted and depth == 1:
                score, aborted = self.finish_first_iteration(tt, weights, params)
            if self.pv[0] > 0:
                # Even when the stop cut this iteration short: a root move that fully beat the
                # previous best before it is an improvement, as in ``Searcher._iterate``.
                best_move = int(self.pv[1])
            if aborted:
                break
            best_score = score
            if self.stopped or self.nodes >= soft_nodes:
                break
        return best_move, best_score

    def root_pv(self) -> list[int]:
        """The principal variation of the last root search, encoded moves (empty if it found none)."""
        length = int(self.pv[0])
        return [int(m) for m in self.pv[1 : 1 + length]]

    @property
    def stopped(self) -> bool:
        """Whether this thread's stop flag is raised (a stop, a deadline or the node limit)."""
        return bool(self.control[B.C_STOP])

    @property
    def nodes(self) -> int:
        """The nodes this thread has searched since :meth:`prepare`."""
        return int(self.control[B.C_NODES])


@dataclass
class _SearchRun:
    """One call of :meth:`Searcher.search`: what its iterations, watchdog and reporter read."""

    workers: list[SearchWorker]  # the main thread's first
    legal_moves: list[int]  # the root moves searched (searchmoves applied), encoded
    max_depth: int
    limits: SearchLimits
    multipv: int  # lines searched, at most the number of root moves
    on_info: InfoCallback | None
    started: float  # time.perf_counter() at the call
    chess960: bool
    timer: TimeController  # the search's clock (its owner's: see the module's docstring)
    depth: int = 1  # the iteration in progress (the currmove reports say it)

    @property
    def main(self) -> SearchWorker:
        return self.workers[0]

    def raise_stop_flags(self) -> None:
        """Make every thread's kernel return within ``POLL_NODES`` nodes."""
        for worker in self.workers:
            worker.control[B.C_STOP] = 1

    def watch_clock(self) -> None:
        """The watchdog: stop the kernels when the clock says so (``stop``, or the hard deadline, which a
        ``ponderhit`` may move); return when the search ends first."""
        if self.timer.wait_for_stop():
            self.raise_stop_flags()


class Searcher:
    """The engine's search: a transposition table, heuristics and threads, reused between moves."""

    def __init__(
        self,
        hash_mb: int = 16,
        threads: int = 1,
        weights: np.ndarray | None = None,
        params: np.ndarray | None = None,
        network: KernelNetwork | None = None,
    ) -> None:
        self._weights = default_weights() if weights is None else np.ascontiguousarray(weights, np.int64)
        self._params = checked_params(default_params() if params is None else params)  # a copy
        self._tt = new_table(hash_mb)
        self._age = 0
        self._network = network
        self._workers = [SearchWorker(self._params, network) for _ in range(max(1, threads))]
        self._run: _SearchRun | None = None  # the search in progress
        self.tablebase: Tablebase | None = None  # the Syzygy tables probed (set_tablebase)
        self._tb_settings = new_settings()  # probing off until set_tablebase

    # --- configuration -------------------------------------------------
    def resize(self, hash_mb: int) -> None:
        self._tt = new_table(hash_mb)

    def clear(self) -> None:
        # Zeros written over the table, not a new one: the pages are then in memory before the next search
        # (a GUI waits for readyok), where a fresh table's pages would be faulted in, each at its first touch,
        # during a timed search (seconds for a large table in a virtual machine).
        self._tt[:] = 0
        self._age = 0
        for worker in self._workers:
            worker.heuristics[:] = 0

    def set_threads(self, threads: int) -> None:
        threads = max(1, int(threads))
        while len(self._workers) < threads:
            self._workers.append(SearchWorker(self._params, self._network, self.tablebase))
        del self._workers[threads:]

    @property
    def workers(self) -> tuple[SearchWorker, ...]:
        """The threads' buffers, the main thread's first (for inspection: the searcher prepares them)."""
        return tuple(self._workers)

    @property
    def network(self) -> KernelNetwork | None:
        """The network the search evaluates with, or None for the hand-written evaluation."""
        return self._network

    def set_network(self, network: KernelNetwork | None) -> None:
        """Evaluate with ``network`` from the next search on (None: the hand-written evaluation).

        The transposition table is cleared: the static evaluations it keeps are the old evaluation's.
        """
        self._network = network
        for worker in self._workers:
            worker.set_network(network)
        self.clear()

    @property
    def params(self) -> np.ndarray:
        """The search parameters (:mod:`jitfish.search.params`), read-only: change them with :meth:`set_param`."""
        view = self._params.view()
        view.setflags(write=False)
        return view

    def set_param(self, name: str, value: int) -> None:
        """Set one search parameter for the next search; ``ValueError`` for an unknown name or a value
        out of its range.  Takes effect without recompiling (the kernels read the array)."""
        value = check_value(name, value)
        index = INDEX[name]
        self._params[index] = value
        if index in (LMR_BASE_PCT, LMR_DIVISOR_PCT):
            for worker in self._workers:
                worker.set_reductions(self._params)

    def set_tablebase(self, tablebase: Tablebase | None, probe_limit: int, probe_depth: int, rule50: bool) -> None:
        """Probe ``tablebase`` (a :class:`jitfish.syzygy.Tablebase`, or None for none) from the next search on:
        positions of at most ``probe_limit`` pieces, at ``probe_depth`` or deeper, cursed wins as draws if
        ``rule50`` (the options ``SyzygyProbeLimit``, ``SyzygyProbeDepth``, ``Syzygy50MoveRule``)."""
        pieces = 0 if tablebase is None else min(probe_limit, tablebase.max_pieces)
        self._tb_settings[[PROBE_PIECES, PROBE_DEPTH, PROBE_RULE50, PROBE_HITS]] = (pieces, probe_depth, rule50, 0)
        if tablebase is not self.tablebase:
            self.tablebase = tablebase
            for worker in self._workers:
                worker.set_tablebase(tablebase)

    def hashfull(self) -> int:
        return _hashfull(self._tt, self._age)

    @staticmethod
    def warm_up(before_search: Callable[[], None] | None = None) -> None:
        """Load (or compile) every kernel the search uses (with a small searcher of its own).

        ``before_search`` is called once the kernels the search calls from Python are
        ready (the lookup tables, the root move generator, the root's evaluation) and
        before the search's own kernels are: a cold start waits there for its helper
        process (:func:`jitfish.compile.warm_search`).
        """
        from jitfish.board.board import Board

        board = Board("r3k2r/pp3ppp/8/3q4/8/8/PPP2PPP/R2QK2R w KQkq - 0 1")
        if before_search is not None:
            board.position.legal_moves()
            worker = SearchWorker(default_params(), None)
            worker.prepare(board.position.copy(), 0, 1, [])
            worker.evaluate_root(default_weights())
            before_search()
        searcher = Searcher(hash_mb=1)
        searcher.search(board, SearchLimits(depth=3))
        # A PV of one move (a depth-1 or early-stopped search) takes its ponder move from the table, through
        # kernels called from Python: load them now, not in the first such search.
        searcher._extend_pv(board.position, [int(board.position.legal_moves()[0])])

    # --- control from other threads ------------------------------------
    def stop(self) -> None:
        """Stop the search in progress from another thread: its clock stops and its kernels return at once
        (it still answers with the best move found).  Nothing happens between searches.  The engine stops
        the clock it gave the search instead, which also covers a ``stop`` before the search began."""
        run = self._run
        if run is not None:
            run.timer.stop()
            run.raise_stop_flags()

    # --- the search ----------------------------------------------------
    def search(
        self,
        board: Board,
        limits: SearchLimits | None = None,
        on_info: InfoCallback | None = None,
        multipv: int = 1,
        on_currmove: CurrmoveCallback | None = None,
        timer: TimeController | None = None,
    ) -> SearchResult:
        """Search ``board`` (left unchanged) within ``limits``; blocks until done or stopped.

        ``on_currmove(depth, move, number)``, if given, hears which root move
        the main thread is searching, from the first second on (as UCI's
        ``currmove`` asks), at most every ``CURRMOVE_INTERVAL`` seconds.
        ``timer`` is the clock of the search, its caller's to stop or release
        (the engine builds one from the clocks of ``go``); by default, one of
        the search's own with ``limits.movetime`` and ``limits.infinite``,
        which :meth:`stop` stops.
        """
        limits = limits or SearchLimits()
        started = time.perf_counter()
        if timer is None:
            timer = TimeController(origin=started, movetime=limits.movetime, pondering=limits.infinite)
        chess960 = board.chess960
        root = board.position.copy()
        legal_moves = [int(m) for m in root.legal_moves()]
        if limits.searchmoves:
            wanted = set(limits.searchmoves)
            allowed = [m for m in legal_moves if move_to_uci(m, chess960) in wanted or move_to_uci(m, True) in wanted]
            legal_moves = allowed or legal_moves
        if not legal_moves:
            in_check = board.is_check()
            return SearchResult(
                "0000",
                None,
                None if in_check else 0,
                0 if in_check else None,
                [],
                0,
                0,
                0,
                time.perf_counter() - started,
                score=-INF if in_check else 0,
            )

        self._age = (self._age + 1) & AGE_MASK
        node_limit = int(limits.nodes) if limits.nodes else (1 << 62)
        max_depth = min(int(limits.depth), MAX_DEPTH) if limits.depth else MAX_DEPTH
        workers = self._workers if limits.nodes is None else self._workers[:1]
        root_moves = legal_moves if limits.searchmoves else []
        for worker in workers:
            worker.prepare(root.copy(), self._age, node_limit, root_moves, self._tb_settings)
        run = _SearchRun(
            workers,
            legal_moves,
            max_depth,
            limits,
            max(1, min(int(multipv), len(legal_moves))),
            on_info,
            started,
            chess960,
            timer,
        )
        timer.begin()
        self._run = run
        # A clock stopped before the search began (a stop while the engine read its book) ends the search
        # after depth 1, at ``iteration_done``; a watchdog would cut that iteration short.
        watchdog = None if timer.stopped else threading.Thread(target=run.watch_clock, daemon=True)
        if watchdog is not None:
            watchdog.start()
        finished = threading.Event()
        reporter = None
        if on_currmove is not None:
            run.main.control[B.C_CURRMOVE] = 0
            reporter = threading.Thread(
                target=self._report_current_moves, daemon=True, args=(run, on_currmove, finished)
            )
            reporter.start()
        # Helpers only for a search that has a clock running: one stopped before it began answers from
        # depth 1, and Lazy SMP helpers would only compete with that iteration for the cores (with
        # ``Threads 50`` on two cores, a held ``go`` ended by a ``stop`` took two seconds to answer).
        helpers = [
            threading.Thread(target=self._helper_loop, args=(w, i + 1, max_depth), daemon=True)
            for i, w in enumerate(workers[1:])
            if not timer.stopped
        ]
        for helper in helpers:
            helper.start()
        try:
            result = self._iterate(run)
        finally:
            self._run = None
            timer.finish()
            run.raise_stop_flags()
            finished.set()
            for helper in helpers:
                helper.join()
            if watchdog is not None:
                watchdog.join()
            if reporter is not None:
                reporter.join()
        result.nodes = sum(w.nodes for w in workers)
        result.tbhits = self._tb_hits(workers)
        result.time = time.perf_counter() - started
        return result

    def _tb_hits(self, workers: list[SearchWorker]) -> int | None:
        """Tablebase probes answered by ``workers`` in this search, or None when no tables are probed."""
        if not self._tb_settings[PROBE_PIECES]:
            return None
        return int(sum(w.tb_settings[PROBE_HITS] for w in workers))

    @staticmethod
    def _report_current_moves(run: _SearchRun, on_currmove: CurrmoveCallback, finished: threading.Event) -> None:
        """Relay the main thread's root move (read from its control array) while it searches."""
        last = 0
        delay = max(0.0, CURRMOVE_AFTER - (time.perf_counter() - run.started))
        if finished.wait(delay):
            return
        while True:
            packed = int(run.main.control[B.C_CURRMOVE])
            if packed and packed != last:
                last = packed
                on_currmove(run.depth, move_to_uci(packed & 0xFFFF_FFFF, run.chess960), packed >> 32)
            if finished.wait(CURRMOVE_INTERVAL):
                return

    def _helper_loop(self, worker: SearchWorker, index: int, max_depth: int) -> None:
        for depth in range(1 + index % 2, max_depth + 1):
            worker.search_root(self._tt, self._weights, self._params, -INF, INF, depth)
            if worker.stopped:
                return

    def _iterate(self, run: _SearchRun) -> SearchResult:
        """The main thread's iterative deepening, ``run.multipv`` lines per depth, until a limit or the clock
        ends it; the result's nodes and time are the caller's to fill in."""
        main, legal_moves, multipv, chess960 = run.main, run.legal_moves, run.multipv, run.chess960
        best_pv: list[int] = [legal_moves[0]]
        best_score = 0
        completed_depth = 0
        seldepth = 0
        infos: list[SearchInfo] = []
        previous_scores = [0] * multipv
        for depth in range(1, run.max_depth + 1):
            run.depth = depth
            excluded: list[int] = []
            lines: list[tuple[int, list[int], str]] = []
            for line in range(multipv):
                allowed = [m for m in legal_moves if m not in excluded]
                c = main.control
                if multipv > 1 or run.limits.searchmoves:
                    c[B.C_ROOT_COUNT] = len(allowed)
                    c[B.C_ROOT_MOVES : B.C_ROOT_MOVES + len(allowed)] = allowed
                score, aborted = main.aspiration(self._tt, self._weights, self._params, depth, previous_scores[line])
                if aborted and depth == 1 and line == 0:
                    score, aborted = main.finish_first_iteration(self._tt, self._weights, self._params)
                pv = main.root_pv()
                if aborted:
                    # A root move that fully beat the previous best before the
                    # stop is still an improvement: keep it.
                    if line == 0 and pv and depth > 1 and pv[0] != best_pv[0]:
                        best_pv = pv
                    break
                previous_scores[line] = score
                lines.append((score, pv, ""))
                excluded.append(pv[0] if pv else allowed[0])
            if len(lines) < multipv:
                break
            lines.sort(key=lambda line: -line[0])
            completed_depth = depth
            seldepth = int(main.control[B.C_SELDEPTH])
            best_score, best_pv = lines[0][0], lines[0][1] or best_pv
            elapsed = time.perf_counter() - run.started
            nodes = sum(w.nodes for w in run.workers)
            for index, (score, pv, bound) in enumerate(lines):
                cp, mate = _split_score(score)
                info = SearchInfo(
                    depth,
                    seldepth,
                    index + 1,
                    cp,
                    mate,
                    bound,
                    nodes,
                    elapsed,
                    int(nodes / max(elapsed, 1e-6)),
                    self.hashfull(),
                    [move_to_uci(m, chess960) for m in pv],
                    score,
                    self._tb_hits(run.workers),
                )
                infos.append(info)
                if run.on_info is not None:
                    run.on_info(info)
            mate = mate_moves(best_score)
            if run.limits.mate is not None and mate is not None and 0 < mate <= run.limits.mate:
                break
            if run.timer.iteration_done(move_to_uci(best_pv[0], chess960), best_score, main.effort(best_pv[0])) or (
                run.limits.soft_nodes is not None and nodes >= run.limits.soft_nodes
            ):
                break
        run.timer.wait_released()  # an infinite (or pondering) search does not return before its clock says
        best_pv = self._extend_pv(main.position, best_pv)
        cp, mate = _split_score(best_score)
        return SearchResult(
            best_move=move_to_uci(best_pv[0], chess960),
            ponder_move=move_to_uci(best_pv[1], chess960) if len(best_pv) > 1 else None,
            score_cp=cp,
            score_mate=mate,
            pv=[move_to_uci(m, chess960) for m in best_pv],
            depth=completed_depth,
            seldepth=seldepth,
            nodes=0,
            time=0.0,
            score=best_score,
            infos=infos,
        )

    def _extend_pv(self, position: Position, pv: list[int]) -> list[int]:
        """Add a ponder move from the TT when the PV is a single move."""
        if len(pv) != 1:
            return pv
        p = position.copy()
        make_move(p.bbs, p.state, p.undo, p.key_history, lookup_tables(), pv[0])
        entry = probe(self._tt, p.bbs[L.KEY])
        if entry is not None and entry.move in p.legal_moves():
            return pv + [entry.move]
        return pv


def search(
    board: Board,
    depth: int | None = None,
    movetime: float | None = None,
    nodes: int | None = None,
    mate: int | None = None,
    searchmoves: list[str] | None = None,
    multipv: int = 1,
    hash_mb: int = 16,
    threads: int = 1,
    on_info: InfoCallback | None = None,
) -> SearchResult:
    """Search ``board`` once with a fresh table: ``jitfish.search(board, depth=8)``."""
    limits = SearchLimits(depth=depth, movetime=movetime, nodes=nodes, mate=mate, searchmoves=searchmoves)
    if depth is None and movetime is None and nodes is None and mate is None:
        limits.depth = 8
    return Searcher(hash_mb, threads).search(board, limits, on_info=on_info, multipv=multipv)
