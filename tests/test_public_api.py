"""The public API, listed: a name added to or dropped from ``jitfish`` is a deliberate change of this list."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import jitfish

REPO = Path(__file__).resolve().parents[1]

PUBLIC_NAMES = [
    "Board",
    "STARTING_FEN",
    "perft",
    "perft_divide",
    "search",
    "Searcher",
    "SearchLimits",
    "analyse",
    "__version__",
]


def test_the_public_names_are_these():
    assert jitfish.__all__ == PUBLIC_NAMES


def test_each_public_name_resolves():
    for name in PUBLIC_NAMES:
        assert getattr(jitfish, name) is not None, name
    assert callable(jitfish.search) and callable(jitfish.perft) and callable(jitfish.analyse)
    assert jitfish.Board().fen() == jitfish.STARTING_FEN


def test_the_module_and_the_console_script_run_the_cli():
    """``python -m jitfish`` and the ``jitfish`` console script (``jitfish.cli:main``) are the one CLI."""
    from jitfish.cli import main

    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"] == {"jitfish": "jitfish.cli:main"}
    assert callable(main)
    done = subprocess.run([sys.executable, "-m", "jitfish", "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage: jitfish" in done.stdout
