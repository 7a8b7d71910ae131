"""The threads of one search: the watchdog that stops the kernels, the currmove reporter, Lazy SMP helpers.

The clock of a search is one :class:`~jitfish.search.timeman.TimeController`, owned by whoever starts the
search.  The watchdog raises the stop flag of every thread's control array when the clock says the search
must end (its hard deadline passed, or ``stop()`` was called on it); the kernel polls that flag every
``POLL_NODES`` nodes, so a search stops within a few ms.  Lazy SMP helpers are Python threads running the
same (GIL-free) kernel on their own worker (a copy of the position, their own heuristics), sharing the
transposition table; the reporter relays the main thread's root move from its control array.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np

from jitfish.board.moves import move_to_uci
from jitfish.search import buffers as B
from jitfish.search.results import CurrmoveCallback, InfoCallback, SearchLimits
from jitfish.search.timeman import TimeController
from jitfish.search.worker import SearchWorker
from jitfish.types import INF

CURRMOVE_AFTER = 1.0  # seconds into a search before currmove reports start (as Stockfish)
CURRMOVE_INTERVAL = 0.25  # seconds between currmove polls


@dataclass
class SearchRun:
    """One call of :meth:`Searcher.search`: what its iterations, watchdog, reporter and helpers read."""

    workers: list[SearchWorker]  # the main thread's first
    legal_moves: list[int]  # the root moves searched (searchmoves applied), encoded
    max_depth: int
    limits: SearchLimits
    multipv: int  # lines searched, at most the number of root moves
    on_info: InfoCallback | None
    started: float  # time.perf_counter() at the call
    chess960: bool
    timer: TimeController  # the search's clock (its owner's: see the module's docstring)

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

    def report_current_moves(self, on_currmove: CurrmoveCallback, finished: threading.Event) -> None:
        """Relay the main thread's root move (read from its control array) while it searches."""
        last = 0
        delay = max(0.0, CURRMOVE_AFTER - (time.perf_counter() - self.started))
        if finished.wait(delay):
            return
        while True:
            packed = int(self.main.control[B.C_CURRMOVE])
            if packed and packed != last:
                last = packed
                on_currmove(self.main.depth, move_to_uci(packed & 0xFFFF_FFFF, self.chess960), packed >> 32)
            if finished.wait(CURRMOVE_INTERVAL):
                return


def help_search(
    worker: SearchWorker, index: int, max_depth: int, tt: np.ndarray, weights: np.ndarray, params: np.ndarray
) -> None:
    """A Lazy SMP helper (the ``index``-th): full-window iterations, odd helpers starting one ply deeper, until
    its stop flag is raised; what it finds reaches the main thread through the shared table."""
    for depth in range(1 + index % 2, max_depth + 1):
        worker.search_root(tt, weights, params, -INF, INF, depth)
        if worker.stopped:
            return
