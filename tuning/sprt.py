"""Sequential probability ratio test (SPRT) for engine matches.

H0: the Elo difference is ``elo0``; H1: it is ``elo1`` (logistic Elo). After each result the log-likelihood
ratio (LLR) is compared with Wald's bounds ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``; crossing
the lower bound accepts H0, crossing the upper accepts H1.

The LLR is the normal (generalised SPRT) approximation used by fishtest and cutechess-cli: with N samples of mean
``m`` and variance ``v`` (per sample),

    LLR = N * (s1 - s0) * (2 m - s0 - s1) / (2 v),        s0, s1 = expected scores at elo0, elo1,

which is the log ratio of two normal likelihoods with means s1 and s0 and the observed variance. Samples are games
(trinomial) or opening pairs (pentanomial). Empty outcome bins count as 0.001 samples, as in fishtest.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tuning.elo import PAIR_SCORES, expected_score

Decision = Literal["H0", "H1"]


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses and error rates of one test."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (0.0 < self.alpha < 1.0 and 0.0 < self.beta < 1.0):
            raise ValueError("alpha and beta must lie strictly between 0 and 1")
        if self.elo0 >= self.elo1:
            raise ValueError("elo0 must be smaller than elo1")

    @property
    def lower_bound(self) -> float:
        """LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def decide(self, llr: float) -> Decision | None:
        """The accepted hypothesis, or None while the test continues."""
        if llr >= self.upper_bound:
            return "H1"
        if llr <= self.lower_bound:
            return "H0"
        return None


def parse_sprt(tokens: Sequence[str]) -> SprtConfig:
    """Parse cutechess-cli style ``elo0=0 elo1=5 alpha=0.05 beta=0.05`` (any order, any subset)."""
    values: dict[str, float] = {}
    for token in tokens:
        key, separator, value = token.partition("=")
        if not separator or key not in ("elo0", "elo1", "alpha", "beta"):
            raise ValueError(f"bad SPRT parameter {token!r}; expected elo0=, elo1=, alpha= or beta=")
        values[key] = float(value)
    return SprtConfig(**values)


EMPTY_BIN_COUNT = 1e-3
"""Stand-in for an empty outcome bin (fishtest's regularisation), so that a one-sided record such as all wins
still has a positive variance and a finite, decisive LLR."""


def _normal_llr(values: Sequence[float], raw_counts: Sequence[int], elo0: float, elo1: float) -> float:
    if sum(raw_counts) == 0:
        return 0.0
    counts = [count if count > 0 else EMPTY_BIN_COUNT for count in raw_counts]
    total = sum(counts)
    mean = sum(value * count for value, count in zip(values, counts)) / total
    variance = sum(count * (value - mean) ** 2 for value, count in zip(values, counts)) / total
    if variance <= 0.0:
        return 0.0  # every sample identical: no estimate of the spread yet
    score0, score1 = expected_score(elo0), expected_score(elo1)
    return total * (score1 - score0) * (2.0 * mean - score0 - score1) / (2.0 * variance)


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float) -> float:
    """LLR of H1 against H0 treating each game as a sample."""
    return _normal_llr((1.0, 0.5, 0.0), (wins, draws, losses), elo0, elo1)


def llr_pentanomial(pair_counts: Sequence[int], elo0: float, elo1: float) -> float:
    """LLR of H1 against H0 treating each opening pair as a sample (counts as in :mod:`tuning.elo`)."""
    if len(pair_counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, got {len(pair_counts)}")
    return _normal_llr(PAIR_SCORES, pair_counts, elo0, elo1)
