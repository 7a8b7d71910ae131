"""Elo ladder: gauntlets of Jitfish against engines anyone can install, placed on Stockfish's UCI_Elo scale.

Opponents (Debian packages ``fairymax phalanx glaurung toga2 stockfish``, PyPI ``sunfish``): Fairy-Max, Phalanx,
Glaurung, Toga II, Sunfish, and Stockfish limited with ``UCI_LimitStrength`` to ``UCI_Elo`` 1500/2000/2400/2800
(any other level as ``sf<elo>``).
Each opponent plays ``--games`` games against the candidate (openings from the balanced suite, colours swapped).
Writes ``ladder.md`` (results table), ``ladder.png`` (score per opponent with 95 % error bars; needs matplotlib:
``pip install -e .[ladder]``), ``ladder.json`` and ``games.pgn.gz`` (the games, compressed) to ``--output-dir``
(default ``records/ladder/latest``: records live outside the packages, so no install carries them).

The candidate's rating is the maximum-likelihood Elo that explains its scores against the Stockfish anchors
(logistic model), with a 95 % interval from the observed per-game variance. Target run (hours)::

    python -m tuning.ladder --games 40 --tc 10+0.1

Smoke run::

    python -m tuning.ladder --games 2 --tc 2+0.05 --opponents sunfish,sf1500
"""

from __future__ import annotations

import argparse
import json
import math
import re
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuning.backends import choose_backend
from tuning.config import MatchConfig
from tuning.elo import expected_score, normal_quantile
from tuning.engines import EngineSpec, parse_engine_spec
from tuning.match import run_match
from tuning.openings import read_openings
from tuning.tc import parse_time_control

REPO = Path(__file__).resolve().parents[1]

GAMES_DIR = "/usr/games"
STOCKFISH_LEVELS = (1500, 2000, 2400, 2800)  # the default anchors; any sf<elo> in the range is accepted
STOCKFISH_ELO_RANGE = (1350, 2850)  # the UCI_Elo option of Stockfish 15.1 (the Debian package)
ELO_SEARCH_RANGE = (-1000.0, 5000.0)


def find_program(name: str) -> str | None:
    """``name`` on PATH or in /usr/games (where Debian puts chess engines)."""
    return shutil.which(name) or shutil.which(name, path=GAMES_DIR)


@dataclass(frozen=True)
class Opponent:
    """A ladder opponent: how to run it, and its rating when it anchors the scale."""

    key: str
    name: str
    program: str
    tokens: tuple[str, ...] = ()
    protocol: str = "uci"
    anchor_elo: float | None = None

    def spec(self, backend: str) -> EngineSpec | None:
        """The engine spec, or None when the program is not installed."""
        path = find_program(self.program)
        if path is None:
            return None
        if self.protocol == "xboard" and backend == "python-chess":
            # python-chess needs setboard; the adapter translates it to edit mode (harmless for engines with it).
            return parse_engine_spec(
                [
                    f"cmd={sys.executable}",
                    "arg=-m",
                    "arg=tuning.xboard_edit_adapter",
                    f"arg={path}",
                    f"dir={REPO}",
                    "proto=xboard",
                    f"name={self.name}",
                    *self.tokens,
                ]
            )
        return parse_engine_spec([f"cmd={path}", f"proto={self.protocol}", f"name={self.name}", *self.tokens])


def stockfish_at(elo: int) -> Opponent:
    """Stockfish limited to ``UCI_Elo`` ``elo``: an anchor of the scale (key ``sf<elo>``)."""
    return Opponent(
        f"sf{elo}",
        f"Stockfish {elo}",
        "stockfish",
        ("option.UCI_LimitStrength=true", f"option.UCI_Elo={elo}", "option.Threads=1", "option.Hash=16"),
        anchor_elo=elo,
    )


def find_opponent(key: str) -> Opponent | None:
    """The opponent of ``key``: a listed one, or ``sf<elo>`` for any level in Stockfish's ``UCI_Elo`` range."""
    known = {**OPPONENTS, **OPTIONAL_OPPONENTS}
    if key in known:
        return known[key]
    match = re.fullmatch(r"sf(\d{4})", key)
    if match and STOCKFISH_ELO_RANGE[0] <= int(match.group(1)) <= STOCKFISH_ELO_RANGE[1]:
        return stockfish_at(int(match.group(1)))
    return None


OPPONENTS: dict[str, Opponent] = {
    opponent.key: opponent
    for opponent in [
        Opponent("fairymax", "Fairy-Max", "fairymax", protocol="xboard"),
        Opponent("phalanx", "Phalanx", "phalanx", protocol="xboard"),
        Opponent("glaurung", "Glaurung", "glaurung", ("option.Threads=1",)),
        Opponent("toga2", "Toga II", "toga2"),
        Opponent("sunfish", "Sunfish", "sunfish-uci"),
        *[stockfish_at(elo) for elo in STOCKFISH_LEVELS],
    ]
}
OPTIONAL_OPPONENTS = {"ethereal": Opponent("ethereal", "Ethereal", "ethereal-chess", ("option.Threads=1",))}


@dataclass(frozen=True)
class AnchorResult:
    """The candidate's games against one anchored opponent."""

    anchor_elo: float
    games: int
    points: float
    variance: float  # per game, of the candidate's score


def place_on_scale(results: Sequence[AnchorResult], confidence: float = 0.95) -> tuple[float, float, float] | None:
    """Maximum-likelihood rating R with sum_i games_i * E(R - anchor_i) = sum_i points_i, and its interval.

    The interval is R -/+ z * sigma with sigma^2 = sum_i n_i v_i / (sum_i n_i E_i')^2 (delta method), where v_i is the
    observed per-game score variance (the binomial E(1 - E) when every game had the same result).
    """
    results = [result for result in results if result.games > 0]
    if not results or all(r.points in (0.0, r.games) for r in results) and len({r.points == 0 for r in results}) == 1:
        return None  # lost (or won) every game against every anchor: only a bound, no estimate

    def surplus(rating: float) -> float:
        return sum(r.points - r.games * expected_score(rating - r.anchor_elo) for r in results)

    low, high = ELO_SEARCH_RANGE
    for _ in range(200):  # surplus falls as the rating rises: bisect for its zero
        middle = (low + high) / 2.0
        low, high = (middle, high) if surplus(middle) > 0 else (low, middle)
    rating = (low + high) / 2.0
    slope_factor = math.log(10.0) / 400.0
    information = 0.0
    variance = 0.0
    for r in results:
        expected = expected_score(rating - r.anchor_elo)
        information += r.games * slope_factor * expected * (1.0 - expected)
        variance += r.games * (r.variance if r.variance > 0 else expected * (1.0 - expected))
    sigma = math.sqrt(variance) / information
    z = normal_quantile(0.5 + confidence / 2.0)
    return rating, rating - z * sigma, rating + z * sigma


def anchor_result(summary: dict[str, Any], anchor_elo: float) -> AnchorResult:
    wins, draws, losses = summary["wins"], summary["draws"], summary["losses"]
    games = wins + draws + losses
    points = wins + 0.5 * draws
    mean = points / games if games else 0.0
    variance = (wins * (1 - mean) ** 2 + draws * (0.5 - mean) ** 2 + losses * mean**2) / games if games else 0.0
    return AnchorResult(anchor_elo, games, points, variance)


def score_interval(summary: dict[str, Any]) -> tuple[float, float]:
    """The 95 % score interval from the Elo interval (0 and 1 where the Elo bound is infinite)."""
    lower = summary.get("elo_lower")
    upper = summary.get("elo_upper")
    score = summary["score"] or 0.0
    low = expected_score(lower) if lower is not None else (0.0 if score < 0.5 else score)
    high = expected_score(upper) if upper is not None else (1.0 if score > 0.5 else score)
    return low, high


def markdown_table(
    candidate: str, rows: Sequence[dict[str, Any]], placement: tuple[float, float, float] | None, time_control: str
) -> str:
    lines = [
        f"# Elo ladder: {candidate}",
        "",
        f"Time control {time_control}; openings from `tuning/openings/balanced.epd`, each played with both colours.",
        "Score and Elo difference are the candidate's; the interval is 95 %.",
        "",
        "| Opponent | Anchor Elo | Games | W | D | L | Score | Elo difference [95 %] | Faults (candidate) |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for row in rows:
        summary = row["summary"]
        elo = summary.get("elo")
        elo_text = (
            "n/a"
            if elo is None and summary["score"] is None
            else (
                f"{elo:+.0f} [{_bound(summary.get('elo_lower'))}, {_bound(summary.get('elo_upper'))}]"
                if elo is not None
                else ("+inf" if summary["score"] == 1 else "-inf")
            )
        )
        faults = summary["faults"].get(candidate, {})
        fault_text = ", ".join(f"{kind} {n}" for kind, n in faults.items() if n) or "none"
        anchor = row["anchor_elo"]
        lines.append(
            f"| {row['opponent']} | {anchor if anchor is not None else ''} | {summary['games']} | {summary['wins']} "
            f"| {summary['draws']} | {summary['losses']} | "
            f"{(summary['score'] or 0) * 100:.1f} % | {elo_text} | {fault_text} |"
        )
    lines.append("")
    if placement is not None:
        rating, low, high = placement
        lines.append(
            f"**{candidate} on the Stockfish UCI_Elo scale: {rating:.0f} [{low:.0f}, {high:.0f}]** "
            "(maximum likelihood over the Stockfish anchors, 95 % interval)."
        )
    else:
        lines.append(
            "No placement on the UCI_Elo scale: no Stockfish anchor was played, or the candidate scored 0 % "
            "(or 100 %) against every anchor."
        )
    lines.append("")
    lines.append("![score per opponent](ladder.png)")
    return "\n".join(lines) + "\n"


def _bound(value: float | None) -> str:
    return "inf" if value is None else f"{value:+.0f}"


def plot(rows: Sequence[dict[str, Any]], candidate: str, path: Path) -> bool:
    """Score against each opponent with 95 % error bars; False when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed (pip install 'jitfish[plot]'); no plot", file=sys.stderr)
        return False
    names = [row["opponent"] for row in rows]
    scores = [row["summary"]["score"] or 0.0 for row in rows]
    intervals = [score_interval(row["summary"]) for row in rows]
    below = [max(score - low, 0.0) for score, (low, _) in zip(scores, intervals)]
    above = [max(high - score, 0.0) for score, (_, high) in zip(scores, intervals)]
    figure, axes = plt.subplots(figsize=(max(6.0, 1.1 * len(rows)), 4.0))
    axes.errorbar(range(len(rows)), scores, yerr=[below, above], fmt="o", capsize=4)
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xticks(range(len(rows)), names, rotation=30, ha="right")
    axes.set_ylim(0.0, 1.0)
    axes.set_ylabel(f"{candidate} score")
    axes.set_title(f"{candidate} against each opponent (95 % intervals)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--engine",
        nargs="+",
        metavar="KEY=VALUE",
        default=[f"cmd={sys.executable} -m jitfish", f"dir={REPO}", "name=Jitfish"],
        help="the candidate, in --engine notation (default: python -m jitfish)",
    )
    parser.add_argument(
        "--opponents",
        default=",".join(OPPONENTS),
        help=f"comma-separated keys from: {', '.join([*OPPONENTS, *OPTIONAL_OPPONENTS])}, "
        f"or sf<elo> for any UCI_Elo in {STOCKFISH_ELO_RANGE[0]}-{STOCKFISH_ELO_RANGE[1]}",
    )
    parser.add_argument("--games", type=int, default=40, help="games per opponent (rounded up to even)")
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--openings", default=str(REPO / "tuning" / "openings" / "balanced.epd"))
    parser.add_argument("--output-dir", type=Path, default=REPO / "records" / "ladder" / "latest")
    parser.add_argument("--backend", choices=("auto", "cutechess", "python-chess"), default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the opponents already in OUTPUT_DIR/ladder.json and play only the others",
    )
    args = parser.parse_args(argv)

    candidate = parse_engine_spec(args.engine)
    backend = choose_backend(args.backend)
    openings = tuple(read_openings(args.openings))
    args.output_dir.mkdir(parents=True, exist_ok=True)
    pgn_path = args.output_dir / "games.pgn.gz"
    json_path = args.output_dir / "ladder.json"
    rows: list[dict[str, Any]] = []
    if args.resume and json_path.exists():
        rows = json.loads(json_path.read_text())["rows"]
    elif pgn_path.exists():
        pgn_path.unlink()
    done = {row["key"] for row in rows}
    for key in [key.strip() for key in args.opponents.split(",") if key.strip()]:
        opponent = find_opponent(key)
        if opponent is None:
            parser.error(f"unknown opponent {key!r}")
        if key in done:
            print(f"keeping the earlier result against {opponent.name}", file=sys.stderr)
            continue
        spec = opponent.spec("python-chess" if backend.name == "python-chess" else "cutechess")
        if spec is None:
            print(f"skipping {opponent.name}: {opponent.program} is not installed", file=sys.stderr)
            continue
        config = MatchConfig(
            engines=(candidate, spec),
            time_control=parse_time_control(args.tc),
            rounds=max(1, (args.games + 1) // 2),
            concurrency=args.concurrency,
            openings_file=args.openings,
            openings=openings,
            seed=args.seed,
            pgn_out=str(pgn_path),
            event=f"Jitfish ladder: {opponent.name}",
        )
        print(f"{candidate.name} vs {opponent.name}: {config.total_games} games at {args.tc}", file=sys.stderr)
        summary = run_match(config, backend, progress=not args.quiet)
        rows.append({"opponent": opponent.name, "key": key, "anchor_elo": opponent.anchor_elo, "summary": summary})
        write_report(rows, candidate.name, args.tc, args.output_dir)  # after each opponent: resumable
    result = write_report(rows, candidate.name, args.tc, args.output_dir)
    print((args.output_dir / "ladder.md").read_text())
    print(json.dumps(result["placement"]))
    return 0


def write_report(rows: Sequence[dict[str, Any]], candidate: str, time_control: str, output_dir: Path) -> dict[str, Any]:
    """Write ladder.md, ladder.png and ladder.json for the opponents played so far; return the JSON result."""
    anchors = [anchor_result(row["summary"], row["anchor_elo"]) for row in rows if row["anchor_elo"] is not None]
    placement = place_on_scale(anchors)
    (output_dir / "ladder.md").write_text(markdown_table(candidate, rows, placement, time_control))
    plot(rows, candidate, output_dir / "ladder.png")
    result = {
        "candidate": candidate,
        "time_control": time_control,
        "rows": list(rows),
        "placement": None if placement is None else dict(zip(("elo", "lower", "upper"), placement)),
    }
    (output_dir / "ladder.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


if __name__ == "__main__":
    sys.exit(main())
