"""``jitfish bench``: a fixed-depth search of 40 varied positions, the engine's signature.

Each position is searched to the same depth with a freshly cleared 16 MB
table on one thread, so the total node count is identical from run to run
and from machine to machine; it changes only when search or evaluation
behaviour changes.  Commit messages quote it as ``Bench: N``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.nnue.inference import KernelNetwork

BENCH_DEPTH = 13
BENCH_HASH_MB = 16

# Bratko-Kopec (24), every third CCR one-hour position, and 8 endgames.
BENCH_FENS = [
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - - 0 1",
    "rnbqkb1r/p3pppp/1p6/2ppP3/3N4/2P5/PPP1QPPP/R1B1KB1R w KQkq - 0 1",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - - 0 1",
    "2r3k1/pppR1pp1/4p3/4P1P1/5P2/1P4K1/P1P5/8 w - - 0 1",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - - 0 1",
    "4b3/p3kp2/6p1/3pP2p/2pP1P2/4K1P1/P3N2P/8 w - - 0 1",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1",
    "3rr1k1/pp3pp1/1qn2np1/8/3p4/PP1R1P2/2P1NQPP/R1B3K1 b - - 0 1",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - - 0 1",
    "r3r1k1/ppqb1ppp/8/4p1NQ/8/2P5/PP3PPP/R3R1K1 b - - 0 1",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - - 0 1",
    "rnb2r1k/pp2p2p/2pp2p1/q2P1p2/8/1Pb2NP1/PB2PPBP/R2Q1RK1 w - - 0 1",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    "r1bqkb1r/4npp1/p1p4p/1p1pP1B1/8/1B6/PPPN1PPP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - - 0 1",
    "r4k2/pb2bp1r/1p1qp2p/3pNp2/3P1P2/2N3P1/PPP1Q2P/2KRR3 w - - 0 1",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - - 0 1",
    "2r2rk1/1bqnbpp1/1p1ppn1p/pP6/N1P1P3/P2B1N1P/1B2QPP1/R2R2K1 b - - 0 1",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 1",
    "r2qnrnk/p2b2b1/1p1p2pp/2pPpp2/1PP1P3/PRNBB3/3QNPPP/5RK1 w - - 0 1",
    "rn1qkb1r/pp2pppp/5n2/3p1b2/3P4/2N1P3/PP3PPP/R1BQKBNR w KQkq - 0 1",
    "r1bqrnk1/pp2bp1p/2p2np1/3p2B1/3P4/2NBPN2/PPQ2PPP/1R3RK1 w - - 1 12",
    "r4rk1/3nppbp/bq1p1np1/2pP4/8/2N2NPP/PP2PPB1/R1BQR1K1 b - - 1 12",
    "rnbqr1k1/1p3pbp/p2p1np1/2pP4/4P3/2N5/PP1NBPPP/R1BQ1RK1 w - - 1 11",
    "rnbq1b1r/ppp2kpp/3p1n2/8/3PP3/8/PPP2PPP/RNBQKB1R b KQ d3 1 5",
    "r1bqkb1r/2pp1ppp/p1n5/1p2p3/3Pn3/1B3N2/PPP2PPP/RNBQ1RK1 b kq - 2 7",
    "rn1qk2r/1b2bppp/p2ppn2/1p6/3NP3/1BN5/PPP2PPP/R1BQR1K1 w kq - 5 10",
    "r3kb1r/pp1n1ppp/1q2p3/n2p4/3P1Bb1/2PB1N2/PPQ2PPP/RN2K2R w KQkq - 3 11",
    "rn2kb1r/pp2pppp/1qP2n2/8/6b1/1Q6/PP1PPPBP/RNB1K1NR b KQkq - 1 6",
    "8/8/1p1k4/1P6/2K5/8/8/8 w - - 0 1",
    "8/5pk1/6p1/8/4PK2/6P1/8/8 w - - 0 1",
    "1k6/1P5p/BP3p2/1P6/8/8/5PKP/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/1r3PPP/3R2K1 w - - 0 1",
    "8/3k4/3p4/3P4/2K5/8/8/8 w - - 0 1",
    "2K5/2P2k2/8/8/8/8/1r6/7R w - - 0 1",
    "8/8/8/4k3/8/8/3QK3/8 w - - 0 1",
]


def run_bench(
    depth: int = BENCH_DEPTH, positions: int | None = None, quiet: bool = False, network=None
) -> tuple[int, float]:
    """Search the bench positions; return (total nodes, seconds spent searching).

    ``network``: a :class:`jitfish.nnue.inference.KernelNetwork` to evaluate with (default: hand-written).
    """
    from jitfish.board.board import Board
    from jitfish.runtime.compile import warm_up_search
    from jitfish.search import Searcher, SearchLimits

    searcher = Searcher(hash_mb=BENCH_HASH_MB, threads=1, network=network)
    warm_up_search()
    total_nodes = 0
    total_time = 0.0
    for index, fen in enumerate(BENCH_FENS[:positions]):
        searcher.clear()
        started = time.perf_counter()
        result = searcher.search(Board(fen), SearchLimits(depth=depth))
        total_time += time.perf_counter() - started
        total_nodes += result.nodes
        if not quiet:
            print(f"Position: {index + 1}/{len(BENCH_FENS[:positions])} {fen}: {result.best_move} {result.nodes}")
    return total_nodes, total_time


def bench_network(name: str | None) -> KernelNetwork | None:
    """The network a benchmark evaluates with, by the name its ``--network`` option takes: ``None`` for the
    hand-written evaluation (``bench``'s), ``"default"`` for the shipped network, else a file's path."""
    if not name:
        return None
    from jitfish.nnue.format import read_network, shipped_network
    from jitfish.nnue.inference import kernel_network

    return kernel_network(shipped_network() if name == "default" else read_network(name))


def bench_report(nodes: int, seconds: float) -> str:
    """The Stockfish-style summary that ``bench`` prints (on the command line and over UCI)."""
    return "\n".join(
        [
            "===========================",
            f"Total time (ms): {int(seconds * 1000)}",
            f"Nodes searched: {nodes}",
            f"Nodes/second: {int(nodes / max(seconds, 1e-9))}",
        ]
    )


def bench_command(depth: int | None = None) -> int:
    """Print each position's result and the summary; the CLI's ``bench`` subcommand."""
    nodes, seconds = run_bench(BENCH_DEPTH if depth is None else depth)
    print(bench_report(nodes, seconds))
    return 0
