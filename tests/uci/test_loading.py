"""Background loading: perft is loaded after readyok only when the other kernels came from the cache."""

from __future__ import annotations

import pytest

from jitfish.uci import protocol


class FakeEngine:
    """Stands in for the engine: records which warm-up steps ran."""

    def __init__(self, callbacks) -> None:
        self.steps: list[str] = []

    def warm_up(self) -> None:
        self.steps.append("search")

    def warm_up_perft(self) -> None:
        self.steps.append("perft")


def load(monkeypatch: pytest.MonkeyPatch, slow_load_seconds: float, cold_cache: bool = False,
         perft_cached: bool = True) -> list[str]:
    monkeypatch.setattr(protocol, "SLOW_LOAD_SECONDS", slow_load_seconds)
    monkeypatch.setattr(protocol, "_cache_is_cold", lambda cache_dir: cold_cache)
    monkeypatch.setattr(protocol, "_perft_is_cached", lambda: perft_cached)
    uci = protocol.UciProtocol(lambda line: None, engine_factory=FakeEngine)
    uci.start_loading()
    uci._loader.join(timeout=30)
    return uci.engine.steps


def test_perft_loads_after_a_fast_warm_start(monkeypatch):
    assert load(monkeypatch, slow_load_seconds=60.0) == ["search", "perft"]


def test_perft_waits_for_go_perft_after_a_slow_compiling_start(monkeypatch):
    # A load slower than SLOW_LOAD_SECONDS compiled kernels: perft would compile too and starve a search of the GIL.
    assert load(monkeypatch, slow_load_seconds=-1.0) == ["search"]


def test_perft_waits_for_go_perft_after_a_start_with_an_empty_cache(monkeypatch):
    assert load(monkeypatch, slow_load_seconds=60.0, cold_cache=True) == ["search"]


def test_perft_waits_for_go_perft_when_only_the_search_kernels_are_cached(monkeypatch):
    # A warm start whose cache lacks perft (the first start compiled only the search) must not compile it.
    assert load(monkeypatch, slow_load_seconds=60.0, perft_cached=False) == ["search"]


def test_perft_cache_is_found_once_perft_has_run():
    import jitfish

    jitfish.perft(jitfish.STARTING_FEN, 1)
    assert protocol._perft_is_cached()
