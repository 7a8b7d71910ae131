"""Tactics and mates at fixed limits, with the hand-written evaluation and with the shipped network.

    python -m tuning.tactics_suites                 # both evaluations, 20,000 nodes a position
    python -m tuning.tactics_suites --nodes 100000
    python -m tuning.tactics_suites --eval-file records/matches/nnue-issue50/nets/E-1.nnue
    python -m tuning.tactics_suites --set RFP_MAX_DEPTH=4 --set LMR_MIN_DEPTH=4

The network is the shipped one, or ``--eval-file``'s; ``--set`` changes search
parameters (``jitfish/search/params.py``, their ranges checked) for both runs.
To measure another build, run this file with that tree on the path instead of
this checkout (``PYTHONPATH=/path/to/tree python -P tuning/tactics_suites.py``,
from this checkout: it imports nothing but ``jitfish``, which then is that
tree's): the suites stay this checkout's.

Deterministic (fixed nodes, a cleared searcher per position), so the figures
compare builds and evaluations exactly: a change to the search or the
evaluation should not solve fewer.  Suites, from ``tests/data``: Win At Chess
(300), Bratko-Kopec (24) and the CCR one-hour test (positions with a ``bm``),
counted as solved when the move played is a ``bm`` move; and the mate suite
(mates in 1-4, counted when the search reports the exact distance within
``2 N + 3`` plies, as ``tests/search/test_mates.py`` asks).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import chess

import jitfish
from jitfish.nnue.format import read_network, shipped_network
from jitfish.nnue.inference import kernel_network
from jitfish.runtime.compile import warm_up_search
from jitfish.search import Searcher, SearchLimits
from jitfish.search.params import default_params, params_from_dict

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SUITES = ("win_at_chess.epd", "bratko_kopec.epd", "ccr_one_hour.epd")
MATES = DATA / "mates" / "mate_suite.txt"


def best_moves(line: str) -> tuple[str, set[str]] | None:
    """The FEN and the ``bm`` moves (UCI) of an EPD line, or None without a ``bm``.

    The suites' lines differ (move counters or none, ``id`` before or after
    ``bm``), so only the first four fields and the ``bm`` operation are read.
    """
    found = re.search(r"\bbm ([^;]+);", line)
    if not found:
        return None
    board = chess.Board(" ".join(line.split()[:4]) + " 0 1")
    moves = set()
    for san in found.group(1).split():
        try:
            moves.add(board.parse_san(san).uci())
        except ValueError:  # a move the suite misspells is not counted
            pass
    return board.fen(), moves


def solved_in_suite(searcher: Searcher, path: Path, nodes: int) -> tuple[int, int]:
    """(solved, positions) of one ``bm`` suite."""
    solved = total = 0
    for line in path.read_text().splitlines():
        case = best_moves(line)
        if case is None:
            continue
        fen, moves = case
        searcher.clear()
        solved += searcher.search(jitfish.Board(fen), SearchLimits(nodes=nodes)).best_move in moves
        total += 1
    return solved, total


def mates_found(searcher: Searcher) -> tuple[int, int]:
    """(mates reported at their exact distance, positions) of the mate suite."""
    found = total = 0
    for line in MATES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fen, mate = line.split(";")[:2]
        moves = int(mate.split()[1])
        searcher.clear()
        result = searcher.search(jitfish.Board(fen.strip()), SearchLimits(depth=2 * moves + 3, mate=moves))
        found += result.score_mate == moves
        total += 1
    return found, total


def parameter_setting(text: str) -> tuple[str, int]:
    """``NAME=VALUE`` of ``--set`` as (name, integer value)."""
    name, sep, value = text.partition("=")
    try:
        return name.strip(), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=INTEGER, got {text!r}") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=20_000, help="nodes per position of the bm suites")
    parser.add_argument("--eval-file", type=Path, help="the network to search with (default: the shipped one)")
    parser.add_argument(
        "--set",
        type=parameter_setting,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a search parameter's value for this run (repeatable)",
    )
    args = parser.parse_args()
    try:
        params = params_from_dict(dict(args.set), base=default_params())
        network = read_network(args.eval_file) if args.eval_file else shipped_network()
    except (OSError, ValueError) as error:
        parser.error(str(error))
    for name, net in (("hand-written", None), ("network", kernel_network(network))):
        searcher = Searcher(hash_mb=16, network=net, params=params)
        warm_up_search()
        figures = [
            f"{path.split('.')[0]} {'/'.join(map(str, solved_in_suite(searcher, DATA / path, args.nodes)))}"
            for path in SUITES
        ]
        figures.append(f"mates {'/'.join(map(str, mates_found(searcher)))}")
        print(f"{name:>12}: " + ", ".join(figures), flush=True)


if __name__ == "__main__":
    main()
