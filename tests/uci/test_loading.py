"""Background loading: what a start says, and which kernels it loads after readyok.

Perft and the eval report load after readyok only when the search came from the cache and they are cached too.
"""

from __future__ import annotations

import pytest

from jitfish.uci import protocol


class FakeEngine:
    """Stands in for the engine: records which warm-up steps ran; its search warm-up compiles if ``COMPILES``."""

    COMPILES = False

    def __init__(self, callbacks) -> None:
        self.steps: list[str] = []

    def warm_up(self) -> None:
        self.steps.append("search")
        if self.COMPILES:   # what Numba signals when a kernel is compiled rather than loaded from the cache
            from numba.core import event

            with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (), "return_type": None}):
                pass

    def warm_up_eval(self) -> None:
        self.steps.append("eval")

    def warm_up_perft(self) -> None:
        self.steps.append("perft")


def start(monkeypatch: pytest.MonkeyPatch, slow_load_seconds: float, cold_cache: bool = False,
          perft_cached: bool = True, compiles: bool = False) -> tuple[list[str], list[str]]:
    """(the warm-up steps run, the lines sent) of a start that loads with the fake engine."""
    cached = {"search": not cold_cache, "eval": not cold_cache, "perft": perft_cached and not cold_cache}
    monkeypatch.setattr(protocol, "SLOW_LOAD_SECONDS", slow_load_seconds)
    monkeypatch.setattr(FakeEngine, "COMPILES", compiles)
    monkeypatch.setattr(protocol, "_is_cached", lambda group: cached[group])
    sent: list[str] = []
    uci = protocol.UciProtocol(sent.append, engine_factory=FakeEngine)
    uci._release_held()  # as after the GUI's first command: messages go out at once
    uci.start_loading()
    uci._loader.join(timeout=30)
    return uci.engine.steps, sent


def load(monkeypatch: pytest.MonkeyPatch, slow_load_seconds: float, **cache) -> list[str]:
    return start(monkeypatch, slow_load_seconds, **cache)[0]


def test_perft_and_eval_load_after_a_fast_warm_start(monkeypatch):
    assert load(monkeypatch, slow_load_seconds=60.0) == ["search", "eval", "perft"]


def test_perft_waits_for_go_perft_after_a_warm_start_that_compiled(monkeypatch):
    # A stale cache compiled kernels: perft would compile too and starve a search of the GIL.
    assert load(monkeypatch, slow_load_seconds=60.0, compiles=True) == ["search"]


def test_a_slow_warm_start_that_compiles_nothing_is_still_warm(monkeypatch):
    """A loaded machine makes a warm start slow; only a real compile makes it say so."""
    steps, sent = start(monkeypatch, slow_load_seconds=-1.0)
    assert steps == ["search", "eval", "perft"] and sent == []


def test_a_warm_start_that_compiles_says_how_long_it_took(monkeypatch):
    _, sent = start(monkeypatch, slow_load_seconds=60.0, compiles=True)
    assert len(sent) == 1 and sent[0].startswith("info string kernels compiled and cached in ")


def test_perft_waits_for_go_perft_after_a_start_with_an_empty_cache(monkeypatch):
    assert load(monkeypatch, slow_load_seconds=60.0, cold_cache=True) == ["search"]


def test_perft_waits_for_go_perft_when_only_the_search_kernels_are_cached(monkeypatch):
    # A warm start whose cache lacks perft (the first start compiled only the search) must not compile it.
    assert load(monkeypatch, slow_load_seconds=60.0, perft_cached=False) == ["search", "eval"]


def test_a_compiling_start_says_so_in_one_line(monkeypatch):
    from jitfish.compile import COLD_START_SECONDS

    _, sent = start(monkeypatch, slow_load_seconds=60.0, cold_cache=True)
    assert sent == [f"info string compiling the search kernels (first start only, about {COLD_START_SECONDS} s)"]


def test_a_warm_start_says_nothing(monkeypatch):
    _, sent = start(monkeypatch, slow_load_seconds=60.0)
    assert sent == []


def test_perft_cache_is_found_once_perft_has_run():
    import jitfish

    jitfish.perft(jitfish.STARTING_FEN, 1)
    assert protocol._is_cached("perft")
