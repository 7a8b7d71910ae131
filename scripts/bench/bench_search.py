"""Search speed and strength report (targets, not asserts).

    python -m scripts.bench.bench_search                 # bench nodes and nps, WAC at 20k nodes
    python -m scripts.bench.bench_search --wac-time 1    # also Win At Chess at 1 s per position

Prints the bench signature and speed on one thread, then the Win At Chess
solve rate at a fixed node budget (deterministic) and, if asked, at a fixed
time per position.  Targets: >= 1.5 Mnps, WAC >= 270/300 at 1 s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import chess

import jitfish
from jitfish.runtime.compile import warm_up_search
from jitfish.search import Searcher, SearchLimits
from jitfish.search.bench import BENCH_DEPTH, run_bench

WAC = Path(__file__).resolve().parents[2] / "tests" / "data" / "win_at_chess.epd"


def wac(limits: SearchLimits, path: Path, count: int | None = None) -> tuple[int, int, int, float]:
    """(solved, positions, nodes, seconds) over the Win At Chess ``bm`` positions."""
    searcher = Searcher(hash_mb=16)
    warm_up_search()
    solved = total = nodes = 0
    started = time.perf_counter()
    for line in path.read_text().splitlines()[:count]:
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        searcher.clear()
        result = searcher.search(jitfish.Board(board.fen()), limits)
        solved += result.best_move in {m.uci() for m in ops.get("bm", [])}
        total += 1
        nodes += result.nodes
    return solved, total, nodes, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=BENCH_DEPTH)
    parser.add_argument("--wac-nodes", type=int, default=20000)
    parser.add_argument("--wac-time", type=float, default=None, help="seconds per position")
    parser.add_argument("--count", type=int, default=None, help="only the first N WAC positions")
    args = parser.parse_args()

    nodes, seconds = run_bench(args.depth, quiet=True)
    print(f"bench depth {args.depth}: {nodes} nodes, {seconds:.2f} s, {nodes / seconds / 1e6:.3f} Mnps")
    solved, total, nodes, seconds = wac(SearchLimits(nodes=args.wac_nodes), WAC, args.count)
    print(f"WAC {solved}/{total} at {args.wac_nodes} nodes ({seconds:.1f} s, {nodes / seconds / 1e6:.3f} Mnps)")
    if args.wac_time:
        solved, total, nodes, seconds = wac(SearchLimits(movetime=args.wac_time), WAC, args.count)
        print(f"WAC {solved}/{total} at {args.wac_time} s ({nodes / seconds / 1e6:.3f} Mnps)")


if __name__ == "__main__":
    main()
