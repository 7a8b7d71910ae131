"""Session set-up shared by every test.

Kernels load from Numba's on-disk cache, or compile when the package's
sources changed since the cache was written (20-40 s on this machine).  The
warm-up below pays that once, up front, so that no test's own timing or
subprocess ever sees a cold cache.  Tests that use the board kernels ask for
it (``tests/board`` for every test, through its conftest); tests that never
touch a kernel do not pay for a compile.

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
from jitfish.engine import RAISE_SEARCH_ERRORS

os.environ[RAISE_SEARCH_ERRORS] = "1"


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
