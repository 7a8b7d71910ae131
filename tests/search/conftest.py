"""Shared fixtures for the search tests: kernels compiled (or loaded) once, data files."""

from __future__ import annotations

from pathlib import Path

import pytest

import jitfish
from jitfish.runtime.compile import warm_up_search
from jitfish.search import Searcher

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.fixture(scope="session")
def searcher() -> Searcher:
    warm_up_search()
    return Searcher(hash_mb=16)


@pytest.fixture
def fresh(searcher: Searcher) -> Searcher:
    """The session searcher with its table and heuristics cleared (as after ``ucinewgame``)."""
    searcher.clear()
    return searcher


def board(fen: str) -> jitfish.Board:
    return jitfish.Board(fen)
