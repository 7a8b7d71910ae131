"""UCI_Elo calibration: Jitfish's strength settings measured on Stockfish's ``UCI_Elo`` scale.

Each setting plays Stockfish limited to the same ``UCI_Elo`` where Stockfish has it (Stockfish 15.1, the
Debian package: 1350-2850).  Below that the settings are chained: each plays the setting above it, and the
highest of them also plays the weakest anchor.  One Bradley-Terry fit over all the games (Ordo's model:
the anchors fixed at their setting, a draw half a point) places every setting, with a 95 % interval from
the observed per-game variance (the sandwich estimate, which carries a chain's error down it).  Writes
``calibration.json`` (every pairing's summary and the fit), ``calibration.md`` (the table) and
``games.pgn.gz`` to ``--output-dir``.  A pairing already in ``calibration.json`` is kept and, when it
has fewer games than asked, played on to the count asked (with the next openings), so a stopped run goes on
where it stopped and a run grows where its intervals are wide.  The folder records the table of handicaps
(``jitfish/engine/strength.json``'s levels) it was played with, and refuses games under another one.

    python -m tuning.calibrate --settings 800,1100,1400,1700,2000,2300,2400 --games 80 --chain-games 160 \
        --tc 10+0.1 --concurrency 2

``refit`` turns a run's measurements into the rows of ``jitfish/engine/strength.json``: each setting measured
becomes a row at the Elo it measured, with the handicap (node budget, noise, lines) it played with under the
run's recorded table::

    python -m tuning.calibrate refit records/strength/NAME [--write]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from jitfish.engine.strength import LEVELS_FILE, handicap_for_elo, parse_levels
from tuning.backends import choose_backend
from tuning.config import MatchConfig
from tuning.elo import ELO_SCALE, expected_score, normal_quantile
from tuning.engines import EngineSpec, parse_engine_spec
from tuning.ladder import STOCKFISH_ELO_RANGE, find_program, stockfish_at
from tuning.match import run_match
from tuning.openings import read_openings
from tuning.results import PairingStats
from tuning.tc import parse_time_control

REPO = Path(__file__).resolve().parents[1]
STOCKFISH_MIN_ELO = STOCKFISH_ELO_RANGE[0]  # the lowest anchor
STOCKFISH_OVERHEAD_MS = 100
TOLERANCE = 75.0  # a setting is calibrated when its measured Elo is this close to it


def pairings_for(settings: Sequence[int]) -> list[tuple[str, str]]:
    """Who plays whom: a setting Stockfish has plays it; the others play the setting above them, and the
    highest of those also plays the weakest anchor."""
    settings = sorted(set(settings))
    below = [elo for elo in settings if elo < STOCKFISH_MIN_ELO]
    pairs = [(f"j{elo}", f"sf{elo}") for elo in settings if elo >= STOCKFISH_MIN_ELO]
    for lower, upper in zip(below, [*below[1:], None]):
        if upper is not None:
            pairs.append((f"j{lower}", f"j{upper}"))
        else:
            pairs.append((f"j{lower}", f"sf{STOCKFISH_MIN_ELO}"))
            above = [elo for elo in settings if elo >= STOCKFISH_MIN_ELO]
            if above:
                pairs.append((f"j{lower}", f"j{above[0]}"))
    return pairs


def anchor_elo(key: str) -> int | None:
    """The fixed rating of a Stockfish anchor's key, ``None`` for a Jitfish setting."""
    return int(key[2:]) if key.startswith("sf") else None


def fit_ratings(pairings: Sequence[PairingStats], confidence: float = 0.95) -> dict[str, tuple[float, float, float]]:
    """Maximum-likelihood ratings of every Jitfish setting in ``pairings`` (anchors fixed), each with its
    interval: ``{key: (rating, lower, upper)}``.  A setting that won or lost every game it played, or is not
    linked to an anchor, has no finite estimate and is left out."""
    pairings = [p for p in pairings if p.games]
    linked: set[str] = set()  # the settings an anchor reaches through games: the others have no rating yet
    while True:
        reached = {
            key
            for p in pairings
            for key, other in ((p.first, p.second), (p.second, p.first))
            if anchor_elo(key) is None and (anchor_elo(other) is not None or other in linked)
        }
        if reached <= linked:
            break
        linked |= reached
    pairings = [p for p in pairings if all(key in linked or anchor_elo(key) is not None for key in (p.first, p.second))]
    keys = sorted(linked)
    index = {key: i for i, key in enumerate(keys)}
    slope = math.log(10.0) / ELO_SCALE
    ratings = [1500.0] * len(keys)

    def rating(key: str) -> float:
        fixed = anchor_elo(key)
        return float(fixed) if fixed is not None else ratings[index[key]]

    def gradient_and_information() -> tuple[list[float], list[list[float]], list[list[float]]]:
        gradient = [0.0] * len(keys)
        information = [[0.0] * len(keys) for _ in keys]
        spread = [[0.0] * len(keys) for _ in keys]  # sum of n * observed variance, for the sandwich
        for p in pairings:
            if p.games == 0:
                continue
            expected = expected_score(rating(p.first) - rating(p.second))
            points = p.points
            mean = points / p.games
            observed = (p.wins * (1 - mean) ** 2 + p.draws * (0.5 - mean) ** 2 + p.losses * mean**2) / p.games
            weight = p.games * slope * slope * expected * (1 - expected)
            noise = p.games * slope * slope * (observed if observed > 0 else expected * (1 - expected))
            for key, sign in ((p.first, 1.0), (p.second, -1.0)):
                if key in index:
                    gradient[index[key]] += sign * slope * (points - p.games * expected)
            for a, sa in ((p.first, 1.0), (p.second, -1.0)):
                for b, sb in ((p.first, 1.0), (p.second, -1.0)):
                    if a in index and b in index:
                        information[index[a]][index[b]] += sa * sb * weight
                        spread[index[a]][index[b]] += sa * sb * noise
        return gradient, information, spread

    for _ in range(100):  # Newton's method on the log-likelihood, steps capped to keep it stable
        gradient, information, _ = gradient_and_information()
        try:
            step = np.linalg.solve(np.array(information), np.array(gradient))
        except np.linalg.LinAlgError:
            break
        step = np.clip(step, -200.0, 200.0)
        ratings = [r + float(s) for r, s in zip(ratings, step)]
        if float(np.abs(step).max(initial=0.0)) < 1e-6:
            break
    gradient, information, spread = gradient_and_information()
    z = normal_quantile(0.5 + confidence / 2.0)
    result: dict[str, tuple[float, float, float]] = {}
    try:
        inverse = np.linalg.inv(np.array(information))
    except np.linalg.LinAlgError:
        return result
    covariance = inverse @ np.array(spread) @ inverse
    for key, i in index.items():
        played = [p for p in pairings if key in (p.first, p.second) and p.games]
        scores = {p.points / p.games if p.first == key else 1 - p.points / p.games for p in played}
        if not played or scores <= {0.0} or scores <= {1.0} or abs(ratings[i]) > 10_000:
            continue
        sigma = math.sqrt(max(float(covariance[i][i]), 0.0))
        result[key] = (ratings[i], ratings[i] - z * sigma, ratings[i] + z * sigma)
    return result


def jitfish_at(elo: int, engine: Sequence[str]) -> EngineSpec:
    """The candidate playing at ``UCI_Elo`` ``elo``."""
    return parse_engine_spec([*engine, f"name=Jitfish-{elo}", "option.UCI_LimitStrength=true", f"option.UCI_Elo={elo}"])


def markdown(pairings: Sequence[PairingStats], fit: dict[str, tuple[float, float, float]], tc: str) -> str:
    lines = [
        "# UCI_Elo calibration",
        "",
        f"Time control {tc}; openings from `tuning/openings/balanced.epd`, each played with both colours.",
        "Anchors: Stockfish 15.1 with `UCI_LimitStrength` at the same `UCI_Elo`; below 1350 the settings are",
        "chained (each against the one above). Bradley-Terry fit over all games, 95 % intervals.",
        "",
        "| pairing | games | W | D | L | score |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for p in pairings:
        score = p.points / p.games if p.games else 0.0
        lines.append(f"| {p.first} – {p.second} | {p.games} | {p.wins} | {p.draws} | {p.losses} | {score:.1%} |")
    lines += ["", "| setting | games | measured [95 %] | off by | within ±75 |", "|---:|---:|---|---:|---|"]
    for key in sorted(fit, key=lambda k: int(k[1:])):
        elo = int(key[1:])
        rating, low, high = fit[key]
        games = sum(p.games for p in pairings if key in (p.first, p.second))
        ok = abs(rating - elo) <= TOLERANCE and high - rating <= TOLERANCE and rating - low <= TOLERANCE
        measured = f"{rating:.0f} [{low:.0f}, {high:.0f}]"
        lines.append(f"| {elo} | {games} | {measured} | {rating - elo:+.0f} | {'yes' if ok else 'no'} |")
    return "\n".join(lines) + "\n"


def write_report(
    pairings: Sequence[PairingStats], tc: str, levels: list[list[int]], output_dir: Path
) -> dict[str, tuple[float, float, float]]:
    fit = fit_ratings(pairings)
    (output_dir / "calibration.md").write_text(markdown(pairings, fit, tc))
    data = {
        "time_control": tc,
        "levels": levels,
        "pairings": [
            {key: getattr(p, key) for key in ("first", "second", "wins", "draws", "losses")} for p in pairings
        ],
        "fit": {key: dict(zip(("elo", "lower", "upper"), value)) for key, value in fit.items()},
    }
    (output_dir / "calibration.json").write_text(json.dumps(data, indent=1) + "\n")
    return fit


def play(args: argparse.Namespace) -> int:
    settings = sorted({int(text) for text in args.settings.split(",")})
    if find_program("stockfish") is None:
        print("error: the calibration needs Stockfish (apt install stockfish)", file=sys.stderr)
        return 2
    backend = choose_backend(args.backend)
    openings = tuple(read_openings(args.openings))
    args.output_dir.mkdir(parents=True, exist_ok=True)
    json_path = args.output_dir / "calibration.json"
    levels = json.loads(LEVELS_FILE.read_text())["levels"]
    pairings: list[PairingStats] = []
    if json_path.exists():
        data = json.loads(json_path.read_text())
        if data.get("levels") != levels:
            print(
                f"error: {args.output_dir} was played with another table of levels; use a new --output-dir",
                file=sys.stderr,
            )
            return 2
        pairings = [PairingStats(**row) for row in data["pairings"]]
    for first, second in pairings_for(settings):
        asked = args.chain_games if second.startswith("j") else args.games
        index = next((i for i, p in enumerate(pairings) if (p.first, p.second) == (first, second)), None)
        played = pairings[index].games if index is not None else 0
        if played + 1 >= asked:
            continue
        specs = []
        for key in (first, second):
            if key.startswith("sf"):
                spec = stockfish_at(int(key[2:])).spec(backend.name)
                assert spec is not None
                # Kept back from its clock: Stockfish's 10 ms lost on time on a loaded machine.
                specs.append(replace(spec, options={**spec.options, "Move Overhead": str(STOCKFISH_OVERHEAD_MS)}))
            else:
                specs.append(jitfish_at(int(key[1:]), args.engine))
        config = MatchConfig(
            engines=(specs[0], specs[1]),
            time_control=parse_time_control(args.tc),
            rounds=max(1, (asked - played + 1) // 2),
            concurrency=args.concurrency,
            openings_file=args.openings,
            openings=openings,
            seed=args.seed + played,  # more games of a pairing take other openings
            pgn_out=str(args.output_dir / "games.pgn.gz"),
            event=f"UCI_Elo calibration: {first} - {second}",
        )
        print(f"{first} vs {second}: {config.total_games} games at {args.tc}", file=sys.stderr)
        summary = run_match(config, backend, progress=not args.quiet)
        if index is None:
            index = len(pairings)
            pairings.append(PairingStats(first, second))
        pairings[index].wins += summary["wins"]
        pairings[index].draws += summary["draws"]
        pairings[index].losses += summary["losses"]
        write_report(pairings, args.tc, levels, args.output_dir)  # after each pairing: resumable
    write_report(pairings, args.tc, levels, args.output_dir)
    print((args.output_dir / "calibration.md").read_text())
    return 0


def refit(args: argparse.Namespace) -> int:
    data = json.loads((args.output_dir / "calibration.json").read_text())
    if "levels" not in data:
        print(f"error: {args.output_dir} does not record the table of levels it was played with", file=sys.stderr)
        return 2
    played_with = parse_levels(data["levels"])
    rows = sorted(
        (round(value["elo"]), handicap_for_elo(int(key[1:]), played_with))
        for key, value in data["fit"].items()
        if key.startswith("j")
    )
    if [handicap.nodes for _, handicap in rows] != sorted(handicap.nodes for _, handicap in rows):
        print("error: the measured Elo does not rise with the setting; play more games", file=sys.stderr)
        return 1
    levels = [[elo, handicap.nodes, handicap.noise_cp, handicap.lines] for elo, handicap in rows]
    print(json.dumps(levels))
    if args.write:
        data = json.loads(LEVELS_FILE.read_text())
        rows_text = ",\n".join(f"    {json.dumps(row)}" for row in levels)
        LEVELS_FILE.write_text(f'{{\n  "about": {json.dumps(data["about"])},\n  "levels": [\n{rows_text}\n  ]\n}}\n')
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["refit"]:
        parser = argparse.ArgumentParser(prog="python -m tuning.calibrate refit")
        parser.add_argument("output_dir", type=Path)
        parser.add_argument("--write", action="store_true", help="rewrite jitfish/engine/strength.json's levels")
        return refit(parser.parse_args(arguments[1:]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--settings", default="800,1100,1400,1700,2000,2300,2400", help="UCI_Elo values, comma-separated"
    )
    parser.add_argument(
        "--engine",
        nargs="+",
        metavar="KEY=VALUE",
        default=[f"cmd={sys.executable} -m jitfish", f"dir={REPO}"],
        help="the candidate, in --engine notation (default: python -m jitfish)",
    )
    parser.add_argument("--games", type=int, default=80, help="games per pairing (rounded up to even)")
    parser.add_argument(
        "--chain-games",
        type=int,
        help="games per pairing of two settings (default --games): they are quick, and carry the chain's error",
    )
    parser.add_argument("--tc", default="10+0.1")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--openings", default=str(REPO / "tuning" / "openings" / "balanced.epd"))
    parser.add_argument("--output-dir", type=Path, default=REPO / "records" / "strength" / "latest")
    parser.add_argument("--backend", choices=("auto", "cutechess", "python-chess"), default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(arguments)
    args.chain_games = args.chain_games or args.games
    return play(args)


if __name__ == "__main__":
    sys.exit(main())
