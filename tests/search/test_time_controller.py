"""The time controller: deadlines from the clocks of ``go``, pondering, stop and the stable-move stop.

Every test drives an injected clock, so nothing here depends on how fast the machine is.
"""

from __future__ import annotations

import threading

import pytest

from jitfish.search.timeman import (
    MIN_SEARCH_TIME,
    TimeController,
    TimeLimits,
    ponderhit_limits,
    time_limits,
)

GO_AT = 100.0  # when go arrived, on the fake clock


class FakeClock:
    def __init__(self, now: float = GO_AT) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def timer_for(clock: FakeClock, **go) -> TimeController:
    return TimeController.for_go(origin=GO_AT, clock=clock, **go)


def test_clock_deadlines_count_from_when_go_arrived(clock):
    timer = timer_for(clock, time_left_ms=60_000, increment_ms=1_000, moves_to_go=20, move_overhead_ms=30)
    expected = time_limits(60_000, 1_000, 20, 30)
    assert timer.budget == expected
    clock.advance(0.004)  # the search starts a little after go arrived
    timer.begin()
    assert timer.soft_deadline == pytest.approx(GO_AT + expected.soft)
    assert timer.hard_deadline == pytest.approx(GO_AT + expected.hard)


def test_movetime_less_overhead_is_the_soft_limit_and_caps_the_search_from_its_start(clock):
    timer = timer_for(clock, movetime_ms=1_000, move_overhead_ms=20)
    assert timer.budget == TimeLimits(soft=0.98, hard=0.98)
    clock.advance(0.004)
    timer.begin()
    assert timer.soft_deadline == pytest.approx(GO_AT + 0.98)
    assert timer.hard_deadline == pytest.approx(GO_AT + 0.004 + 0.98)


def test_movetime_and_clock_take_the_smaller_of_each_limit(clock):
    timer = timer_for(clock, time_left_ms=10_000, movetime_ms=5_000)
    clock_only = time_limits(10_000, 0, None, 0)
    assert timer.budget == TimeLimits(soft=clock_only.soft, hard=clock_only.hard)
    timer = timer_for(clock, time_left_ms=10_000, movetime_ms=200)
    assert timer.budget == TimeLimits(soft=0.2, hard=0.2)


def test_without_clock_or_movetime_there_is_no_deadline(clock):
    timer = timer_for(clock)
    timer.begin()
    assert timer.budget is None and timer.soft_deadline is None and timer.hard_deadline is None
    clock.advance(1e6)
    assert not timer.iteration_done("e2e4")


def test_a_clock_spent_before_the_search_began_still_allows_a_moment(clock):
    timer = timer_for(clock, time_left_ms=50)
    clock.advance(1.0)  # a slow start: both deadlines are already past
    timer.begin()
    assert timer.soft_deadline == timer.hard_deadline == pytest.approx(clock.now + MIN_SEARCH_TIME)


def test_soft_deadline_ends_the_search_after_an_iteration(clock):
    timer = timer_for(clock, movetime_ms=500)
    timer.begin()
    assert not timer.iteration_done("e2e4")
    clock.advance(0.5)
    assert timer.iteration_done("e2e4")


def test_hard_deadline_is_reported_once_passed(clock):
    timer = timer_for(clock, movetime_ms=500)
    timer.begin()
    clock.advance(0.6)
    assert timer.wait_for_stop()


def test_stop_ends_the_search_and_wakes_the_watchdog_before_the_deadline(clock):
    timer = timer_for(clock, time_left_ms=60_000)
    timer.begin()
    timer.stop()
    assert timer.iteration_done("e2e4")
    assert timer.wait_for_stop()  # the watchdog stops the kernels
    timer.wait_released()  # returns at once: not pondering


def test_a_search_that_ends_by_itself_releases_the_watchdog(clock):
    timer = timer_for(clock, time_left_ms=60_000)
    timer.begin()
    timer.finish()
    assert not timer.wait_for_stop()


def test_the_watchdog_may_wait_for_a_while_only(clock):
    """``wait_for_stop(timeout)`` answers None when the time is up and neither a stop nor the end came."""
    timer = timer_for(clock, time_left_ms=60_000)
    timer.begin()
    assert timer.wait_for_stop(0.0) is None
    timer.stop()
    assert timer.wait_for_stop(0.0) is True
    timer.finish()
    assert timer.wait_for_stop(0.0) is False


def test_pondering_runs_no_clock_until_ponderhit(clock):
    timer = timer_for(clock, time_left_ms=2_000, pondering=True)
    budget = timer.budget
    clock.advance(0.01)
    timer.begin()
    assert timer.soft_deadline is None and timer.hard_deadline is None
    clock.advance(5.0)
    assert not timer.iteration_done("e2e4")
    limits = timer.ponderhit()
    assert limits == ponderhit_limits(budget, clock.now - GO_AT)
    assert timer.soft_deadline == pytest.approx(clock.now + limits.soft)
    assert timer.hard_deadline == pytest.approx(clock.now + limits.hard)
    assert not timer.pondering
    assert timer.ponderhit() is None  # only the first ponderhit counts


def test_ponderhit_counts_the_pondering_against_the_soft_limit_only(clock):
    timer = timer_for(clock, time_left_ms=30_000, pondering=True)
    budget = timer.budget
    timer.begin()
    clock.advance(budget.soft / 2)
    limits = timer.ponderhit()
    assert limits.soft == pytest.approx(budget.soft / 2) and limits.hard == budget.hard


def test_ponderhit_without_a_clock_releases_the_search_with_no_deadline(clock):
    timer = timer_for(clock, pondering=True)
    timer.begin()
    assert timer.ponderhit() is None
    assert not timer.pondering and timer.soft_deadline is None and timer.hard_deadline is None


def test_ponderhit_after_stop_is_ignored(clock):
    timer = timer_for(clock, time_left_ms=2_000, pondering=True)
    timer.begin()
    timer.stop()
    assert timer.ponderhit() is None and timer.soft_deadline is None


def test_movetime_caps_even_a_pondering_search(clock):
    timer = timer_for(clock, movetime_ms=300, pondering=True)
    timer.begin()
    assert timer.soft_deadline is None and timer.hard_deadline == pytest.approx(GO_AT + 0.3)


def test_a_pondering_search_is_released_by_stop():
    timer = TimeController(pondering=True)
    waiter = threading.Thread(target=timer.wait_released)
    waiter.start()
    timer.stop()
    waiter.join(10)
    assert not waiter.is_alive()


def test_stable_best_move_stops_a_clock_search_early(clock):
    timer = timer_for(clock, time_left_ms=30_000)  # soft limit 1 s
    assert timer.budget.soft == pytest.approx(1.0)
    timer.begin()
    for elapsed in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6):
        clock.now = GO_AT + elapsed
        assert not timer.iteration_done("e2e4")
    clock.now = GO_AT + 0.7  # the sixth repeat: stop at 0.65 of the soft limit
    assert timer.iteration_done("e2e4")


def test_changing_best_move_goes_past_the_soft_limit(clock):
    timer = timer_for(clock, time_left_ms=30_000)
    timer.begin()
    for elapsed, move in ((0.2, "e2e4"), (0.4, "d2d4"), (0.6, "e2e4"), (0.8, "g1f3"), (1.2, "c2c4")):
        clock.now = GO_AT + elapsed
        assert not timer.iteration_done(move)
    clock.now = GO_AT + 1.3  # 1.25 soft limits for a best move that just changed
    assert timer.iteration_done("d2d4")


def test_the_best_moves_effort_reaches_the_stop_rule(clock):
    timer = timer_for(clock, time_left_ms=30_000)
    timer.begin()
    clock.now = GO_AT + 0.7
    assert not timer.iteration_done("e2e4", 0, 0.5)  # 1.25 * (2 - 1.5 * 0.5)
    assert timer.iteration_done("e2e4", 0, 0.95)  # 1.15 * 0.575


@pytest.mark.parametrize("go", [dict(movetime_ms=1_000), dict(time_left_ms=30_000, pondering=True)])
def test_movetime_and_pondered_searches_never_stop_for_stability(clock, go):
    timer = timer_for(clock, **go)
    timer.begin()
    timer.ponderhit()
    for elapsed in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        clock.now = GO_AT + elapsed
        assert not timer.iteration_done("e2e4")


def test_release_sets_deadlines_from_now(clock):
    timer = TimeController(pondering=True, clock=clock)
    timer.begin()
    clock.advance(2.0)
    timer.release(0.1, 0.2)
    assert not timer.pondering
    assert timer.soft_deadline == pytest.approx(clock.now + 0.1)
    assert timer.hard_deadline == pytest.approx(clock.now + 0.2)
