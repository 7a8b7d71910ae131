"""The engine's search: a transposition table, heuristics and threads, reused from move to move.

:class:`Searcher` runs one search at a time: its main thread's :class:`~jitfish.search.worker.SearchWorker`
iterates (the one loop of :meth:`SearchWorker.iterate`) and reports each depth, while the threads of
:mod:`jitfish.search.threads` watch the clock, relay the current root move and help (Lazy SMP).  The clock of
a search is one :class:`~jitfish.search.timeman.TimeController`, owned by whoever starts the search (the
engine builds one per ``go``; :meth:`Searcher.search` makes its own when given none): the searcher asks it
after each iteration whether to go on.  A soft node limit (``SearchLimits.soft_nodes``) is checked between
iterations only: no new iteration starts once the nodes so far reach it, so the search ends on a completed
iteration; ``nodes`` stays the hard limit that aborts one.  What a search is asked and answers:
:mod:`jitfish.search.results`.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import TYPE_CHECKING

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move
from jitfish.board.moves import move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.nnue.inference import KernelNetwork
from jitfish.search import buffers as B
from jitfish.search.params import INDEX, Param, check_value, checked_params, default_params
from jitfish.search.results import (
    CurrmoveCallback,
    InfoCallback,
    SearchInfo,
    SearchLimits,
    SearchResult,
    split_score,
)
from jitfish.search.threads import SearchRun, Watcher, help_search, vote
from jitfish.search.timeman import TimeController
from jitfish.search.tt import AGE_MASK, new_table, probe
from jitfish.search.tt import hashfull as _hashfull
from jitfish.search.worker import MAX_DEPTH, SearchWorker
from jitfish.syzygy import new_settings
from jitfish.syzygy.layout import PROBE_DEPTH, PROBE_HITS, PROBE_PIECES, PROBE_RULE50
from jitfish.types import INF, mate_moves

if TYPE_CHECKING:
    from jitfish.board.board import Board
    from jitfish.board.position import Position
    from jitfish.syzygy import Tablebase


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
        self._run: SearchRun | None = None  # the search in progress
        self._watcher = Watcher()
        weakref.finalize(self, self._watcher.close)
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

        The transposition table is cleared: the static evaluations it keeps are the old evaluation's.  The
        network already searched with changes nothing.
        """
        if network is self._network:
            return
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
        if index in (Param.LMR_BASE_PCT, Param.LMR_DIVISOR_PCT):
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
        legal_moves = [int(m) for m in board.position.legal_moves()]
        if limits.searchmoves:
            wanted = set(limits.searchmoves)
            allowed = [m for m in legal_moves if move_to_uci(m, chess960) in wanted or move_to_uci(m, True) in wanted]
            legal_moves = allowed or legal_moves
        if not legal_moves:
            in_check = board.is_check()
            return SearchResult(
                best_move="0000",
                ponder_move=None,
                score_cp=None if in_check else 0,
                score_mate=0 if in_check else None,
                pv=[],
                depth=0,
                seldepth=0,
                nodes=0,
                time=time.perf_counter() - started,
                score=-INF if in_check else 0,
            )

        self._age = (self._age + 1) & AGE_MASK
        node_limit = int(limits.nodes) if limits.nodes else (1 << 62)
        max_depth = min(int(limits.depth), MAX_DEPTH) if limits.depth else MAX_DEPTH
        workers = self._workers if limits.nodes is None else self._workers[:1]
        root_moves = legal_moves if limits.searchmoves else []
        for worker in workers:
            worker.prepare(board.position, self._age, node_limit, root_moves, self._tb_settings)
        run = SearchRun(
            workers=workers,
            legal_moves=legal_moves,
            max_depth=max_depth,
            limits=limits,
            multipv=max(1, min(int(multipv), len(legal_moves))),
            on_info=on_info,
            started=started,
            chess960=chess960,
            timer=timer,
        )
        timer.begin()
        self._run = run
        # A clock stopped before the search began (a stop while the engine read its book) ends the search
        # after depth 1, at ``iteration_done``; the watcher would cut that iteration short.
        if not timer.stopped:
            self._watcher.arm(run, on_currmove)
        # Helpers only for a search that has a clock running: one stopped before it began answers from
        # depth 1, and Lazy SMP helpers would only compete with that iteration for the cores (with
        # ``Threads 50`` on two cores, a held ``go`` ended by a ``stop`` took two seconds to answer).
        helpers = [
            threading.Thread(
                target=help_search, args=(w, max_depth, self._tt, self._weights, self._params), daemon=True
            )
            for w in workers[1:]
            if not timer.stopped
        ]
        for helper in helpers:
            helper.start()
        try:
            result = self._iterate(run)
        finally:
            self._run = None
            timer.finish()
            self._watcher.disarm()
            run.raise_stop_flags()
            for helper in helpers:
                helper.join()
        if helpers and run.multipv == 1 and not limits.depth and limits.mate is None:
            result = self._voted(run, result)
        result.nodes = sum(w.nodes for w in workers)
        result.tbhits = self._tb_hits(workers)
        result.time = time.perf_counter() - started
        return result

    def _tb_hits(self, workers: list[SearchWorker]) -> int | None:
        """Tablebase probes answered by ``workers`` in this search, or None when no tables are probed."""
        if not self._tb_settings[PROBE_PIECES]:
            return None
        return int(sum(w.tb_settings[PROBE_HITS] for w in workers))

    def _iterate(self, run: SearchRun) -> SearchResult:
        """The main thread's iterative deepening (:meth:`SearchWorker.iterate`), ``run.multipv`` lines per
        depth, reported as each depth completes, until a limit or the clock ends it; the result's nodes and
        time are the caller's to fill in."""
        main, chess960 = run.main, run.chess960
        restricted = run.multipv > 1 or bool(run.limits.searchmoves)
        best_score = completed_depth = seldepth = 0
        infos: list[SearchInfo] = []
        for iteration in main.iterate(
            self._tt, self._weights, self._params, run.max_depth, run.multipv, run.legal_moves if restricted else None
        ):
            completed_depth, best_score = iteration.depth, iteration.lines[0][0]
            seldepth = int(main.control[B.C_SELDEPTH])
            infos += self._report(run, iteration.depth, seldepth, iteration.lines)
            mate = mate_moves(best_score)
            if run.limits.mate is not None and mate is not None and 0 < mate <= run.limits.mate:
                break
            best_move = main.best_pv[0]
            if run.timer.iteration_done(move_to_uci(best_move, chess960), best_score, main.effort(best_move)) or (
                run.limits.soft_nodes is not None and infos[-1].nodes >= run.limits.soft_nodes
            ):
                break
        run.timer.wait_released()  # an infinite (or pondering) search does not return before its clock says
        return self._result(run, completed_depth, best_score, main.best_pv or [run.legal_moves[0]], seldepth, infos)

    def _voted(self, run: SearchRun, result: SearchResult) -> SearchResult:
        """``result`` (the main thread's), or the line of the helper that :func:`~jitfish.search.threads.vote`
        picks among every thread's last completed iteration (the engine's last ``info`` reports the line played)."""
        main = run.main
        threads = [(main, result.depth, result.score, main.best_pv)] + [
            (w, w.completed.depth, *w.completed.lines[0])
            for w in run.workers[1:]
            if w.completed is not None and w.completed.lines[0][1]
        ]
        chosen = vote([(depth, score, pv) for _, depth, score, pv in threads]) if main.best_pv else 0
        if chosen == 0:
            return result
        worker, depth, score, pv = threads[chosen]
        seldepth = int(worker.control[B.C_SELDEPTH])
        return self._result(run, depth, score, pv, seldepth, result.infos)

    def _report(
        self, run: SearchRun, depth: int, seldepth: int, lines: list[tuple[int, list[int]]]
    ) -> list[SearchInfo]:
        """The ``info`` of each of ``lines`` (score, encoded PV; best first) at ``depth``, told to ``run.on_info``."""
        elapsed = time.perf_counter() - run.started
        nodes = sum(w.nodes for w in run.workers)
        hashfull, tbhits = self.hashfull(), self._tb_hits(run.workers)
        infos = []
        for index, (score, pv) in enumerate(lines):
            cp, mate = split_score(score)
            info = SearchInfo(
                depth=depth,
                seldepth=seldepth,
                multipv=index + 1,
                score_cp=cp,
                score_mate=mate,
                bound="",
                nodes=nodes,
                time=elapsed,
                nps=int(nodes / max(elapsed, 1e-6)),
                hashfull=hashfull,
                pv=[move_to_uci(m, run.chess960) for m in pv],
                score=score,
                tbhits=tbhits,
            )
            infos.append(info)
            if run.on_info is not None:
                run.on_info(info)
        return infos

    def _result(
        self, run: SearchRun, depth: int, score: int, pv: list[int], seldepth: int, infos: list[SearchInfo]
    ) -> SearchResult:
        """The answer of a search that plays ``pv`` (a ponder move added from the table if it is one move);
        its nodes and time are the caller's to fill in."""
        chess960 = run.chess960
        best_pv = self.extend_pv(run.main.position, pv)
        cp, mate = split_score(score)
        return SearchResult(
            best_move=move_to_uci(best_pv[0], chess960),
            ponder_move=move_to_uci(best_pv[1], chess960) if len(best_pv) > 1 else None,
            score_cp=cp,
            score_mate=mate,
            pv=[move_to_uci(m, chess960) for m in best_pv],
            depth=depth,
            seldepth=seldepth,
            nodes=0,
            time=0.0,
            score=score,
            infos=infos,
        )

    def extend_pv(self, position: Position, pv: list[int]) -> list[int]:
        """``pv`` with a ponder move from the table added when it is a single move."""
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
