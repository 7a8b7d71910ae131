"""Every position of the games searched once, in this process or on a pool of worker processes.

Each position is searched by itself: the searcher's transposition table and histories are cleared before
it, the position carries the game's moves (so a repetition is seen), and the search runs on one thread with
the shipped network, as the engine plays.  With a node or depth limit a position's result therefore
depends on nothing but the position and its game: the same with one worker or eight, in any order.
(A time limit is not reproducible: the nodes a second buys vary from run to run.)  Workers are spawned
processes; each imports Jitfish and loads the kernels from the on-disk cache, which this process fills
first when it is cold.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from jitfish.search import Searcher, SearchLimits

HASH_MB = 16


@dataclass(frozen=True)
class Position:
    """A position of a game: the game's start and the moves (UCI) that lead to it."""

    fen: str
    chess960: bool
    moves: tuple[str, ...]


@dataclass(frozen=True)
class Evaluation:
    """The search of one position, from the side to move: the score, the best line (UCI; empty when the game
    is over there), the depth and nodes it took."""

    score_cp: int | None
    score_mate: int | None
    pv: tuple[str, ...]
    depth: int
    nodes: int


_searcher: Searcher | None = None


def _shared_searcher() -> Searcher:
    """This process's searcher, made at first use: the shipped network, a table of ``HASH_MB``."""
    global _searcher
    if _searcher is None:
        from jitfish.nnue.format import shipped_network
        from jitfish.nnue.inference import kernel_network

        _searcher = Searcher(hash_mb=HASH_MB, network=kernel_network(shipped_network()))
    return _searcher


def evaluate(position: Position, limits: SearchLimits) -> Evaluation:
    """Search ``position`` within ``limits`` with a cleared table and histories."""
    from jitfish.board.board import Board

    board = Board(position.fen, chess960=position.chess960)
    for move in position.moves:
        board.push_uci(move)
    searcher = _shared_searcher()
    searcher.clear()
    result = searcher.search(board, limits)
    pv = () if result.best_move == "0000" else tuple(result.pv)
    return Evaluation(result.score_cp, result.score_mate, pv, result.depth, result.nodes)


def _evaluate_job(job: tuple[Position, SearchLimits]) -> Evaluation:
    return evaluate(*job)


def warm_kernels(say: Callable[[str], None]) -> None:
    """Load the search kernels, compiling them first (and saying so) when the cache is cold."""
    from jitfish.runtime.compile import COLD_START_SECONDS, is_cached, one_compile_at_a_time, warm_search

    if not is_cached("search"):
        say(f"compiling the search kernels (first run only, about {COLD_START_SECONDS} s)")
    with one_compile_at_a_time():
        warm_search()


def evaluate_all(
    positions: Sequence[Position],
    limits: SearchLimits,
    workers: int = 1,
    progress: bool = False,
    say: Callable[[str], None] | None = None,
) -> list[Evaluation]:
    """Every position searched (in order), on ``workers`` processes, with a progress bar on stderr if asked
    (and stderr is a terminal)."""
    from tqdm import tqdm

    say = say or (lambda line: print(line, file=sys.stderr, flush=True))
    warm_kernels(say)
    results: list[Evaluation] = []
    shown = None if progress else True  # None: shown on a terminal only
    with tqdm(
        total=len(positions), unit="pos", desc="analysing", disable=shown, file=sys.stderr, dynamic_ncols=True
    ) as bar:
        for evaluation in _evaluations(positions, limits, workers):
            results.append(evaluation)
            bar.update()
    return results


def _evaluations(positions: Sequence[Position], limits: SearchLimits, workers: int) -> Iterator[Evaluation]:
    if workers <= 1 or len(positions) <= 1:
        for position in positions:
            yield evaluate(position, limits)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(positions)), mp_context=context) as pool:
        yield from pool.map(_evaluate_job, [(position, limits) for position in positions])
