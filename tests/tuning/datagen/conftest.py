"""A searcher for the data generator's tests, its kernels loaded (or compiled) once per session."""

from __future__ import annotations

import pytest

from jitfish.runtime.compile import warm_up_search
from jitfish.search import Searcher
from tuning.datagen.selfplay import GameSettings


@pytest.fixture(scope="session")
def searcher() -> Searcher:
    warm_up_search()
    return Searcher(hash_mb=16)


@pytest.fixture(scope="session")
def fast() -> GameSettings:
    """Real searches, short games: a few seconds for two of them."""
    return GameSettings(nodes=500, depth_cap=8)
