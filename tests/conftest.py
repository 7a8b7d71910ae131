"""Session set-up shared by every test.

Kernels load from Numba's on-disk cache, or compile when the package's
sources changed since the cache was written (20-40 s on this machine, a few
minutes for every group).  ``every_kernel_group_cached`` pays that once, up
front, before the first test of any run (a folder alone included; each
pytest-xdist worker takes its share of the groups), so that no
test's own timeout (a UCI answer, an engine subprocess's start, the first
``eval``) ever has to hold a compile; on a warm cache it only looks.  Tests
that use the board kernels in this process also ask for ``compiled_kernels``
(``tests/board`` for every test, through its conftest).

A search that raises must fail the test that started it, not pass as a
weak move: the engine re-raises in its search thread when
``JITFISH_RAISE_SEARCH_ERRORS`` is set (after answering with its fallback
move), which is set here for the whole session and so inherited by every
engine subprocess.  In-process, pytest turns the thread's exception into
a warning that ``pyproject.toml`` makes an error; over UCI, the
``UciPipe`` of ``tests/uci/conftest.py`` fails on the engine's ``search
failed`` line.  ``tests/test_search_errors.py`` proves both.
"""

from __future__ import annotations

import os

import pytest

import jitfish
from jitfish.engine.engine import RAISE_SEARCH_ERRORS

os.environ[RAISE_SEARCH_ERRORS] = "1"


@pytest.fixture(scope="session", autouse=True)
def every_kernel_group_cached() -> None:
    """Compile every kernel group of ``jitfish compile`` that the cache lacks, before the first test.

    The search first (the other groups call its kernels); then, under pytest-xdist, every other worker
    takes the remaining groups in the opposite order, so that two workers compile two groups side by side
    (each group under its own lock: the second to come loads what the first saved)."""
    from jitfish.runtime.compile import ENTRY_FILES, GROUPS, compile_all, is_cached, one_compile_at_a_time

    if all(is_cached(group) for group in ENTRY_FILES):
        return
    first, *rest = [name for name, _, _ in GROUPS]
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
    for name in [first, *(rest if worker % 2 == 0 else rest[::-1])]:
        with one_compile_at_a_time(group=name):
            if name not in ENTRY_FILES or not is_cached(name):
                compile_all(report=lambda line: None, groups=[name])


@pytest.fixture(scope="session")
def compiled_kernels() -> None:
    """Compile (or load) every board kernel once per session, and write the on-disk cache."""
    for chess960 in (False, True):
        board = jitfish.Board(chess960=chess960)
        board.legal_moves()
        board.push_uci("e2e4")
        board.fen()
        board.is_check()
        board.zobrist_from_scratch()
        board.pop()
        board.perft(3)
        board.perft(3, bulk=False)
        board.perft_divide(2)
        assert jitfish.perft(jitfish.STARTING_FEN, 4, chess960=chess960) == 197281
