"""Elo arithmetic against well-known values and against a direct per-game computation."""

from __future__ import annotations

import math
import statistics

import pytest

from tuning.elo import (
    elo_from_score,
    expected_score,
    likelihood_of_superiority,
    pentanomial_estimate,
    trinomial_estimate,
)

Z_975 = 1.959963984540054  # standard normal 97.5 % quantile


def direct_elo(score: float) -> float:
    """Elo from score written the other way round: 400 log10(s / (1 - s))."""
    return 400.0 * math.log10(score / (1.0 - score))


@pytest.mark.parametrize(
    ("score", "elo"),
    [
        (0.5, 0.0),
        (0.75, 190.85),  # 3:1 odds -> 400 log10 3, the textbook "75 % is 191 Elo"
        (0.64, 99.95),  # "100 Elo is a 64 % score"
        (0.90, 381.70),
        (0.25, -190.85),
    ],
)
def test_elo_from_score_known_values(score: float, elo: float) -> None:
    assert elo_from_score(score) == pytest.approx(elo, abs=0.01)
    assert expected_score(elo_from_score(score)) == pytest.approx(score)


def test_elo_of_a_perfect_score_is_infinite() -> None:
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf


def test_trinomial_interval_matches_a_per_game_computation() -> None:
    wins, draws, losses = 100, 50, 50
    games = [1.0] * wins + [0.5] * draws + [0.0] * losses
    mean = statistics.fmean(games)
    standard_error = math.sqrt(statistics.pvariance(games) / len(games))
    estimate = trinomial_estimate(wins, draws, losses)
    assert estimate is not None
    assert estimate.score == pytest.approx(0.625)
    assert estimate.elo == pytest.approx(direct_elo(mean))
    assert estimate.lower == pytest.approx(direct_elo(mean - Z_975 * standard_error))
    assert estimate.upper == pytest.approx(direct_elo(mean + Z_975 * standard_error))
    # As cutechess-cli would print it: "Elo difference: 88.7 +/- 42.8".
    assert round(estimate.elo, 1) == 88.7
    assert round(estimate.margin, 1) == 42.8


def test_even_match_interval_is_symmetric() -> None:
    estimate = trinomial_estimate(30, 40, 30)
    assert estimate is not None
    assert estimate.elo == pytest.approx(0.0, abs=1e-9)
    assert estimate.lower == pytest.approx(-estimate.upper)


def test_pentanomial_interval_matches_a_per_pair_computation() -> None:
    counts = [3, 12, 30, 15, 5]
    pairs = [k / 4 for k, count in enumerate(counts) for _ in range(count)]
    mean = statistics.fmean(pairs)
    standard_error = math.sqrt(statistics.pvariance(pairs) / len(pairs))
    estimate = pentanomial_estimate(counts)
    assert estimate is not None
    assert estimate.elo == pytest.approx(direct_elo(mean))
    assert estimate.lower == pytest.approx(direct_elo(mean - Z_975 * standard_error))
    assert estimate.upper == pytest.approx(direct_elo(mean + Z_975 * standard_error))


def test_pairing_narrows_the_interval_when_pairs_are_correlated() -> None:
    # 40 pairs that each split 1-1 (win + loss): per game the spread is maximal, per pair it is zero-ish.
    paired = pentanomial_estimate([1, 0, 38, 0, 1])
    unpaired = trinomial_estimate(41, 0, 39)
    assert paired is not None and unpaired is not None
    assert paired.margin < unpaired.margin / 3


def test_no_games_no_estimate() -> None:
    assert trinomial_estimate(0, 0, 0) is None
    assert pentanomial_estimate([0, 0, 0, 0, 0]) is None
    with pytest.raises(ValueError):
        pentanomial_estimate([1, 2, 3])


def test_likelihood_of_superiority() -> None:
    assert likelihood_of_superiority(10, 10) == pytest.approx(0.5)
    assert likelihood_of_superiority(0, 0) == 0.5
    # 60 - 40 = 2 sqrt(100): two standard deviations, Phi(2) = 0.97725.
    assert likelihood_of_superiority(60, 40) == pytest.approx(0.97725, abs=1e-5)
