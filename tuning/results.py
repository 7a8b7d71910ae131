"""Game records and what they add up to: W/D/L, Elo, pentanomial pairs, SPRT state, engine faults.

Both backends reduce a match to a list of :class:`GameRecord`; everything reported is computed here from that
list, so the cutechess-cli and python-chess backends report identically.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from tuning.elo import finite_or_none, likelihood_of_superiority, pentanomial_estimate, trinomial_estimate
from tuning.sprt import SprtConfig, llr_pentanomial, llr_trinomial

FaultKind = Literal["time_loss", "illegal_move", "crash", "hang"]
FAULT_KINDS: tuple[FaultKind, ...] = ("time_loss", "illegal_move", "crash", "hang")
GameResult = Literal["1-0", "0-1", "1/2-1/2", "*"]


@dataclass(frozen=True)
class GameRecord:
    """One finished game. ``fault`` names what the losing engine ``faulty_engine`` did wrong, if anything."""

    number: int
    encounter: int
    white: str
    black: str
    result: GameResult
    reason: str
    fault: FaultKind | None = None
    faulty_engine: str | None = None
    plies: int = 0

    def points_for(self, name: str) -> float | None:
        """Points scored by engine ``name`` (None for an unfinished game or a non-participant)."""
        if self.result == "*" or name not in (self.white, self.black):
            return None
        if self.result == "1/2-1/2":
            return 0.5
        white_won = self.result == "1-0"
        return 1.0 if white_won == (name == self.white) else 0.0


@dataclass
class PairingStats:
    """Results of ``first`` against ``second`` from ``first``'s point of view."""

    first: str
    second: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pentanomial: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def summary(self, confidence: float = 0.95) -> dict[str, Any]:
        """W/D/L, score and Elo with interval (pentanomial when any pair is complete, else trinomial)."""
        summary: dict[str, Any] = {
            "first": self.first,
            "second": self.second,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score": self.points / self.games if self.games else None,
            "draw_ratio": self.draws / self.games if self.games else None,
            "los": likelihood_of_superiority(self.wins, self.losses),
            "pentanomial": list(self.pentanomial),
        }
        trinomial = trinomial_estimate(self.wins, self.draws, self.losses, confidence)
        estimate = pentanomial_estimate(self.pentanomial, confidence) if sum(self.pentanomial) else None
        by_pairs = estimate is not None and (estimate.margin > 0 or trinomial is None or trinomial.margin == 0)
        if not by_pairs:  # no complete pair yet, or too few pairs to show any spread
            estimate = trinomial
        summary["elo"] = finite_or_none(estimate.elo + 0.0) if estimate else None  # + 0.0: no "-0"
        summary["elo_lower"] = finite_or_none(estimate.lower) if estimate else None
        summary["elo_upper"] = finite_or_none(estimate.upper) if estimate else None
        summary["elo_margin"] = finite_or_none(estimate.margin) if estimate else None
        summary["elo_model"] = "pentanomial" if by_pairs else "trinomial"
        summary["elo_margin_trinomial"] = finite_or_none(trinomial.margin) if trinomial else None
        return summary


def pairing_stats(records: Sequence[GameRecord], first: str, second: str) -> PairingStats:
    """Tally the games between two engines; a pair counts once both of its games have a result."""
    stats = PairingStats(first, second)
    pair_points: dict[int, list[float]] = defaultdict(list)
    for record in records:
        if {record.white, record.black} != {first, second}:
            continue
        points = record.points_for(first)
        if points is None:
            continue
        if points == 1.0:
            stats.wins += 1
        elif points == 0.5:
            stats.draws += 1
        else:
            stats.losses += 1
        pair_points[record.encounter].append(points)
    counts = [0, 0, 0, 0, 0]
    for points in pair_points.values():
        if len(points) == 2:
            counts[round(2 * sum(points))] += 1
    stats.pentanomial = (counts[0], counts[1], counts[2], counts[3], counts[4])
    return stats


def fault_counts(records: Sequence[GameRecord], names: Sequence[str]) -> dict[str, dict[str, int]]:
    """For every engine, how many games it lost by each kind of fault."""
    counts = {name: {kind: 0 for kind in FAULT_KINDS} for name in names}
    for record in records:
        if record.fault and record.faulty_engine in counts:
            counts[record.faulty_engine][record.fault] += 1
    return counts


@dataclass(frozen=True)
class SprtState:
    """Where an SPRT stands after some games."""

    llr: float
    lower_bound: float
    upper_bound: float
    decision: str | None
    model: str

    def as_dict(self, config: SprtConfig) -> dict[str, Any]:
        return {**asdict(config), **asdict(self)}


SPRT_MIN_PAIRS = 8
"""Complete opening pairs before the test may decide.  The LLR's variance is estimated from the samples, and
from a handful of them (one lost game, one won pair) it is near zero, so the LLR would cross a bound by chance:
a match stopped after its first game that way."""


def spread_is_known(pentanomial: Sequence[int]) -> bool:
    """Whether the pair scores show their spread: two outcomes seen, or every pair at one extreme.

    Pairs that all end 1-1 (as closely matched engines at fixed nodes often do) give a variance of almost
    nothing and an LLR past either bound after nine pairs, though nothing is known yet.  All-won or all-lost
    pairs are different: a mean at the extreme leaves no room for any spread.
    """
    seen = [index for index, count in enumerate(pentanomial) if count > 0]
    return len(seen) >= 2 or seen in ([0], [len(pentanomial) - 1])


def sprt_state(stats: PairingStats, config: SprtConfig) -> SprtState:
    """LLR from opening pairs when any are complete, from single games otherwise (shown, never decisive)."""
    pairs = sum(stats.pentanomial)
    if pairs > 0:
        llr, model = llr_pentanomial(stats.pentanomial, config.elo0, config.elo1), "pentanomial"
    else:
        llr, model = llr_trinomial(stats.wins, stats.draws, stats.losses, config.elo0, config.elo1), "trinomial"
    decisive = pairs >= SPRT_MIN_PAIRS and spread_is_known(stats.pentanomial)
    return SprtState(llr, config.lower_bound, config.upper_bound, config.decide(llr) if decisive else None, model)


def _clean(value: Any) -> Any:
    """Replace non-finite floats (not valid JSON) with None, recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def match_summary(
    records: Sequence[GameRecord],
    names: Sequence[str],
    pairings: Sequence[tuple[int, int]],
    sprt: SprtConfig | None,
    backend: str,
    stopped_early: bool = False,
    restarts: dict[str, int] | None = None,
) -> dict[str, Any]:
    """The JSON-ready report of a match.

    Top-level W/D/L, Elo and pentanomial are the first engine's results against all others (with two engines:
    the match result); ``pairings`` holds each pairing separately.
    """
    per_pairing = [pairing_stats(records, names[first], names[second]) for first, second in pairings]
    total = PairingStats(names[0], "+".join(names[1:]))
    counts = [0, 0, 0, 0, 0]
    for stats in per_pairing:
        if stats.first != names[0]:
            continue
        total.wins += stats.wins
        total.draws += stats.draws
        total.losses += stats.losses
        counts = [a + b for a, b in zip(counts, stats.pentanomial)]
    total.pentanomial = (counts[0], counts[1], counts[2], counts[3], counts[4])
    summary: dict[str, Any] = {"backend": backend, "engines": list(names), **total.summary()}
    summary["games"] = len(records)
    summary["unfinished"] = sum(1 for record in records if record.result == "*")
    if sprt is not None:
        summary["sprt"] = sprt_state(per_pairing[0], sprt).as_dict(sprt)
    summary["stopped_early"] = stopped_early
    summary["faults"] = fault_counts(records, names)
    summary["restarts"] = dict(restarts or {})
    if len(per_pairing) > 1:
        summary["pairings"] = [stats.summary() for stats in per_pairing]
    return _clean(summary)


def describe(summary: dict[str, Any]) -> list[str]:
    """Human-readable lines for a summary, in cutechess-cli's words where it has them."""
    lines = []
    score = summary.get("score")
    lines.append(
        f"Score of {summary['first']} vs {summary['second']}: {summary['wins']} - {summary['losses']} - "
        f"{summary['draws']}  [{score:.3f}] {summary['wins'] + summary['losses'] + summary['draws']}"
        if score is not None
        else "No finished games"
    )
    if summary.get("elo") is not None:
        lines.append(
            f"Elo difference: {summary['elo']:.1f} [{_fmt(summary['elo_lower'])}, {_fmt(summary['elo_upper'])}] "
            f"(+/- {_fmt(summary['elo_margin'])}, {summary['elo_model']}), LOS: {100 * summary['los']:.1f} %, "
            f"DrawRatio: {100 * summary['draw_ratio']:.1f} %"
        )
    lines.append("Ptnml(0-2): " + str(summary["pentanomial"]))
    if "sprt" in summary:
        sprt = summary["sprt"]
        decision = f" - {sprt['decision']} was accepted" if sprt["decision"] else ""
        if "decided_after_games" in sprt and sprt["decided_after_games"] != summary["games"]:
            decision += (
                f" at llr {sprt['llr_at_decision']:.3g} after {sprt['decided_after_games']} games"
                " (the games in flight then finished too)"
            )
        lines.append(
            f"SPRT: llr {sprt['llr']:.3g}, lbound {sprt['lower_bound']:.3g}, ubound {sprt['upper_bound']:.3g}{decision}"
        )
    for pairing in summary.get("pairings", []):
        lines.append(
            f"  {pairing['first']} vs {pairing['second']}: {pairing['wins']} - {pairing['losses']} - "
            f"{pairing['draws']}, Elo {_fmt(pairing['elo'])} +/- {_fmt(pairing['elo_margin'])}"
        )
    faults = {name: kinds for name, kinds in summary["faults"].items() if any(kinds.values())}
    for name, kinds in faults.items():
        lines.append(f"Faults of {name}: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items() if n))
    return lines


def _fmt(value: float | None) -> str:
    return "inf" if value is None else f"{value:.1f}"
