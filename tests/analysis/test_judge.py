"""Winning chances, NAG thresholds and Lichess's accuracy formula, on numbers worked out by hand."""

from __future__ import annotations

import pytest

from jitfish.analysis.judge import game_accuracy, move_accuracy, verdict, winning_chances
from jitfish.engine.wdl import expected_score


def test_winning_chances_are_the_wdl_expected_score_and_mates_are_certain():
    assert winning_chances(0, None, 78) == pytest.approx(0.5)
    assert winning_chances(150, None, 40) == pytest.approx(float(expected_score(150, 40)))
    assert winning_chances(150, None, 40) + winning_chances(-150, None, 40) == pytest.approx(1.0)
    assert winning_chances(None, 3, 78) == 1.0  # mate in 3 for the side to move
    assert winning_chances(None, -2, 78) == 0.0  # mated in 2
    assert winning_chances(None, 0, 78) == 0.0  # mated on the board


def test_a_pawn_is_worth_less_with_less_material():
    assert winning_chances(100, None, 78) > winning_chances(100, None, 12) > 0.5


@pytest.mark.parametrize(
    "loss, nag", [(0.0, None), (0.049, None), (0.05, 6), (0.099, 6), (0.10, 2), (0.199, 2), (0.20, 4), (0.9, 4)]
)
def test_nag_thresholds(loss, nag):
    assert verdict(loss, best_played=False) == nag


def test_the_searchs_own_choice_is_never_marked():
    assert verdict(0.5, best_played=True) is None


def test_move_accuracy_is_lichess_formula():
    assert move_accuracy(50, 50) == 100.0
    assert move_accuracy(40, 60) == 100.0  # a gain
    # 103.1668 exp(-0.04354 * 10) - 3.1669 + 1
    assert move_accuracy(50, 40) == pytest.approx(64.5798, abs=1e-3)
    assert move_accuracy(100, 0) == 0.0  # clamped


def test_game_accuracy_of_one_flawless_side_and_one_drop():
    # White 50 -> 40 (64.58), Black keeps 40 (100); windows of 2 positions.
    assert game_accuracy([50, 40, 40], white_moves_first=True) == pytest.approx((64.5798, 100.0), abs=1e-3)


def test_game_accuracy_weights_volatile_moves():
    # White's moves: 50 -> 50 (100, weight 0.5: a calm window) and 50 -> 30 (41.017, weight 10, the standard
    # deviation of [50, 30]); weighted mean 43.826, harmonic mean 58.173, accuracy their mean.
    white, black = game_accuracy([50, 50, 50, 30, 30], white_moves_first=True)
    assert white == pytest.approx(50.9992, abs=1e-3)
    assert black == 100.0


def test_game_accuracy_when_black_moves_first_and_a_side_has_no_move():
    assert game_accuracy([50, 40], white_moves_first=False) == (None, 100.0)  # Black gained
    assert game_accuracy([50, 60], white_moves_first=False) == pytest.approx((None, 64.5798), abs=1e-3)
    assert game_accuracy([50], white_moves_first=True) == (None, None)
