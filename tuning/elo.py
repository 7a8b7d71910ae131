"""Elo arithmetic: the logistic Elo model, Elo estimates with confidence intervals, and LOS.

Everything here is a pure function of game counts. Scores are fractions of a point per game in [0, 1].

Two sample models are supported:

* trinomial: every game is one sample scoring 1, 1/2 or 0 (what cutechess-cli reports);
* pentanomial: every opening pair (the same opening played with colours swapped) is one sample scoring
  0, 1/4, 1/2, 3/4 or 1 per game (what fishtest reports). Pairing removes the opening's own bias from the
  variance, so its intervals are narrower when openings are unbalanced.

An interval is computed on the score scale (mean plus or minus a normal quantile times the standard error) and
mapped through the logistic curve, so Elo intervals are not symmetric; ``margin`` is half their width, the
``+/-`` number cutechess-cli prints.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

ELO_SCALE = 400.0
"""Elo points per factor of ten in the odds of winning."""

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Score per game of an opening pair in each pentanomial bin (0, 1/2, 1, 3/2 or 2 points over two games)."""


def expected_score(elo_difference: float) -> float:
    """Expected score per game of a player ``elo_difference`` Elo stronger than its opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / ELO_SCALE))


def elo_from_score(score: float) -> float:
    """Elo difference that gives an expected ``score``; +/-inf at 1 and 0."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -ELO_SCALE * math.log10(1.0 / score - 1.0)


def normal_quantile(probability: float) -> float:
    """Inverse of the standard normal distribution function."""
    return NormalDist().inv_cdf(probability)


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference with its confidence interval, from the first player's point of view."""

    score: float
    elo: float
    lower: float
    upper: float
    confidence: float

    @property
    def margin(self) -> float:
        """Half the width of the interval (cutechess-cli's ``+/-``)."""
        return (self.upper - self.lower) / 2.0


def _estimate_from_samples(values: Sequence[float], counts: Sequence[int], confidence: float) -> EloEstimate | None:
    """Mean score, its standard error, and the Elo interval from a discrete sample distribution."""
    total = sum(counts)
    if total == 0:
        return None
    mean = sum(value * count for value, count in zip(values, counts)) / total
    variance = sum(count * (value - mean) ** 2 for value, count in zip(values, counts)) / total
    standard_error = math.sqrt(variance / total)
    quantile = normal_quantile(0.5 + confidence / 2.0)
    return EloEstimate(
        score=mean,
        elo=elo_from_score(mean),
        lower=elo_from_score(mean - quantile * standard_error),
        upper=elo_from_score(mean + quantile * standard_error),
        confidence=confidence,
    )


def trinomial_estimate(wins: int, draws: int, losses: int, confidence: float = 0.95) -> EloEstimate | None:
    """Elo difference and interval treating each game as an independent sample; None without games."""
    return _estimate_from_samples((1.0, 0.5, 0.0), (wins, draws, losses), confidence)


def pentanomial_estimate(pair_counts: Sequence[int], confidence: float = 0.95) -> EloEstimate | None:
    """Elo difference and interval treating each opening pair as a sample.

    ``pair_counts[k]`` is the number of pairs in which the first player scored ``k / 2`` points
    (k = 0 .. 4: lost both, lost one and drew one, two draws or a win and a loss, ...).
    """
    if len(pair_counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, got {len(pair_counts)}")
    return _estimate_from_samples(PAIR_SCORES, pair_counts, confidence)


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that the first player is the stronger one, from wins and losses (draws carry no signal).

    The normal approximation used by cutechess-cli: LOS = Phi((W - L) / sqrt(W + L)).
    """
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def finite_or_none(value: float) -> float | None:
    """``value`` when finite, else None (JSON has no infinity)."""
    return value if math.isfinite(value) else None
