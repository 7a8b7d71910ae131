"""Bench nps of several checkouts, alternated in one window: is a build faster or slower than its parent?

    python -m scripts.bench.bench_alternate ../parent . --rounds 12      # the first checkout is the baseline
    python -m scripts.bench.bench_alternate ../parent . --network default  # with the shipped network

Each round runs every checkout once, in an order that rotates from round to round (so no build always runs
first, after an idle pause, or last), each in its own process with that checkout first on the path.  A run
warms up, searches the bench positions three times and keeps the best nodes per second of its searching
time, with ``bench``'s hand-written evaluation or ``--network``'s.  Prints every run, then each checkout's
median and range and its ratio to the baseline round by round: the median, the range, and the geometric
mean with a 95 % bootstrap interval.  Runs on this project's shared machine vary by about ±10 %, so a few
percent needs tens of rounds.  Stop the data generator first.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

RUN = """
from jitfish.search.bench import run_bench
network = None
if {network!r}:
    from jitfish.nnue.format import read_network, shipped_network
    from jitfish.nnue.inference import kernel_network
    network = kernel_network(shipped_network() if {network!r} == "default" else read_network({network!r}))
run_bench(quiet=True, network=network)
print(max(nodes / seconds for nodes, seconds in (run_bench(quiet=True, network=network) for _ in range({searches}))))
"""


def nps(checkout: Path, searches: int, network: str | None = None) -> float:
    """The best bench nps of ``searches`` searches in a fresh process of ``checkout``'s code, evaluating with
    ``network`` (a file, or ``default``) if given."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    code = RUN.format(searches=searches, network=network)
    done = subprocess.run([sys.executable, "-P", "-c", code], cwd=checkout, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"error: {checkout}: {done.stderr.strip().splitlines()[-1:]}")
    return float(done.stdout.split()[-1])


def bootstrap_mean(logs: list[float], rng: random.Random, draws: int = 10_000) -> tuple[float, float]:
    means = sorted(statistics.fmean(rng.choices(logs, k=len(logs))) for _ in range(draws))
    return math.exp(means[int(0.025 * draws)]), math.exp(means[int(0.975 * draws)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="+", type=Path, help="checkouts to compare; the first is the baseline")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--searches", type=int, default=3, help="bench searches per run, the best kept")
    parser.add_argument(
        "--network", metavar="NET", help="evaluate with a network file or 'default' (the shipped one), as in play"
    )
    args = parser.parse_args(argv)
    checkouts = [path.resolve() for path in args.checkouts]
    for checkout in checkouts:
        if not (checkout / "jitfish" / "__init__.py").is_file():
            parser.error(f"{checkout} is not a Jitfish checkout")
    runs: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
    for round_ in range(args.rounds):
        for k in range(len(checkouts)):
            checkout = checkouts[(round_ + k) % len(checkouts)]
            runs[checkout].append(nps(checkout, args.searches, args.network))
            print(f"round {round_ + 1} {checkout}: {runs[checkout][-1] / 1e6:.3f} Mnps", flush=True)
    base = runs[checkouts[0]]
    rng = random.Random(1)
    for checkout in checkouts:
        values = runs[checkout]
        median, low, high = (statistic(values) / 1e6 for statistic in (statistics.median, min, max))
        line = f"{checkout}: median {median:.3f} Mnps ({low:.3f}-{high:.3f})"
        if checkout != checkouts[0]:
            ratios = [value / parent for value, parent in zip(values, base)]
            logs = [math.log(ratio) for ratio in ratios]
            lower, upper = bootstrap_mean(logs, rng)
            line += (
                f"; ratio median {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}),"
                f" geometric mean {math.exp(statistics.fmean(logs)):.3f} [{lower:.3f}, {upper:.3f}]"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
