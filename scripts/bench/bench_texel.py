"""Texel tuner speed report (a target, not an assert): seconds per epoch over a million positions.

    python -m scripts.bench.bench_texel                  # 1M synthetic positions, 25 coefficients each
    python -m scripts.bench.bench_texel --rows 200000 --epochs 5

The rows are random sparse traces shaped like real ones (the engine's weight
pairs, about 25 non-zero coefficients a position in self-play data), so the
timing needs no data set.  Target: an epoch over 1M positions in a few seconds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from jitfish.eval.params import WEIGHT_PAIRS, default_weights, frozen_mask
from tuning.texel import TuneSettings, sigmoid, tune
from tuning.trace import Traces


def synthetic(rows: int, per_row: int, seed: int) -> Traces:
    rng = np.random.default_rng(seed)
    index = rng.integers(0, WEIGHT_PAIRS, rows * per_row).astype(np.int16)
    coefficient = rng.choice(np.array([-2, -1, 1, 2], dtype=np.int16), rows * per_row)
    traces = Traces(
        indptr=np.arange(0, rows * per_row + 1, per_row, dtype=np.int64),
        index=index,
        coefficient=coefficient,
        phase=rng.random(rows),
        result=np.zeros(rows),
        score=np.zeros(rows),
    )
    pairs = default_weights()[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2).astype(np.float64)
    traces.result = (rng.random(rows) < sigmoid(0.004 * traces.evaluations(pairs))).astype(np.float64)
    return traces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--per-row", type=int, default=25)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=TuneSettings.batch_size)
    args = parser.parse_args()

    traces = synthetic(args.rows, args.per_row, seed=1)
    start = default_weights()[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)
    tune(traces, start, frozen_mask(), TuneSettings(epochs=1, batch_size=args.batch_size, k=0.004))  # compile
    started = time.perf_counter()
    result = tune(traces, start, frozen_mask(), TuneSettings(epochs=args.epochs, batch_size=args.batch_size))
    total = time.perf_counter() - started
    seconds = sorted(result.epoch_seconds)
    print(
        f"{args.rows} positions x {args.per_row} coefficients, batch {args.batch_size}: "
        f"epoch (Adam pass) median {seconds[len(seconds) // 2]:.2f} s, range {seconds[0]:.2f}-{seconds[-1]:.2f} s; "
        f"{total:.1f} s for K fit + {args.epochs} epochs with the loss after each"
    )


if __name__ == "__main__":
    main()
