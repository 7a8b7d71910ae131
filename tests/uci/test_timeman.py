"""Time management: soft and hard limits from the clocks (pure Python)."""

from __future__ import annotations

import pytest

from jitfish.search.params import TM_MOVES_TO_GO, default_params, params_from_dict
from jitfish.search.timeman import (
    MIN_THINK, StabilityClock, TimeLimits, ponderhit_limits, time_limits,
)


def test_even_share_of_the_clock_without_increment():
    limits = time_limits(60_000, 0, None, 0)
    assert limits.soft == pytest.approx(60 / default_params()[TM_MOVES_TO_GO])
    assert limits.soft < limits.hard <= 60 * 0.4


def test_time_factors_come_from_the_parameter_array():
    params = params_from_dict({"TM_MOVES_TO_GO": 20, "TM_HARD_TO_SOFT_PCT": 250, "TM_MAX_CLOCK_PCT": 50},
                              base=default_params())
    assert time_limits(60_000, 0, None, 0, params) == TimeLimits(soft=3.0, hard=7.5)
    assert time_limits(60_000, 0, None, 0) == TimeLimits(soft=2.0, hard=8.0)
    stable = params_from_dict({"TM_STABLE_ITERATIONS_1": 1, "TM_STABLE_SCALE_1_PCT": 50}, base=default_params())
    clock = StabilityClock(1.0, stable)
    assert not clock.after_iteration("e2e4", 0.45)
    assert clock.after_iteration("e2e4", 0.55)   # unchanged once: stop at half the soft limit


def test_increment_adds_time():
    assert time_limits(10_000, 1_000, None, 0).soft > time_limits(10_000, 0, None, 0).soft


def test_move_overhead_is_kept_off_the_clock():
    with_overhead = time_limits(1_000, 0, None, 500)
    assert with_overhead.hard <= 0.5 * 0.4 + 1e-9
    assert with_overhead.soft < time_limits(1_000, 0, None, 0).soft


@pytest.mark.parametrize("time_left, inc, mtg, overhead", [
    (1_000, 10, None, 30), (100, 0, None, 30), (50, 0, 1, 10), (10, 10, None, 30), (0, 0, None, 30),
    (-500, 0, None, 30), (300_000, 3_000, 40, 30), (5_000, 0, 1, 30), (2_000, 5_000, None, 30),
])
def test_hard_limit_never_exceeds_the_clock(time_left, inc, mtg, overhead):
    limits = time_limits(time_left, inc, mtg, overhead)
    available = max(time_left - overhead, 0) / 1000
    assert MIN_THINK <= limits.soft <= limits.hard
    assert limits.hard <= max(available, MIN_THINK)


def test_movestogo_one_may_use_most_of_the_clock():
    last = time_limits(5_000, 0, 1, 0)
    assert last.hard == pytest.approx(4.0)
    assert time_limits(5_000, 0, 10, 0).soft == pytest.approx(0.5)


def test_huge_movestogo_is_capped():
    assert time_limits(100_000, 0, 1000, 0).soft == pytest.approx(2.0)


def test_tiny_clock_gives_a_positive_but_tiny_limit():
    limits = time_limits(20, 0, None, 30)
    assert limits.soft == MIN_THINK and limits.hard == MIN_THINK


def test_ponderhit_counts_pondering_against_soft_only():
    limits = TimeLimits(soft=1.0, hard=4.0)
    after = ponderhit_limits(limits, 0.6)
    assert after.soft == pytest.approx(0.4) and after.hard == 4.0
    assert ponderhit_limits(limits, 10.0).soft == pytest.approx(0.25)


def test_stable_best_move_stops_early():
    clock = StabilityClock(soft=1.0)
    assert not clock.after_iteration("e2e4", 0.1)
    assert not clock.after_iteration("e2e4", 0.5)
    assert not clock.after_iteration("e2e4", 0.55)
    assert clock.after_iteration("e2e4", 0.65)  # three repeats: stop at 0.6 of soft


def test_changing_best_move_uses_the_whole_soft_limit():
    clock = StabilityClock(soft=1.0)
    for index, move in enumerate(["e2e4", "d2d4", "e2e4", "g1f3"]):
        assert not clock.after_iteration(move, 0.2 * index)
    assert not clock.after_iteration("c2c4", 0.95)
    assert clock.after_iteration("d2d4", 1.0)
