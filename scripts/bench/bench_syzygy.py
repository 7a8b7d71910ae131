"""Compiled Syzygy WDL probes per second on random positions (one core).

    python -m scripts.bench.bench_syzygy                      # tests/data/syzygy, 4 pieces, 100,000 probes
    python -m scripts.bench.bench_syzygy --pieces 3 --count 20000 --path /path/to/syzygy

Positions are drawn (seeded) from the tables' materials with the requested
piece count, converted to the engine's arrays once, and probed in one
compiled loop (:func:`jitfish.syzygy.probe.probe_batch`), so the figure is
the prober's own speed: capture search, indexing and decompression.  The
first pass compiles and warms the page cache; the best of ``--repeat``
timed passes is reported.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.syzygy import Tablebase
from jitfish.syzygy.layout import TB_FAILED
from jitfish.syzygy.probe import probe_batch
from tests.syzygy.positions import random_position

REPO = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default=str(REPO / "tests" / "data" / "syzygy"))
    parser.add_argument("--pieces", type=int, default=4)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    tables = Tablebase(args.path)
    materials = sorted(wdl.name for wdl in tables.wdl_files if wdl.num == args.pieces)
    if not materials:
        sys.exit(f"no {args.pieces}-piece tables in {args.path}")
    rng = random.Random(args.seed)
    positions = [Position.from_fen(random_position(rng, rng.choice(materials)).fen()) for _ in range(args.count)]
    bbs = np.array([p.bbs for p in positions])
    state = np.array([p.state for p in positions])
    spare = Position()
    out = np.zeros(len(positions), dtype=np.int64)
    lookup = lookup_tables()
    probe_batch(bbs[:10], state[:10], spare.undo, spare.key_history, lookup, tables.tb, tables.scratch, out)
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        probe_batch(bbs, state, spare.undo, spare.key_history, lookup, tables.tb, tables.scratch, out)
        best = min(best, time.perf_counter() - start)
    failed = int(np.count_nonzero(out == TB_FAILED))
    print(f"{tables.summary()}")
    print(
        f"{args.count} random {args.pieces}-piece positions ({len(materials)} materials), "
        f"best of {args.repeat}: {best:.3f} s, {args.count / best:,.0f} probes/s, {failed} failed"
    )


if __name__ == "__main__":
    main()
