"""NNUE trainer speed (a report, not an assert): training positions a second, each backend in turn.

    python -m scripts.bench.bench_train --hidden 128 --threads 2                 # J-1's recipe, both backends
    python -m scripts.bench.bench_train --hidden 256 --threads 2 --rounds 5 --positions 400000
    python -m scripts.bench.bench_train data/nnue/selfplay-seed127-*.bin --backends numba
    python -m scripts.bench.bench_train --profile          # where a pass's time goes, backend by backend

Each round times one training pass (:func:`tuning.nnue.train.train_epoch`: batches, gradients, AdamW's
step, clipping; no held-out loss, no checkpoint) over the same ``--positions`` rows of the data and their
mirrors, for every backend in turn, from a fresh run of J-1's settings at ``--hidden`` (SCReLU, 8 output
buckets, AdamW, batch 4096, λ 0.1). A first, untimed pass per backend compiles the Numba kernels and warms
the caches. Prints each backend's median and range of positions a second, and the ratio of the medians to
the first backend's. The data is read once into the user's Jitfish cache (``nnue/bench``).

``--profile`` instead times the parts of one pass's batches in microseconds a position: for ``torch``,
building the batch (:func:`tuning.nnue.data.batch`), the forward pass and loss, autograd's backward pass,
and the optimiser's step with the clipping; for ``numba``, the two kernels and the step with the clipping.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from jitfish.runtime.cache import cache_root
from tuning.nnue.data import Positions, batch, load_positions_cached, with_mirrors
from tuning.nnue.sparse import SparseGradients
from tuning.nnue.train import BACKENDS, TrainSettings, loss, new_run, train_epoch

DEFAULT_DATA = Path("data/nnue/selfplay-seed127-nodes5000-nnue-30f9be6dc16f.bin")
J1_SETTINGS = TrainSettings(
    hidden=128,
    activation="screlu",
    buckets=8,
    blend=0.9,
    optimiser="adamw",
    weight_decay=0.01,
    lr=0.003,
    schedule="cosine",
    schedule_epochs=40,
    mirror=True,
)


def positions_a_second(settings: TrainSettings, positions: Positions, rows: np.ndarray) -> float:
    run = new_run(settings)
    started = time.perf_counter()
    train_epoch(run, positions, rows, quiet=True)
    return len(rows) / (time.perf_counter() - started)


def profile(settings: TrainSettings, positions: Positions, rows: np.ndarray, threads: int) -> dict[str, float]:
    """Microseconds a position of each part of a pass over ``rows`` (the parts of ``train_epoch``'s loop)."""
    run = new_run(settings)
    parts: dict[str, float] = {}
    clock = time.perf_counter

    def timed(name: str, started: float) -> float:
        now = clock()
        parts[name] = parts.get(name, 0.0) + now - started
        return now

    size = settings.batch_size
    if settings.backend == "torch":
        for first in range(0, len(rows), size):
            started = clock()
            inputs = batch(positions, rows[first : first + size])
            started = timed("batch", started)
            batch_loss = loss(settings, run.model, inputs)
            started = timed("forward and loss", started)
            run.optimiser.zero_grad()
            batch_loss.backward()
            started = timed("backward", started)
            run.optimiser.step()
            run.model.clip_weights()
            timed("step and clip", started)
    else:
        torch.set_num_threads(1)  # as train_epoch does for this backend
        with SparseGradients(run.model, size, settings.scale, settings.wdl_scale, settings.blend, threads) as grads:
            for first in range(0, len(rows), size):
                started = clock()
                grads(positions, rows[first : first + size])
                started = timed("kernels (features, forward, loss, backward)", started)
                run.optimiser.step()
                run.model.clip_weights()
                timed("step and clip", started)
        torch.set_num_threads(threads)
    return {name: seconds / len(rows) * 1e6 for name, seconds in parts.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="*", default=[DEFAULT_DATA], help=f"default {DEFAULT_DATA}")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--positions", type=int, default=200_000, help="rows a pass trains on (with mirrors)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS))
    parser.add_argument("--profile", action="store_true", help="time the parts of a pass instead")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    positions = with_mirrors(load_positions_cached(args.data, cache_root() / "nnue" / "bench"))
    rows = np.random.default_rng(0).choice(len(positions), min(args.positions, len(positions)), replace=False)
    settings = {
        backend: dataclasses.replace(J1_SETTINGS, hidden=args.hidden, backend=backend) for backend in args.backends
    }
    np.asarray(positions.records[rows % len(positions.records)])  # map every page the passes read
    for backend in args.backends:  # compile, warm up
        positions_a_second(settings[backend], positions, rows[: 4 * J1_SETTINGS.batch_size])
    if args.profile:
        for backend in args.backends:
            parts = profile(settings[backend], positions, rows, args.threads)
            print(f"{backend}, hidden {args.hidden}, {args.threads} threads, {sum(parts.values()):.2f} us a position:")
            for name, micros in parts.items():
                print(f"  {name:45s} {micros:6.2f} us")
        return
    speeds: dict[str, list[float]] = {backend: [] for backend in args.backends}
    for round_number in range(args.rounds):
        for backend in args.backends:
            speeds[backend].append(positions_a_second(settings[backend], positions, rows))
        print(
            f"round {round_number + 1}: "
            + ", ".join(f"{backend} {speeds[backend][-1]:,.0f}" for backend in args.backends)
            + " positions/s",
            flush=True,
        )
    first = statistics.median(speeds[args.backends[0]])
    print(f"hidden {args.hidden}, {args.threads} threads, {len(rows):,} positions a pass, {args.rounds} rounds:")
    for backend in args.backends:
        median = statistics.median(speeds[backend])
        print(
            f"  {backend:6s} {median:10,.0f} positions/s (range {min(speeds[backend]):,.0f}-"
            f"{max(speeds[backend]):,.0f}), {median / first:.2f}x {args.backends[0]}"
        )


if __name__ == "__main__":
    main()
