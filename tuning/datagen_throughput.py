"""Self-play throughput of this checkout's generator against an older commit's, run alternately.

    python -m tuning.datagen_throughput --old-ref 2609b46 --games 32 --rounds 5 --workers 2

The old commit's tree is extracted once (``git archive``) to a temporary folder, or taken as it is
from ``--old-tree``; each round runs ``python -m tuning.datagen --games N`` from the old tree, then
from this checkout, with the same seed (round ``r`` uses ``seed + r``), and reports positions per
second of wall clock, per hour, and per CPU second (user + system, the children's: the worker
processes included), with the one-minute load average beside each run.  Then the medians of the
runs and of the rounds' new/old ratios, with their ranges.  A warm-up game of each comes first so
that compiling is not timed.  Wall-clock figures mean something only on an otherwise idle machine;
the CPU-second figures are less disturbed by other load but do not count time lost waiting (the old
generator's thread joins).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(tree: Path, games: int, workers: int, seed: int, output: Path) -> tuple[int, float, float]:
    """``(positions, wall seconds, CPU seconds)`` of one generator run from ``tree``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuning.datagen",
            "--games",
            str(games),
            "--workers",
            str(workers),
            "--seed",
            str(seed),
            "--output",
            str(output),
            "--quiet",
        ],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(re.search(r"positions (\d+);", done.stdout).group(1)), wall, cpu


def spread(values: list[float], digits: int = 1) -> str:
    """A median and the range, e.g. ``123.4 (118.0-130.2)``."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-ref", default="2609b46", help="the commit to compare with")
    parser.add_argument("--old-tree", type=Path, help="a checkout of the old commit to run as it is (read only)")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="datagen-throughput-") as scratch:
        old_tree = args.old_tree
        if old_tree is None:
            old_tree = Path(scratch) / "old"
            old_tree.mkdir()
            archive = subprocess.run(["git", "-C", str(REPO), "archive", args.old_ref], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
        trees = {"old": (old_tree.resolve(), ".gz"), "new": (REPO, ".bin")}
        for name, (tree, suffix) in trees.items():  # warm-up: compile or load the kernels
            run(tree, 1, 1, 10_000 + args.seed, Path(scratch) / f"warm-{name}{suffix}")
        rates: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name in trees}
        for number in range(args.rounds):
            for name, (tree, suffix) in trees.items():
                load = os.getloadavg()[0]
                positions, wall, cpu = run(
                    tree, args.games, args.workers, args.seed + number, Path(scratch) / f"{name}-{number}{suffix}"
                )
                rates[name]["wall"].append(positions / wall)
                rates[name]["cpu"].append(positions / cpu)
                print(
                    f"round {number + 1} {name}: {positions} positions, {wall:.1f} s wall ({positions / wall:.1f}/s, "
                    f"{positions / wall * 3600 / 1000:.0f}k/h), {cpu:.1f} CPU s ({positions / cpu:.1f}/CPU s), "
                    f"load {load:.1f}",
                    flush=True,
                )
        print(f"{args.rounds} rounds of {args.games} games, {args.workers} worker(s); medians (ranges):")
        for name in trees:
            hourly = [rate * 3.6 for rate in rates[name]["wall"]]
            print(f"  {name}: {spread(rates[name]['cpu'])} positions/CPU s, {spread(hourly, 0)}k positions/h")
        for measure in ("cpu", "wall"):
            ratios = [new / old for new, old in zip(rates["new"][measure], rates["old"][measure])]
            print(f"  new/old per {'CPU s' if measure == 'cpu' else 'wall s'}: {spread(ratios, 2)}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
