"""Time management: soft and hard limits from the clocks (pure Python)."""

from __future__ import annotations

import pytest

from jitfish.search.params import Param, default_params, params_from_dict
from jitfish.search.timeman import (
    MIN_THINK,
    StopRule,
    TimeLimits,
    ponderhit_limits,
    time_limits,
)


def test_even_share_of_the_clock_without_increment():
    limits = time_limits(60_000, 0, None, 0)
    assert limits.soft == pytest.approx(60 / default_params()[Param.TM_MOVES_TO_GO])
    assert limits.soft < limits.hard <= 60 * 0.4


def test_time_factors_come_from_the_parameter_array():
    params = params_from_dict(
        {"TM_MOVES_TO_GO": 20, "TM_HARD_TO_SOFT_PCT": 250, "TM_MAX_CLOCK_PCT": 50}, base=default_params()
    )
    assert time_limits(60_000, 0, None, 0, params) == TimeLimits(soft=3.0, hard=7.5)
    assert time_limits(60_000, 0, None, 0) == TimeLimits(soft=2.0, hard=8.0)
    stable = params_from_dict({"TM_UNSTABLE_PCT": 100, "TM_STABLE_STEP_PCT": 40}, base=default_params())
    rule = StopRule(1.0, stable)
    assert not rule.after_iteration("e2e4", 0.55)
    assert rule.after_iteration("e2e4", 0.65)  # unchanged once: stop at 0.6 of the soft limit


# Worked by hand from the formula in jitfish/search/timeman.py with the shipped factors (30 moves to go;
# the hard limit 4 ideal shares, capped at 0.4 of the clock less Move Overhead, 0.8 for the last move):
#   budget = clock + increment * (moves - 1) - overhead * (moves + 2),  soft = budget / moves.
HAND_WORKED = [
    # clock, increment, movestogo, overhead (ms)   soft, hard (s)
    ((60_000, 0, None, 0), 2.0, 8.0),  # 60 / 30; 4 * 2 = 8 < 24
    ((30_000, 2_000, None, 0), 2.933333, 11.733333),  # (30 + 2 * 29) / 30 = 88 / 30; 4x < 12
    ((90_000, 500, None, 0), 3.483333, 13.933333),  # (90 + 0.5 * 29) / 30 = 104.5 / 30; 4x < 36
    ((10_000, 0, None, 100), 0.226667, 0.906667),  # (10 - 0.1 * 32) / 30 = 6.8 / 30; 4x < 0.4 * 9.9
    ((2_000, 3_000, None, 0), 0.8, 0.8),  # (2 + 87) / 30 = 2.97, but both capped at 0.4 * 2
    ((5_000, 0, 1, 50), 3.96, 3.96),  # last move: 5 - 0.05 * 3 = 4.85, capped at 0.8 * 4.95
    ((20_000, 1_000, 10, 0), 2.9, 8.0),  # (20 + 1 * 9) / 10; 4x = 11.6 capped at 0.4 * 20
    ((100_000, 0, 1000, 0), 2.0, 8.0),  # movestogo capped at 50: 100 / 50; 4x < 40
]


@pytest.mark.parametrize("args, soft, hard", HAND_WORKED)
def test_limits_are_the_hand_worked_values(args, soft, hard):
    assert time_limits(*args) == TimeLimits(soft=soft, hard=hard), f"time_limits{args}"


@pytest.mark.parametrize(
    "time_left, inc, mtg, overhead",
    [
        (1_000, 10, None, 30),
        (100, 0, None, 30),
        (50, 0, 1, 10),
        (10, 10, None, 30),
        (0, 0, None, 30),
        (-500, 0, None, 30),
        (300_000, 3_000, 40, 30),
        (5_000, 0, 1, 30),
        (2_000, 5_000, None, 30),
    ],
)
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


# The shipped factors: 1.25 of the soft limit for a new best move, 0.1 less per iteration it stays, down to
# 0.65; times 2 - 1.5 * (its share of the root's nodes), within [0.5, 2]; times 1 + (fall over two
# iterations) / 100 cp, within [0.75, 1.5]; at most 2 in all.
def test_a_stable_best_move_stops_sooner_each_iteration():
    rule = StopRule(soft=1.0)
    for scale in (1.25, 1.15, 1.05, 0.95, 0.85, 0.75, 0.65, 0.65):
        assert not rule.after_iteration("e2e4", 0.0)
        assert rule.scale() == pytest.approx(scale)
    assert not rule.after_iteration("e2e4", 0.6)
    assert rule.after_iteration("e2e4", 0.7)


def test_a_new_best_move_resets_the_scale():
    rule = StopRule(soft=1.0)
    for index, move in enumerate(["e2e4", "e2e4", "e2e4", "d2d4"]):
        rule.after_iteration(move, 0.1 * index)
    assert rule.stable_iterations == 0 and rule.scale() == pytest.approx(1.25)
    assert not rule.after_iteration("c2c4", 1.2)  # past the soft limit, but the move keeps changing
    assert rule.after_iteration("c2c4", 1.2)


@pytest.mark.parametrize("share, factor", [(1.0, 0.5), (0.9, 0.65), (0.6, 1.1), (0.2, 1.7), (0.0, 2.0)])
def test_the_best_moves_share_of_the_nodes_scales_the_limit(share, factor):
    rule = StopRule(soft=1.0)
    for _ in range(4):
        rule.after_iteration("e2e4", 0.0)
    assert rule.scale(share) == pytest.approx(0.95 * factor)
    assert rule.scale(None) == pytest.approx(0.95)


@pytest.mark.parametrize(
    "scores, factor",
    [((30, 30, 30), 1.0), ((30, 20, 0), 1.3), ((30, 0, -170), 1.5), ((0, 10, 20), 0.8), ((0, 100, 200), 0.75)],
)
def test_a_falling_score_asks_for_more_time(scores, factor):
    rule = StopRule(soft=1.0)
    for score in scores:
        rule.after_iteration("e2e4", 0.0, score)
    assert rule.scale() == pytest.approx(1.05 * factor)


def test_the_scale_is_capped():
    rule = StopRule(soft=1.0)
    for score in (0, -500, -1000):
        rule.after_iteration("e2e4", 0.0, score)
    assert rule.scale(0.0) == pytest.approx(2.0)  # 1.05 * 2 * 1.5 = 3.15, capped
