"""Background loading: what a start says, and that it loads the search's kernels and nothing after readyok.

A kernel loading in the background holds the GIL and would keep a search from stopping in time, so the eval
report and perft load when first asked, and say so when that compiles.
"""

from __future__ import annotations

import pytest

from jitfish.runtime import compile as jit_compile
from jitfish.uci import loading, protocol


class FakeEngine:
    """Stands in for the engine: records what ran; its search warm-up compiles if ``COMPILES``."""

    COMPILES = False

    def __init__(self, callbacks) -> None:
        self.steps: list[str] = []

    def warm_up(self, helper=None) -> None:
        self.steps.append("search")
        if self.COMPILES:  # what Numba signals when a kernel is compiled rather than loaded from the cache
            from numba.core import event

            with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (), "return_type": None}):
                pass

    def perft(self, depth: int) -> dict[str, int]:
        self.steps.append("perft")
        return {"e2e4": 1}

    def eval_report(self) -> str:
        self.steps.append("eval")
        return "Final evaluation: +0.00"


def start(
    monkeypatch: pytest.MonkeyPatch,
    slow_load_seconds: float,
    cold_cache: bool = False,
    eval_cached: bool = True,
    perft_cached: bool = True,
    compiles: bool = False,
) -> tuple[protocol.UciProtocol, list[str]]:
    """(the protocol, the lines sent) of a start that has loaded the fake engine."""
    cached = {
        "search": not cold_cache,
        "eval": eval_cached and not cold_cache,
        "perft": perft_cached and not cold_cache,
    }
    monkeypatch.setattr(loading, "SLOW_LOAD_SECONDS", slow_load_seconds)
    monkeypatch.setattr(FakeEngine, "COMPILES", compiles)
    monkeypatch.setattr(loading, "is_cached", lambda group: cached[group])
    monkeypatch.setattr(jit_compile, "start_helper", lambda: None)  # no real compile process for a fake engine
    sent: list[str] = []
    uci = protocol.UciProtocol(sent.append, engine_factory=FakeEngine)
    uci.output.release_held()  # as after the GUI's first command: messages go out at once
    uci.wait_engine()
    return uci, sent


def test_a_warm_start_loads_only_the_search(monkeypatch):
    uci, _ = start(monkeypatch, slow_load_seconds=60.0)
    assert uci.engine.steps == ["search"]


def test_a_slow_warm_start_that_compiles_nothing_is_still_warm(monkeypatch):
    """A loaded machine makes a warm start slow; only a real compile makes it say so."""
    uci, sent = start(monkeypatch, slow_load_seconds=-1.0)
    assert uci.engine.steps == ["search"] and sent == []


def test_a_warm_start_that_compiles_says_how_long_it_took(monkeypatch):
    _, sent = start(monkeypatch, slow_load_seconds=60.0, compiles=True)
    assert len(sent) == 1 and sent[0].startswith("info string kernels compiled and cached in ")


def test_a_compiling_start_says_so_in_one_line(monkeypatch):
    from jitfish.runtime.compile import COLD_START_SECONDS

    _, sent = start(monkeypatch, slow_load_seconds=60.0, cold_cache=True)
    assert sent == [f"info string compiling the search kernels (first start only, about {COLD_START_SECONDS} s)"]


def test_a_warm_start_says_nothing(monkeypatch):
    _, sent = start(monkeypatch, slow_load_seconds=60.0)
    assert sent == []


@pytest.mark.parametrize("command, group", [("go perft 1", "perft"), ("eval", "eval")])
def test_a_first_use_that_compiles_says_so_before_answering(monkeypatch, command, group):
    from jitfish.runtime.compile import FIRST_USE_SECONDS

    uci, sent = start(monkeypatch, slow_load_seconds=60.0, perft_cached=False, eval_cached=False)
    uci.handle(command)
    assert sent[0] == f"info string compiling the {group} kernels (first use only, about {FIRST_USE_SECONDS[group]} s)"
    assert uci.engine.steps == ["search", group] and len(sent) > 1


@pytest.mark.parametrize("command", ["go perft 1", "eval"])
def test_a_first_use_from_the_cache_says_nothing(monkeypatch, command):
    uci, sent = start(monkeypatch, slow_load_seconds=60.0)
    uci.handle(command)
    assert not any(line.startswith("info string") for line in sent)


def test_perft_cache_is_found_once_perft_has_run():
    import jitfish

    jitfish.perft(jitfish.STARTING_FEN, 1)
    assert loading.is_cached("perft")
