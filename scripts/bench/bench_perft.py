"""Perft speed report: Jitfish (bulk and non-bulk) against python-chess and Stockfish.

Everything is measured in one run, so the ratios compare like with like on
whatever load the machine has.  Usage::

    python -m scripts.bench.bench_perft [--quick] [--cold]

``--quick`` uses lower depths; ``--cold`` also times a first compile in an
empty cache directory (30-60 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess

import jitfish

STOCKFISH = "/usr/games/stockfish"
POSITIONS = {
    "startpos": jitfish.STARTING_FEN,
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
}
STARTUP_SNIPPET = (
    "import time; t = time.perf_counter(); import jitfish; "
    "n = jitfish.perft(jitfish.STARTING_FEN, 1); "
    "print(n, time.perf_counter() - t, flush=True)"
)


def timed(function, *args) -> tuple[int, float]:
    started = time.perf_counter()
    nodes = function(*args)
    return nodes, time.perf_counter() - started


def python_chess_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in board.legal_moves:
        board.push(move)
        nodes += python_chess_perft(board, depth - 1)
        board.pop()
    return nodes


def stockfish_perft(fen: str, depth: int) -> tuple[int, float] | None:
    if not Path(STOCKFISH).exists():
        return None
    engine = subprocess.Popen([STOCKFISH], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert engine.stdin and engine.stdout
    engine.stdin.write("uci\nisready\n")
    engine.stdin.flush()
    while engine.stdout.readline().strip() != "readyok":
        pass
    started = time.perf_counter()
    engine.stdin.write(f"position fen {fen}\ngo perft {depth}\n")
    engine.stdin.flush()
    while not (line := engine.stdout.readline()).startswith("Nodes searched"):
        pass
    elapsed = time.perf_counter() - started
    engine.stdin.write("quit\n")
    engine.stdin.flush()
    engine.wait()
    return int(line.split()[-1]), elapsed


def startup_seconds(cache_dir: str | None = None) -> float:
    """Wall time of a fresh process from launch to its first perft result."""
    env = dict(os.environ)
    if cache_dir:
        env["JITFISH_CACHE_DIR"] = cache_dir
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", STARTUP_SNIPPET], env=env, stdout=subprocess.PIPE, text=True)
    assert child.stdout
    line = child.stdout.readline()  # the result arrives here; interpreter teardown is not counted
    elapsed = time.perf_counter() - started
    child.wait()
    assert line.split()[0] == "20", line
    return elapsed


def mnps(nodes: int, seconds: float) -> float:
    return nodes / seconds / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="lower depths (a smoke run)")
    parser.add_argument("--cold", action="store_true", help="also time a cold compile")
    args = parser.parse_args()
    depths = {"startpos": 5, "kiwipete": 4} if args.quick else {"startpos": 6, "kiwipete": 5}
    python_depth = 3

    jitfish.perft(POSITIONS["kiwipete"], 2)  # load kernels before timing
    print(f"{'position':10} {'engine':24} {'depth':>5} {'nodes':>12} {'seconds':>8} {'Mnps':>8}")
    summary = []
    for name, fen in POSITIONS.items():
        depth = depths[name]
        rows = {}
        rows["jitfish bulk"] = (depth, *timed(jitfish.perft, fen, depth, False, True))
        rows["jitfish make/unmake"] = (depth, *timed(jitfish.perft, fen, depth, False, False))
        rows["python-chess"] = (python_depth, *timed(python_chess_perft, chess.Board(fen), python_depth))
        stockfish = stockfish_perft(fen, depth)
        if stockfish:
            rows["stockfish go perft"] = (depth, *stockfish)
        for engine, (d, nodes, seconds) in rows.items():
            print(f"{name:10} {engine:24} {d:5} {nodes:12} {seconds:8.3f} {mnps(nodes, seconds):8.2f}")
        bulk = mnps(*rows["jitfish bulk"][1:])
        plain = mnps(*rows["jitfish make/unmake"][1:])
        pychess = mnps(*rows["python-chess"][1:])
        line = f"{name}: bulk/python-chess {bulk / pychess:.0f}x, make-unmake/python-chess {plain / pychess:.0f}x"
        if stockfish:
            line += f", bulk/stockfish {bulk / mnps(*rows['stockfish go perft'][1:]):.2f}x"
        summary.append(line)
    print()
    print("\n".join(summary))
    warm = sorted(startup_seconds() for _ in range(5))
    print(f"start-up to first perft result, warm cache: {warm[2]:.2f} s (median of 5, {warm[0]:.2f}-{warm[-1]:.2f})")
    if args.cold:
        cache = tempfile.mkdtemp(prefix="jitfish-cold-")
        try:
            print(f"start-up to first perft result, cold cache: {startup_seconds(cache):.1f} s")
        finally:
            shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
