"""Compile every kernel ahead of time, group by group, into the on-disk cache.

A cold start (first run after an install or a source change) compiles the
search before ``readyok``; ``jitfish compile`` pays that cost at install time
instead.  The groups are the entry points a session calls: each group's
warm-up calls its top kernel, which compiles (or loads) everything below it.

``is_cached`` answers, without compiling anything, whether a group would load
from the cache: its top kernel has a file there.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

# Numba names a cached overload ``<module>.<function>-<line>.py<ver>.nbi``, in a
# subfolder of the cache per source folder.  Each group's top kernel: when it is
# cached, so is everything it calls (Numba saves callees first).
ENTRY_FILES = {
    "search": "negamax.negamax-*.nbi",
    "eval": "evaluation.evaluate_white-*.nbi",
    "perft": "perft.perft_kernel-*.nbi",
}
# What a cold start costs before ``readyok``, said on such a start (measured: README, "Start-up").
COLD_START_SECONDS = 60


def _warm_search() -> None:
    from jitfish.search.driver import Searcher

    Searcher(hash_mb=1).warm_up()


def _warm_eval() -> None:
    from jitfish.board.board import Board
    from jitfish.eval import evaluate, evaluate_terms

    board = Board()
    evaluate(board)
    evaluate_terms(board)


def _warm_board() -> None:
    from jitfish.board.board import Board

    for chess960 in (False, True):
        board = Board(chess960=chess960)
        board.push_uci("e2e4")
        board.legal_moves()
        board.is_check()
        board.fen()
        board.pop()


def _warm_perft() -> None:
    from jitfish.board.board import Board

    board = Board()
    board.perft(2)
    board.perft(2, bulk=False)
    board.perft_divide(2)


# (name, what it is for, warm-up).  The search comes first: UCI needs it before ``readyok``.
GROUPS: list[tuple[str, str, Callable[[], None]]] = [
    ("search", "the search, before readyok", _warm_search),
    ("eval", "the evaluation report (UCI 'eval', jitfish.eval)", _warm_eval),
    ("board", "the Board API (moves, check, FEN)", _warm_board),
    ("perft", "perft (UCI 'go perft', jitfish perft)", _warm_perft),
]


def is_cached(group: str, cache_dir: Path | None = None) -> bool:
    """Whether ``group`` (a key of ``ENTRY_FILES``) loads from the cache, i.e. its top kernel is there."""
    if cache_dir is None:
        from jitfish.jit import CACHE_DIR as cache_dir
    return cache_dir.is_dir() and any(cache_dir.rglob(ENTRY_FILES[group]))


def compile_all(report: Callable[[str], None] = print, groups: list[str] | None = None) -> float:
    """Compile (or load) each group's kernels into the cache; return the total seconds."""
    from jitfish.jit import CACHE_DIR

    report(f"kernel cache: {CACHE_DIR}")
    total = 0.0
    for name, purpose, warm in GROUPS:
        if groups is not None and name not in groups:
            continue
        started = time.perf_counter()
        warm()
        elapsed = time.perf_counter() - started
        total += elapsed
        report(f"{name:7s} {elapsed:6.1f} s  {purpose}")
    report(f"total   {total:6.1f} s")
    return total
