"""Self-play throughput of this checkout's generator against an older commit's, run alternately.

    python scripts/datagen_throughput.py --old-ref 2609b46 --games 32 --rounds 3 --workers 1

The old commit's tree is extracted once (``git archive``) to a temporary folder; each round runs
``python -m tuning.datagen --games N`` from the old tree, then from this checkout, with the same seed,
and reports positions per second of wall clock and per CPU second (user + system, the children's),
then the ratios of the totals.  A warm-up game of each comes first so that compiling is not timed.
Wall-clock figures mean something only on an otherwise idle machine; the CPU-second figures are
less disturbed by other load but do not count time lost waiting (the old generator's thread joins).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
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
    done = subprocess.run([sys.executable, "-m", "tuning.datagen", "--games", str(games), "--workers", str(workers),
                           "--seed", str(seed), "--output", str(output), "--quiet"],
                          cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, capture_output=True, text=True,
                          check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return int(re.search(r"positions (\d+);", done.stdout).group(1)), wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-ref", default="2609b46", help="the commit to compare with")
    parser.add_argument("--games", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="datagen-throughput-") as scratch:
        old_tree = Path(scratch) / "old"
        old_tree.mkdir()
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.old_ref], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(old_tree)], input=archive.stdout, check=True)
        trees = {"old": (old_tree, ".gz"), "new": (REPO, ".bin")}
        for name, (tree, suffix) in trees.items():   # warm-up: compile or load the kernels
            run(tree, 1, 1, 10_000 + args.seed, Path(scratch) / f"warm-{name}{suffix}")
        totals = {name: [0, 0.0, 0.0] for name in trees}
        for number in range(args.rounds):
            for name, (tree, suffix) in trees.items():
                output = Path(scratch) / f"{name}-{number}{suffix}"
                positions, wall, cpu = run(tree, args.games, args.workers, args.seed + number, output)
                for i, value in enumerate((positions, wall, cpu)):
                    totals[name][i] += value
                print(f"round {number + 1} {name}: {positions} positions, {wall:.1f} s wall "
                      f"({positions / wall:.1f}/s), {cpu:.1f} CPU s ({positions / cpu:.1f}/CPU s)", flush=True)
        (old_p, old_wall, old_cpu), (new_p, new_wall, new_cpu) = totals["old"], totals["new"]
        print(f"new/old positions per second: wall {new_p / new_wall / (old_p / old_wall):.2f}x, "
              f"CPU {new_p / new_cpu / (old_p / old_cpu):.2f}x ({args.workers} worker(s), {args.games} games a run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
