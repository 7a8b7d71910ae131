"""How much of ``bench``'s searching time is spent outside the search kernel: the Python around it.

    python -m scripts.bench.bench_outside                      # the hand-written evaluation, as bench
    python -m scripts.bench.bench_outside --network default    # the shipped network

``bench`` times each position's ``Searcher.search`` (with the ``Board`` it is given), and Python runs
there between the kernel's calls: the board and the search's set-up, one call per aspiration window, the
report of each iteration.  This times every call of the kernel from the worker and prints, per round of
the 40 positions, the total searching time, the kernel's part and the rest, which a faster kernel does not
shrink.  Stop the data generator first.
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

from jitfish.search import negamax as N
from jitfish.search import worker
from jitfish.search.bench import BENCH_FENS, bench_network, run_bench


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--network", help="a network file, or 'default' for the shipped one (default: hand-written)")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    network = bench_network(args.network)
    in_kernel = 0.0

    def timed_negamax(*arguments):
        nonlocal in_kernel
        started = time.perf_counter()
        score = N.negamax(*arguments)
        in_kernel += time.perf_counter() - started
        return score

    # The worker calls ``N.negamax``: hand it a module whose ``negamax`` is timed (the compiled kernels keep theirs).
    worker.N = SimpleNamespace(negamax=timed_negamax, late_move_reductions=N.late_move_reductions)
    for round_ in range(args.rounds + 1):  # the first round warms up
        in_kernel = 0.0
        _, total = run_bench(quiet=True, network=network)
        if round_:
            outside = total - in_kernel
            print(
                f"searching {total * 1000:.1f} ms, kernel {in_kernel * 1000:.1f} ms, "
                f"outside {outside * 1000:.1f} ms ({100 * outside / total:.1f} %, "
                f"{outside / len(BENCH_FENS) * 1000:.2f} ms a position)"
            )


if __name__ == "__main__":
    main()
