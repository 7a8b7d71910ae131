"""A search that crashes fails the tests, though users still get a legal move.

The engine's fallback (``info string error: search failed``, then the first
legal move) hides a crash from any test that only checks legality.  With
``JITFISH_RAISE_SEARCH_ERRORS`` set (``tests/conftest.py`` sets it) the
search thread re-raises after answering.  Here a deliberately broken search
entry must turn an in-process legality-only test red (run as a separate
pytest with the repository's configuration) and must fail a UCI pipe read;
without the variable the user still gets the fallback move.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import chess
import pytest

from jitfish.engine.engine import RAISE_SEARCH_ERRORS
from tests.uci.conftest import SEARCH_FAILED, UciPipe

REPO = Path(__file__).resolve().parents[2]
BROKEN = "RuntimeError('deliberately broken search kernel')"
# The UCI engine, with the search's entry point replaced by one that raises (and the load's
# warm-up search skipped, so that the engine loads and the crash comes at "go").
BROKEN_ENGINE = [
    sys.executable,
    "-c",
    textwrap.dedent(f"""
    import sys
    import jitfish.search

    def broken(*args, **kwargs):
        raise {BROKEN}

    jitfish.search.Searcher.search = broken
    import jitfish.runtime.compile
    jitfish.runtime.compile.warm_up_search = lambda *args, **kwargs: None
    from jitfish.cli import main
    sys.exit(main([]))
"""),
]

INNER_TEST = textwrap.dedent(f"""
    import chess
    from jitfish.engine.engine import Engine, EngineCallbacks, GoParams


    def broken(*args, **kwargs):
        raise {BROKEN}


    def test_only_checks_that_the_move_is_legal(monkeypatch):
        moves = []
        engine = Engine(EngineCallbacks(on_bestmove=lambda best, ponder: moves.append(best)))
        monkeypatch.setattr(engine.searcher, "search", broken)
        engine.go(GoParams(depth=2))
        assert engine.wait(60)
        assert chess.Move.from_uci(moves[0]) in chess.Board().legal_moves
""")


def test_the_suite_sets_the_switch():
    assert os.environ.get(RAISE_SEARCH_ERRORS) == "1"


def test_a_broken_search_turns_a_legality_only_test_red(tmp_path):
    """A pytest of its own, with the repository's configuration and the environment this session set."""
    (tmp_path / "test_inner.py").write_text(INNER_TEST)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-c",
            str(REPO / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:cacheprovider",
            str(tmp_path / "test_inner.py"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 1, result.stdout[-3000:]
    assert "1 failed" in result.stdout and "deliberately broken search kernel" in result.stdout, result.stdout[-3000:]


def engine_pipe(fail_on_search_error: bool, env: dict[str, str]) -> UciPipe:
    pipe = UciPipe(BROKEN_ENGINE, env=env, fail_on_search_error=fail_on_search_error)
    pipe.send("uci")
    pipe.read_until("uciok", 60)
    pipe.ready()
    pipe.send("position startpos")
    pipe.send("go depth 2")
    return pipe


def test_a_broken_search_fails_the_uci_pipe(warm_cache):
    pipe = engine_pipe(True, dict(os.environ))
    try:
        with pytest.raises(AssertionError, match="the search crashed"):
            pipe.read_until("bestmove", 60)
    finally:
        pipe.close()


def test_users_still_get_a_legal_fallback_move(warm_cache):
    env = {name: value for name, value in os.environ.items() if name != RAISE_SEARCH_ERRORS}
    pipe = engine_pipe(False, env)
    try:
        lines = pipe.read_until("bestmove", 60)
        assert any(line.startswith(SEARCH_FAILED) for line in lines), lines
        assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board().legal_moves
        assert pipe.ready()  # still running, still answering
    finally:
        assert pipe.close() == 0
