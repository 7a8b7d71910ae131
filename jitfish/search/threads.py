"""The threads beside a search: the watcher that stops the kernels and reports the root move, Lazy SMP helpers.

The clock of a search is one :class:`~jitfish.search.timeman.TimeController`, owned by whoever starts the
search.  The watcher raises the stop flag of every thread's control array when the clock says the search
must end (its hard deadline passed, or ``stop()`` was called on it); the kernel polls that flag every
``POLL_NODES`` nodes, so a search stops within a few ms.  It also relays the main thread's root move from
its control array (UCI's ``currmove``).  It is one thread for the searcher's life, armed by each search and
disarmed after it, which the search never waits for.  Lazy SMP helpers are Python threads running the
same (GIL-free) kernel on their own worker (a copy of the position, their own heuristics), sharing the
transposition table; once all threads stop, :func:`vote` picks the line played among their last
completed iterations.
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
from jitfish.types import TB_WIN_BOUND

CURRMOVE_AFTER = 1.0  # seconds into a search before currmove reports start (as Stockfish)
CURRMOVE_INTERVAL = 0.25  # seconds between currmove polls


@dataclass
class SearchRun:
    """One call of :meth:`Searcher.search`: what its iterations, the watcher and the helpers read."""

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


class Watcher:
    """The searcher's watchdog and ``currmove`` reporter: one thread, started by the first search that arms
    it and kept.  A search :meth:`arm` s it after its clock began and :meth:`disarm` s it once the clock
    finished; neither waits for the thread (starting and joining one for each search cost the search
    thread up to four scheduler wake-ups a move, milliseconds each on a busy machine), and once
    :meth:`disarm` returns, nothing more is stopped or reported for that search."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._run: SearchRun | None = None  # the search watched, None between searches
        self._on_currmove: CurrmoveCallback | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def arm(self, run: SearchRun, on_currmove: CurrmoveCallback | None) -> None:
        """Watch ``run`` (its clock begun): stop its kernels when the clock says so, and from
        ``CURRMOVE_AFTER`` seconds into it relay its root move to ``on_currmove`` if given."""
        with self._changed:
            self._run, self._on_currmove = run, on_currmove
            self._changed.notify_all()
            if self._thread is None or not self._thread.is_alive():  # none yet, or left behind by a fork
                self._thread = threading.Thread(target=self._serve, daemon=True, name="jitfish-watcher")
                self._thread.start()

    def disarm(self) -> None:
        """The search watched has ended (its clock finished): leave it."""
        with self._changed:
            self._run = None
            self._changed.notify_all()

    def close(self) -> None:
        """Let the thread end (the searcher is gone)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def _serve(self) -> None:
        while True:
            with self._changed:
                while self._run is None and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                run, on_currmove = self._run, self._on_currmove
            self._watch(run, on_currmove)
            with self._changed:
                while self._run is run:  # stopped, it waits for the search to end
                    self._changed.wait()

    def _watch(self, run: SearchRun, on_currmove: CurrmoveCallback | None) -> None:
        last = 0
        report_at = run.started + CURRMOVE_AFTER
        while True:
            timeout = None if on_currmove is None else max(0.0, report_at - time.perf_counter())
            verdict = run.timer.wait_for_stop(timeout)
            if verdict is False:
                return
            with self._changed:
                if self._run is not run:
                    return
                if verdict:
                    run.raise_stop_flags()
                    return
                packed = int(run.main.control[B.C_CURRMOVE])
                if packed and packed != last and on_currmove is not None:
                    last = packed
                    on_currmove(run.main.depth, move_to_uci(packed & 0xFFFF_FFFF, run.chess960), packed >> 32)
            report_at = time.perf_counter() + CURRMOVE_INTERVAL


def help_search(worker: SearchWorker, max_depth: int, tt: np.ndarray, weights: np.ndarray, params: np.ndarray) -> None:
    """A Lazy SMP helper: the main thread's iterative deepening, aspiration windows included, on its own
    worker, until its stop flag is raised; what it finds reaches the main thread through the shared table,
    and its last completed iteration (``worker.completed``) takes part in :func:`vote`."""
    for _ in worker.iterate(tt, weights, params, max_depth):
        pass


VOTE_FLOOR = 14  # Stockfish's: the thread with the lowest score still votes with this weight a ply


def vote(lines: list[tuple[int, int, list[int]]]) -> int:
    """Which thread's line to play: the index in ``lines``, one ``(depth, score, pv)`` a thread (its last
    completed iteration; the main thread's first, each ``pv`` non-empty).

    Stockfish's vote: each thread gives its first move ``(score - lowest score + VOTE_FLOOR) * depth``
    votes, and the line played is the one whose move has the most votes; where two moves have as many,
    the thread with the larger weight of its own wins if its line is longer than two moves.  Proven
    results come first: once a line mates (or wins by the tables), only a faster win replaces it; a thread
    that proves its position lost replaces any line that is not itself a proven win (as the threads share
    one table, it saw further), and among proven losses the longest defence is played.
    """
    lowest = min(score for _, score, _ in lines)
    weights = [(score - lowest + VOTE_FLOOR) * depth for depth, score, _ in lines]
    votes: dict[int, int] = {}
    for weight, (_, _, pv) in zip(weights, lines):
        votes[pv[0]] = votes.get(pv[0], 0) + weight

    def weight_if_long(index: int) -> int:
        return weights[index] if len(lines[index][2]) > 2 else 0

    best = 0
    for index, (_, score, pv) in enumerate(lines):
        best_score, best_move = lines[best][1], lines[best][2][0]
        if best_score >= TB_WIN_BOUND:
            better = score > best_score
        elif best_score <= -TB_WIN_BOUND:
            better = -TB_WIN_BOUND >= score > best_score
        elif abs(score) >= TB_WIN_BOUND:
            better = True
        else:
            better = votes[pv[0]] > votes[best_move] or (
                votes[pv[0]] == votes[best_move] and weight_if_long(index) > weight_if_long(best)
            )
        if better:
            best = index
    return best
