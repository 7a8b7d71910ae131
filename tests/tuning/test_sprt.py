"""SPRT bounds and log-likelihood ratios against known values and a direct sum over samples."""

from __future__ import annotations

import math
import statistics

import pytest

from tuning.sprt import SprtConfig, llr_pentanomial, llr_trinomial, parse_sprt


def score_at(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def direct_llr(samples: list[float], elo0: float, elo1: float) -> float:
    """Sum over samples of log N(x; s1, v) - log N(x; s0, v), v the sample variance."""
    variance = statistics.pvariance(samples)
    s0, s1 = score_at(elo0), score_at(elo1)
    return sum(((x - s0) ** 2 - (x - s1) ** 2) / (2.0 * variance) for x in samples)


def test_bounds_known_values() -> None:
    # alpha = beta = 0.05: +/- log 19 = 2.944 (cutechess-cli prints "lbound -2.94, ubound 2.94").
    config = SprtConfig(0, 5, 0.05, 0.05)
    assert config.upper_bound == pytest.approx(math.log(19))
    assert config.lower_bound == pytest.approx(-2.944, abs=5e-4)
    # fishtest's classic alpha = 0.05, beta = 0.1 gives the familiar (-2.25, 2.89).
    fishtest = SprtConfig(0, 5, 0.05, 0.10)
    assert (round(fishtest.lower_bound, 2), round(fishtest.upper_bound, 2)) == (-2.25, 2.89)


def test_trinomial_llr_matches_direct_sum() -> None:
    wins, draws, losses = 120, 210, 100
    samples = [1.0] * wins + [0.5] * draws + [0.0] * losses
    assert llr_trinomial(wins, draws, losses, 0, 5) == pytest.approx(direct_llr(samples, 0, 5))


def test_pentanomial_llr_matches_direct_sum() -> None:
    counts = [10, 60, 130, 80, 20]
    samples = [k / 4 for k, count in enumerate(counts) for _ in range(count)]
    assert llr_pentanomial(counts, 0, 5) == pytest.approx(direct_llr(samples, 0, 5))


def test_hand_computed_case() -> None:
    # W/D/L = 60/80/60: mean 0.5, variance (60*0.25 + 60*0.25) / 200 = 0.15.
    # s0 = 0.5, s1 = 1 / (1 + 10^(-10/400)) = 0.514387. LLR = 200 * (s1 - 0.5) * (1 - 0.5 - s1) / 0.3
    s1 = 0.5143871841659987
    expected = 200 * (s1 - 0.5) * (1.0 - 0.5 - s1) / 0.3
    assert expected == pytest.approx(-0.1380, abs=1e-4)
    assert llr_trinomial(60, 80, 60, 0, 10) == pytest.approx(expected)


def test_llr_sign_follows_the_result() -> None:
    assert llr_trinomial(200, 100, 100, 0, 5) > 0
    assert llr_trinomial(100, 100, 200, 0, 5) < 0
    assert llr_trinomial(0, 0, 0, 0, 5) == 0.0


def test_one_sided_record_is_decisive() -> None:
    config = SprtConfig(0, 5)
    assert config.decide(llr_pentanomial([0, 0, 0, 0, 8], 0, 5)) == "H1"
    assert config.decide(llr_pentanomial([8, 0, 0, 0, 0], 0, 5)) == "H0"


def test_decisions() -> None:
    config = SprtConfig(0, 5, 0.05, 0.05)
    assert config.decide(3.0) == "H1"
    assert config.decide(-3.0) == "H0"
    assert config.decide(0.0) is None


def test_parse_sprt() -> None:
    assert parse_sprt(["elo0=-1", "elo1=4", "alpha=0.1", "beta=0.2"]) == SprtConfig(-1, 4, 0.1, 0.2)
    assert parse_sprt([]) == SprtConfig()
    with pytest.raises(ValueError):
        parse_sprt(["elo2=3"])
    with pytest.raises(ValueError):
        parse_sprt(["elo0=5", "elo1=0"])


def test_a_handful_of_games_never_decides() -> None:
    # One lost game (or one won pair) has almost no spread: its LLR is far past a bound, but a
    # match must not stop on it.
    from tuning.results import SPRT_MIN_PAIRS, PairingStats, sprt_state

    config = SprtConfig(-10, 0)
    one_loss = PairingStats("a", "b", losses=1)
    assert config.decide(sprt_state(one_loss, config).llr) == "H0"
    assert sprt_state(one_loss, config).decision is None
    few_pairs = PairingStats("a", "b", wins=2 * (SPRT_MIN_PAIRS - 1), pentanomial=(0, 0, 0, 0, SPRT_MIN_PAIRS - 1))
    assert sprt_state(few_pairs, config).decision is None
    enough = PairingStats("a", "b", wins=2 * SPRT_MIN_PAIRS, pentanomial=(0, 0, 0, 0, SPRT_MIN_PAIRS))
    assert sprt_state(enough, config).decision == "H1"


def test_pairs_that_all_split_do_not_decide() -> None:
    # Nine pairs each won once by either engine: the LLR is far past the upper bound of a
    # non-regression test (the variance is the 0.001 stand-in), yet nothing is known.
    from tuning.results import PairingStats, sprt_state

    config = SprtConfig(-10, 0)
    splits = PairingStats("a", "b", wins=9, losses=9, pentanomial=(0, 0, 9, 0, 0))
    assert sprt_state(splits, config).llr > config.upper_bound
    assert sprt_state(splits, config).decision is None
    spread = PairingStats("a", "b", wins=11, losses=9, pentanomial=(0, 0, 9, 1, 0))
    # One pair won outright shows the spread, and the LLR falls back between the bounds.
    assert config.lower_bound < sprt_state(spread, config).llr < config.upper_bound


class InFlightBackend:
    """Plays pairs the first engine mostly wins until told to stop, then finishes two lost pairs already started."""

    name = "in-flight"

    def run(self, config, on_game, should_stop):
        from tuning.backends import MatchOutcome
        from tuning.results import GameRecord

        records = []

        def play_pair(first_points: tuple[float, float]) -> None:
            for game, points in enumerate(first_points):
                first_is_white = game == 0
                white_won = (points == 1.0) == first_is_white
                result = "1/2-1/2" if points == 0.5 else ("1-0" if white_won else "0-1")
                white, black = ("a", "b") if first_is_white else ("b", "a")
                records.append(GameRecord(len(records) + 1, len(records) // 2, white, black, result, ""))
                on_game(records[-1], records)

        pair = 0
        while not should_stop(records):
            play_pair((1.0, 0.5) if pair % 3 == 0 else (1.0, 1.0))
            pair += 1
        self.decided_after = len(records)
        for _ in range(2):
            play_pair((0.0, 0.0))
        return MatchOutcome(records, stopped_early=True)


def test_the_decision_that_stopped_the_match_is_reported_after_the_games_in_flight() -> None:
    """Games in flight at the decision pull the final LLR back inside the bounds; the decision still stands."""
    from tests.tuning.conftest import random_mover
    from tuning.config import MatchConfig
    from tuning.match import run_match
    from tuning.results import describe
    from tuning.tc import parse_time_control

    backend = InFlightBackend()
    config = MatchConfig(
        engines=(random_mover("a"), random_mover("b")),
        time_control=parse_time_control("1+0"),
        rounds=100,
        sprt=SprtConfig(0, 10, 0.05, 0.05),
    )
    summary = run_match(config, backend, progress=False)
    sprt = summary["sprt"]
    assert sprt["decision"] == "H1" and summary["games"] == backend.decided_after + 4
    assert sprt["decided_after_games"] == backend.decided_after
    assert sprt["llr_at_decision"] >= sprt["upper_bound"] > sprt["llr"]
    assert f"after {backend.decided_after} games" in describe(summary)[-1]
