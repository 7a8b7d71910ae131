"""NNUE inference speed: accumulator refreshes, incremental updates and evaluations per second, and the
compile time of :mod:`jitfish.nnue.inference`'s kernels.

    python -m scripts.bench.bench_nnue [--positions 300] [--seconds 1.0] [--hidden 128 256]
    python -m scripts.bench.bench_nnue --search NET.nnue [--rounds 5] [--depth 13]
    python -m scripts.bench.bench_nnue --search jitfish/nnue/default.nnue --random 64 128 256 384

The kernels run inside compiled loops over the first ``--positions`` positions of the shipped sample
(``tests/data/datagen_sample.gz``), with random networks of each hidden size, so the figures exclude
Python's call overhead; each is the best of three runs of about ``--seconds``.  An update is one
``sub_feature`` plus one ``add_feature`` (a quiet move, for one perspective).  The compile time is measured
in a child process with an empty cache directory: the first call of each kernel, as the engine will make it.

``--search`` runs ``jitfish bench``'s positions instead, in turn with each network given (``NET.nnue``
files, and with ``--random 64 128 256`` random SCReLU networks of 8 buckets at those widths, the way to
price a width before training it) and with the hand-written evaluation, and prints each run's nodes and
speed, then the medians: the search's cost per node of each network, measured in the same minutes (this
machine's speed wanders).  Random weights give other trees than a trained network's; nps is what compares.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from jitfish.nnue.inference import (
    add_feature,
    evaluate_accumulators,
    kernel_network,
    refresh_accumulator,
    sub_feature,
)
from jitfish.runtime.jit import kernel

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "datagen_sample.gz"
KERNEL_NAMES = (
    "feature_index",
    "add_feature",
    "sub_feature",
    "refresh_accumulator",
    "evaluate_accumulators",
    "nnue_evaluate",
)

# Run in a child process with an empty JITFISH_CACHE_DIR: print each kernel's first-call seconds as JSON.
COMPILE_SNIPPET = """
import json, time
import numpy as np
started = time.perf_counter()
from jitfish.nnue import inference as I
from jitfish.nnue.format import SCRELU
from tests.nnue.networks import random_network
imported = time.perf_counter() - started
net = I.kernel_network(random_network(seed=1, hidden=128, activation=SCRELU))
bbs = np.zeros(16, dtype=np.uint64)
bbs[5], bbs[11] = np.uint64(1 << 4), np.uint64(1 << 60)
acc = net.new_accumulators()
calls = {
    "feature_index": lambda: I.feature_index(0, 1, 5, 60),
    "add_feature": lambda: I.add_feature(acc[0], net.weights, 3),
    "sub_feature": lambda: I.sub_feature(acc[0], net.weights, 3),
    "refresh_accumulator": lambda: I.refresh_accumulator(bbs, net.weights, net.biases, 0, acc[0]),
    "evaluate_accumulators": lambda: I.evaluate_accumulators(acc[0], acc[1], 2, *net[2:]),
    "nnue_evaluate": lambda: I.nnue_evaluate(bbs, 0, *net),
}
seconds = {"import": imported}
for name, call in calls.items():
    started = time.perf_counter()
    call()
    seconds[name] = time.perf_counter() - started
print(json.dumps(seconds))
"""


@kernel(hot=True)
def _refresh_loop(positions, weights, biases, out, repeats):
    checksum = 0
    for repeat in range(repeats):
        for index in range(positions.shape[0]):
            refresh_accumulator(positions[index], weights, biases, repeat & 1, out)
            checksum += out[index % out.shape[0]]
    return checksum


@kernel(hot=True)
def _update_loop(features, weights, accumulator, repeats):
    for _ in range(repeats):
        for index in range(features.shape[0] - 1):
            sub_feature(accumulator, weights, features[index])
            add_feature(accumulator, weights, features[index + 1])
    return accumulator[0]


@kernel(hot=True)
def _evaluate_loop(accumulators, pieces, output_weights, output_bias, qa, qb, scale, screlu, narrow, repeats):
    total = 0
    for _ in range(repeats):
        for index in range(accumulators.shape[0]):
            total += evaluate_accumulators(
                accumulators[index, 0],
                accumulators[index, 1],
                pieces[index],
                output_weights,
                output_bias,
                qa,
                qb,
                scale,
                screlu,
                narrow,
            )
    return total


def best_rate(run, operations_per_repeat: int, seconds: float) -> float:
    """Operations per second, the best of three runs of about ``seconds`` each."""
    run(1)
    started = time.perf_counter()
    run(1)
    repeats = max(1, int(seconds / max(time.perf_counter() - started, 1e-9)))
    best = 0.0
    for _ in range(3):
        started = time.perf_counter()
        run(repeats)
        best = max(best, repeats * operations_per_repeat / (time.perf_counter() - started))
    return best


def compile_seconds() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="jitfish-nnue-bench-") as cache:
        env = dict(os.environ, JITFISH_CACHE_DIR=cache, PYTHONPATH=str(REPO))
        done = subprocess.run(
            [sys.executable, "-c", COMPILE_SNIPPET], env=env, cwd=REPO, capture_output=True, text=True, check=True
        )
    return json.loads(done.stdout.strip().splitlines()[-1])


def search_rounds(paths: list[str], widths: list[int], rounds: int, depth: int) -> None:
    """Bench at ``depth`` with each network of ``paths``, a random SCReLU network of 8 buckets at each of
    ``widths``, and the hand-written evaluation, in turn, ``rounds`` times; each one's nps and the medians."""
    from statistics import median

    from jitfish.nnue.format import SCRELU, network_shape, read_network
    from jitfish.search.bench import run_bench
    from tests.nnue.networks import random_network

    networks = {path: kernel_network(read_network(path)) for path in paths}
    for width in widths:
        random = random_network(seed=width, hidden=width, activation=SCRELU, buckets=8)
        networks[f"random {network_shape(width, 8)}"] = kernel_network(random)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; bench depth {depth}")
    for name, network in networks.items():
        print(f"{name}: {network_shape(network.hidden, network.buckets)}")
    contenders = {**networks, "hand-written": None}
    for net in contenders.values():  # the first run of each compiles or loads its kernels: not a round
        run_bench(depth, positions=1, quiet=True, network=net)
    speeds: dict[str, list[float]] = {name: [] for name in contenders}
    for round_number in range(1, rounds + 1):
        for name, net in contenders.items():
            nodes, seconds = run_bench(depth, quiet=True, network=net)
            speeds[name].append(nodes / seconds)
            print(f"round {round_number} {name:24s} {nodes:9d} nodes {nodes / seconds / 1e6:5.2f} Mnps", flush=True)
    for name, values in speeds.items():
        print(f"{name:24s} median {median(values) / 1e6:.2f} Mnps ({min(values) / 1e6:.2f}-{max(values) / 1e6:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--hidden", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--search", metavar="NET", nargs="*", help="bench positions with these networks and without")
    parser.add_argument(
        "--random", metavar="N", type=int, nargs="*", default=[], help="with --search: random networks of these widths"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--depth", type=int, default=13)
    args = parser.parse_args()
    if args.search is not None:
        search_rounds(args.search, args.random, args.rounds, args.depth)
        return

    import chess

    import jitfish
    from jitfish.nnue.format import CRELU, SCRELU
    from tests.nnue.networks import random_network
    from tuning.datagen.lines import read_data

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    compiled = compile_seconds()
    kernels = sum(compiled[name] for name in KERNEL_NAMES)
    print(
        f"cold compile: import {compiled['import']:.1f} s, kernels {kernels:.1f} s ("
        + ", ".join(f"{name} {compiled[name]:.1f}" for name in KERNEL_NAMES)
        + ")"
    )

    fens = [fen for fen, _, _ in read_data(SAMPLE, check_position=False)][: args.positions]
    positions = np.stack([jitfish.Board(fen).position.bbs for fen in fens])
    pieces = np.array([len(chess.Board(fen).piece_map()) for fen in fens], dtype=np.int64)
    rng = np.random.default_rng(0)
    features = rng.integers(0, 768, 1000)
    for hidden in args.hidden:
        for activation in (CRELU, SCRELU):
            net = kernel_network(random_network(seed=hidden, hidden=hidden, activation=activation))
            accumulators = np.empty((len(fens), 2, hidden), dtype=np.int16)
            for index, bbs in enumerate(positions):
                for perspective in (0, 1):
                    refresh_accumulator(bbs, net.weights, net.biases, perspective, accumulators[index, perspective])
            evaluations = best_rate(
                lambda r: _evaluate_loop(accumulators, pieces, *net[2:], r),  # noqa: B023
                len(fens),
                args.seconds,
            )
            name = "screlu" if activation == SCRELU else "crelu"
            print(f"hidden {hidden:4d} {name:6s}: {evaluations / 1e6:6.2f} M evaluations/s")
        out = np.empty(hidden, dtype=np.int16)
        # best_rate calls each lambda before the loop moves on, so the loop's variables are the ones meant.
        refreshes = best_rate(
            lambda r: _refresh_loop(positions, net.weights, net.biases, out, r),  # noqa: B023
            len(fens),
            args.seconds,
        )
        updates = best_rate(
            lambda r: _update_loop(features, net.weights, out, r),  # noqa: B023
            len(features) - 1,
            args.seconds,
        )
        print(
            f"hidden {hidden:4d}       : {refreshes / 1e6:6.2f} M refreshes/s (one perspective), "
            f"{updates / 1e6:6.2f} M updates/s (one sub + one add)"
        )


if __name__ == "__main__":
    main()
