"""Time the first move after an option, as a bot or GUI plays it through python-chess.

    python -m scripts.bench.bench_first_move [--against DIR] [--runs 3] [--option SyzygyPath=./syzygy/]

Each run starts from a fresh kernel cache in which only the search is
compiled (a first ``isready``, not timed), as after a plain first start; then
a new engine process (in an empty folder, so ``./syzygy/`` does not exist)
gets the options with ``configure``, and ``play(time=2)`` is timed: what a
lichess-bot's first move costs.  Options that make the first search compile
(``SyzygyPath`` before issue 48) show here as tens of seconds.  Runs of this
checkout and ``--against`` alternate; each run compiles the search once
(20-60 s on two cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.engine

REPO = Path(__file__).resolve().parents[2]


def first_move_seconds(checkout: Path, options: dict[str, str]) -> float:
    """Seconds of the first ``play(time=2)`` after ``options``, on a cache holding only the search."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, JITFISH_CACHE_DIR=cache, PYTHONPATH=str(checkout))
        command = [sys.executable, "-m", "jitfish"]
        subprocess.run(
            command, input="isready\nquit\n", text=True, env=env, cwd=checkout, stdout=subprocess.DEVNULL, check=True
        )  # compiles the search into the cache
        engine = chess.engine.SimpleEngine.popen_uci(command, cwd=folder, env=env, timeout=120)
        try:
            engine.ping()
            engine.configure(options)
            started = time.perf_counter()
            engine.play(chess.Board(), chess.engine.Limit(time=2))
            return time.perf_counter() - started
        finally:
            engine.quit()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", type=Path, help="another checkout, run alternately")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--option", action="append", default=[], help="NAME=VALUE (default SyzygyPath=./syzygy/)")
    args = parser.parse_args()
    options = dict(text.split("=", 1) for text in args.option or ["SyzygyPath=./syzygy/"])
    checkouts = [REPO] + ([args.against.resolve()] if args.against else [])
    seconds: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
    for run in range(args.runs):
        for checkout in checkouts:
            seconds[checkout].append(first_move_seconds(checkout, options))
            print(f"run {run + 1} {checkout}: {seconds[checkout][-1]:.2f} s", flush=True)
    for checkout, values in seconds.items():
        print(
            f"{checkout}: median {statistics.median(values):.2f} s, range {min(values):.2f}-{max(values):.2f} s "
            f"({len(values)} runs, options {options})"
        )


if __name__ == "__main__":
    main()
