"""Time management: how long to think about one move, from the clocks of ``go``.

Two limits come out of the clocks, both in seconds from the start of the search:

* the *soft* limit, an ideal time: no new iteration starts after it, scaled
  after each iteration by how settled the search is (:class:`StopRule`: the
  best move's stability, its share of the nodes, the score's trend);
* the *hard* limit, a ceiling: the search is aborted when it is reached.

The time the game still offers (the clock plus the increments of the moves to
go) is spread over those moves, after keeping back the Move Overhead once for
each of them, as Stockfish does: every move costs that much outside the search
(the pipe, the GUI, Python), so a low clock means thinking almost nothing and
living on the increment.  The hard limit is a few ideal shares but never more
than a fraction of the clock, so one long iteration cannot lose the game.

:class:`TimeController` is the one owner of a search's clock: it turns those
limits into deadlines, holds them back while pondering, moves them at
``ponderhit``, and decides after each iteration whether to go on.  The
searcher asks it; the engine builds it from ``go``.

The factors (moves to go, the hard limit's share of the clock, the scaling
of the soft limit) are slots of the search parameter array
(``TM_*`` in :mod:`jitfish.search.params`), so a tuner can move them; every
function here takes that array as ``params`` (default: the shipped values).

Pure Python, no kernels: unit-tested in ``tests/uci/test_timeman.py`` and
``tests/search/test_time_controller.py`` (with an injected clock).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jitfish.search.params import Param, default_params

# The tunable factors are in the parameter array (TM_* slots): moves the rest of
# the game is assumed to last without ``movestogo``; the hard limit's ceilings,
# in ideal times and as a share of the clock (the last move before a time control
# may use more, the clock is refilled after it); the early stop on a best move
# unchanged over a number of iterations.  The fixed rules follow.
# ``movestogo`` above this is treated as this (long controls ask for even shares).
MAX_MOVES_TO_GO = 50
# Move Overheads kept back beyond one per move to go.
OVERHEAD_RESERVE_MOVES = 2
# Whatever the clock says, allow at least this much (a legal move must come out).
MIN_THINK = 0.001
# After a ponderhit the pondering time counts, but the soft limit is at least this share of its full value.
PONDERHIT_MIN_SHARE = 0.25
# The effort and trend factors of StopRule stay within these.
EFFORT_RANGE = (0.5, 2.0)
TREND_RANGE = (0.75, 1.5)
# A deadline already past when the search starts is put this far after the
# start: the search then finishes depth 1 and plays a searched move.
MIN_SEARCH_TIME = 0.0005
# The watchdog sleeps at most this long at a time: a deadline years away (``go movetime 4611686018427387904``)
# is past what the platform's clock can wait for in one call.
LONGEST_WAIT_S = 3600.0


@dataclass(frozen=True)
class TimeLimits:
    """Seconds from the start of the search."""

    soft: float
    hard: float


def _share(params: np.ndarray, slot: int) -> float:
    """A factor stored in hundredths."""
    return int(params[slot]) / 100


def time_limits(
    time_left_ms: int,
    increment_ms: int = 0,
    moves_to_go: int | None = None,
    move_overhead_ms: int = 0,
    params: np.ndarray | None = None,
) -> TimeLimits:
    """The soft and hard limits for one move.

    ``time_left_ms`` may be zero or negative (some GUIs report an overdrawn
    clock): the limits are then the minimum, and the engine still answers.

    >>> time_limits(60_000, 0, None, 0)
    TimeLimits(soft=2.0, hard=8.0)
    """
    params = default_params() if params is None else params
    time_left = max(time_left_ms, 0) / 1000.0
    increment = max(increment_ms, 0) / 1000.0
    overhead = max(move_overhead_ms, 0) / 1000.0
    available = max(time_left - overhead, 0.0)
    if moves_to_go is not None and moves_to_go > 0:
        moves = min(moves_to_go, MAX_MOVES_TO_GO)
    else:
        moves = int(params[Param.TM_MOVES_TO_GO])
    fraction = _share(params, Param.TM_LAST_MOVE_CLOCK_PCT if moves == 1 else Param.TM_MAX_CLOCK_PCT)
    ceiling = available * fraction
    budget = time_left + increment * (moves - 1) - overhead * (moves + OVERHEAD_RESERVE_MOVES)
    ideal = max(budget, 0.0) / moves
    hard = max(min(ideal * _share(params, Param.TM_HARD_TO_SOFT_PCT), ceiling), MIN_THINK)
    soft = max(min(ideal, hard), MIN_THINK)
    return TimeLimits(soft=round(soft, 6), hard=round(hard, 6))


def ponderhit_limits(limits: TimeLimits, pondered: float) -> TimeLimits:
    """Limits from the moment of ``ponderhit``, ``pondered`` seconds after ``go ponder``.

    The clock did not run while pondering, so the hard limit stays whole; the
    soft limit counts the pondering (the search already went deep), down to a
    floor.
    """
    soft = max(limits.soft - pondered, limits.soft * PONDERHIT_MIN_SHARE)
    return TimeLimits(soft=round(min(soft, limits.hard), 6), hard=limits.hard)


class StopRule:
    """Decides after each iteration whether to start another: past the soft limit times a scale.

    The scale is how unsettled the search still is, as the product of three factors:

    * stability: a best move that just changed asks for more time
      (``TM_UNSTABLE_PCT``); each iteration it survives takes
      ``TM_STABLE_STEP_PCT`` off, down to ``TM_STABLE_FLOOR_PCT``;
    * effort: when nearly all of the root's nodes went under the best move,
      no rival came close enough to need a deep look, so less time; when the
      nodes were spread, more (``TM_EFFORT_BASE_PCT - TM_EFFORT_SLOPE_PCT *
      share``, within ``EFFORT_RANGE``);
    * trend: a score that fell over the last two iterations means the search
      has just found trouble, so more time (one soft limit more per
      ``TM_SCORE_DROP_CP`` of fall), and a rising one less (within ``TREND_RANGE``).

    The scale is at most ``TM_MAX_SCALE_PCT``: beyond it the hard limit
    would cut the next iteration short anyway.
    """

    def __init__(self, soft: float, params: np.ndarray | None = None) -> None:
        params = default_params() if params is None else params
        self.soft = soft
        self._unstable = _share(params, Param.TM_UNSTABLE_PCT)
        self._step = _share(params, Param.TM_STABLE_STEP_PCT)
        self._floor = _share(params, Param.TM_STABLE_FLOOR_PCT)
        self._effort_base = _share(params, Param.TM_EFFORT_BASE_PCT)
        self._effort_slope = _share(params, Param.TM_EFFORT_SLOPE_PCT)
        self._drop_cp = int(params[Param.TM_SCORE_DROP_CP])
        self._max_scale = _share(params, Param.TM_MAX_SCALE_PCT)
        self.best_move: str | None = None
        self.stable_iterations = 0
        self.scores: list[int] = []

    def scale(self, effort: float | None = None) -> float:
        """The factor of the soft limit after which to stop; ``effort``: the best move's share of the
        root's nodes (None: unknown, no factor)."""
        scale = max(self._floor, self._unstable - self._step * self.stable_iterations)
        if effort is not None:
            scale *= _clamp(self._effort_base - self._effort_slope * effort, EFFORT_RANGE)
        if len(self.scores) > 2:
            scale *= _clamp(1 + (self.scores[-3] - self.scores[-1]) / self._drop_cp, TREND_RANGE)
        return min(scale, self._max_scale)

    def after_iteration(self, best_move: str, elapsed: float, score: int = 0, effort: float | None = None) -> bool:
        """Record an iteration's best move and score; ``True`` when the search should stop now."""
        if best_move == self.best_move:
            self.stable_iterations += 1
        else:
            self.best_move = best_move
            self.stable_iterations = 0
        self.scores.append(score)
        return elapsed >= self.soft * self.scale(effort)


def _clamp(value: float, bounds: tuple[float, float]) -> float:
    return min(max(value, bounds[0]), bounds[1])


def go_limits(
    time_left_ms: int | None,
    increment_ms: int,
    moves_to_go: int | None,
    movetime_ms: int | None,
    move_overhead_ms: int,
    params: np.ndarray | None = None,
) -> TimeLimits | None:
    """The limits of a ``go`` from the side to move's clock and ``movetime`` (less Move Overhead);
    ``None`` when neither is given."""
    limits = None
    if time_left_ms is not None:
        limits = time_limits(time_left_ms, increment_ms, moves_to_go, move_overhead_ms, params)
    if movetime_ms is not None:
        movetime = max(movetime_ms - move_overhead_ms, 1) / 1000.0
        limits = (
            TimeLimits(soft=movetime, hard=movetime)
            if limits is None
            else TimeLimits(soft=min(limits.soft, movetime), hard=min(limits.hard, movetime))
        )
    return limits


class TimeController:
    """The clock of one search: deadlines, pondering, ``stop``, and the scaled soft limit (:class:`StopRule`).

    ``budget`` counts from ``origin`` (when ``go`` arrived; by default, now);
    ``movetime`` caps the search itself, counted from :meth:`begin`.  While
    ``pondering`` (``go ponder``, ``go infinite``) the budget does not run and
    the search does not return before :meth:`ponderhit` or :meth:`stop`.
    Times are readings of ``clock`` (``time.perf_counter``; tests inject their own).

    Thread use: the protocol calls ``stop`` and ``ponderhit``; the search
    thread ``begin``, ``iteration_done``, ``finish`` and ``wait_released``; the
    searcher's watchdog ``wait_for_stop``.
    """

    def __init__(
        self,
        budget: TimeLimits | None = None,
        *,
        origin: float | None = None,
        movetime: float | None = None,
        pondering: bool = False,
        scale_soft: bool = False,
        clock: Callable[[], float] = time.perf_counter,
        params: np.ndarray | None = None,
    ) -> None:
        self.budget = budget
        self._params = params
        self.movetime = movetime
        self._clock = clock
        self._origin = clock() if origin is None else origin
        self._scale_soft = scale_soft
        self._stop_rule: StopRule | None = None
        self._changed = threading.Condition()  # re-entrant: ponderhit calls release
        self.pondering = pondering
        self.stopped = False
        self.finished = False
        self.started = self._origin
        self.soft_deadline: float | None = None
        self.hard_deadline: float | None = None

    @classmethod
    def for_go(
        cls,
        time_left_ms: int | None = None,
        increment_ms: int = 0,
        moves_to_go: int | None = None,
        movetime_ms: int | None = None,
        move_overhead_ms: int = 0,
        pondering: bool = False,
        origin: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        params: np.ndarray | None = None,
    ) -> TimeController:
        """The controller of a ``go`` (times in milliseconds, as sent).

        ``movetime`` also caps the search from its start, even while pondering;
        the scaled soft limit applies to clock searches only.
        """
        budget = go_limits(time_left_ms, increment_ms, moves_to_go, movetime_ms, move_overhead_ms, params)
        movetime = budget.hard if movetime_ms is not None else None
        return cls(
            budget,
            origin=origin,
            movetime=movetime,
            pondering=pondering,
            scale_soft=movetime_ms is None,
            clock=clock,
            params=params,
        )

    # --- the search thread ----------------------------------------------
    def begin(self) -> None:
        """The search starts now: set the deadlines (the budget's only when not pondering)."""
        with self._changed:
            now = self._clock()
            self.started = now
            if self.budget is not None and not self.pondering:
                self.soft_deadline = max(self._origin + self.budget.soft, now + MIN_SEARCH_TIME)
                self.hard_deadline = max(self._origin + self.budget.hard, now + MIN_SEARCH_TIME)
                if self._scale_soft:
                    self._stop_rule = StopRule(self.soft_deadline - now, self._params)
            if self.movetime is not None:
                self.hard_deadline = now + self.movetime
            self._changed.notify_all()

    def iteration_done(self, best_move: str, score: int = 0, effort: float | None = None) -> bool:
        """Record an iteration's best move, its score and its share of the root's nodes (``effort``);
        ``True`` when no new iteration should start."""
        with self._changed:
            if self.stopped:
                return True
            now = self._clock()
            if self._stop_rule is not None:
                return self._stop_rule.after_iteration(best_move, now - self.started, score, effort)
            return self.soft_deadline is not None and now >= self.soft_deadline

    def finish(self) -> None:
        """The search has ended: the watchdog may go."""
        with self._changed:
            self.finished = True
            self._changed.notify_all()

    def wait_released(self) -> None:
        """Block while pondering: ``go ponder`` and ``go infinite`` answer after ``ponderhit`` or ``stop``."""
        with self._changed:
            while self.pondering and not self.stopped:
                self._changed.wait()

    def wait_for_stop(self, timeout: float | None = None) -> bool | None:
        """Block until the search must stop, its hard deadline passed or :meth:`stop` called (``True``),
        until it ends by itself (``False``), or for at most ``timeout`` seconds (``None``)."""
        with self._changed:
            until = None if timeout is None else self._clock() + timeout
            while not self.finished:
                now = self._clock()
                deadline = self.hard_deadline
                if self.stopped or (deadline is not None and now >= deadline):
                    return True
                if until is not None and now >= until:
                    return None
                wait = min(t - now for t in (deadline, until, now + LONGEST_WAIT_S) if t is not None)
                self._changed.wait(wait)
            return False

    # --- the protocol thread --------------------------------------------
    def stop(self) -> None:
        with self._changed:
            self.stopped = True
            self._changed.notify_all()

    def ponderhit(self) -> TimeLimits | None:
        """The pondered move was played: the budget runs from now, less what pondering already used
        (see :func:`ponderhit_limits`).  The new limits, or ``None`` when not pondering or without a clock."""
        with self._changed:
            if not self.pondering or self.stopped:
                return None
            limits = None if self.budget is None else ponderhit_limits(self.budget, self._clock() - self._origin)
            self.release(*((limits.soft, limits.hard) if limits is not None else (None, None)))
            return limits

    def release(self, soft: float | None, hard: float | None) -> None:
        """End pondering with deadlines ``soft`` and ``hard`` seconds from now (``None``: no deadline)."""
        with self._changed:
            now = self._clock()
            self.soft_deadline = None if soft is None else now + soft
            self.hard_deadline = None if hard is None else now + hard
            self.pondering = False
            self._changed.notify_all()
