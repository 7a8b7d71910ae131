"""Time what OpenBench's client does with Jitfish: build, one `bench` per thread at once, `genfens`.

    python -m scripts.bench.bench_openbench [--copies 2] [--genfens 64]

The client's steps (``tuning/openbench/client_steps.py``): HEAD built as the client builds it, then
``./Engines/<name> bench`` started ``--copies`` times at once on an empty compile cache (``JITFISH_CACHE_DIR``),
then ``genfens`` on the now warm cache.  Prints each bench's seconds (the client allows 60), the node counts,
and genfens's longest wait for a line (the client allows 15 s).  Commit first: HEAD is what is built.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tuning.openbench.client_steps import (
    BENCH_LIMIT_SECONDS,
    GENFENS_GAP_SECONDS,
    REPO,
    benches_at_once,
    build_as_the_client,
    client_bench_nodes,
    genfens,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=2, help="benches at once (the client runs one per thread)")
    parser.add_argument("--genfens", type=int, default=64, help="positions asked of genfens")
    args = parser.parse_args()
    expected = int((REPO / "tests" / "data" / "bench.txt").read_text().split()[-1])
    with tempfile.TemporaryDirectory(prefix="jitfish-openbench-") as scratch:
        work = Path(scratch)
        started = time.perf_counter()
        executable, made = build_as_the_client(work, "Jitfish-test", work / "build-cache")
        print(
            f"make -j EXE=Jitfish-test CC=python3: {time.perf_counter() - started:.1f} s "
            f"(warm-up bench {client_bench_nodes(made.stdout)} nodes), exit {made.returncode}"
        )
        if made.returncode != 0:
            print(made.stdout + made.stderr)
            return 1
        cache = work / "empty-cache"
        results = benches_at_once(executable, args.copies, cache)
        for index, (seconds, nodes, _) in enumerate(results, 1):
            verdict = "ok" if nodes == expected and seconds < BENCH_LIMIT_SECONDS else "FAILS the client's check"
            print(
                f"bench {index}/{args.copies} from an empty cache: {seconds:.1f} s, {nodes} nodes "
                f"(expected {expected}, limit {BENCH_LIMIT_SECONDS} s): {verdict}"
            )
        fens, longest = genfens(executable, args.genfens, 1, cache)
        print(
            f"genfens {args.genfens}: {len(fens)} positions, longest wait for a line {longest:.1f} s "
            f"(limit {GENFENS_GAP_SECONDS} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
