"""Ahead-of-time compiling: ``jitfish compile``, the cache check a start relies on, and the cold-start helper."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jitfish.runtime import compile as jit_compile
from jitfish.runtime.jit import COLD_START
from jitfish.search import Searcher


@pytest.fixture(scope="module")
def searched() -> None:
    jit_compile.warm_up_search()


def test_helper_compiles_the_signatures_the_search_calls():
    """The helper's work is only loaded if its argument types are exactly the search's.

    The helper builds its types from stand-ins (an empty position, an empty table); they must be the types of
    the arrays a search passes.  (Checked against the real arrays, not against the dispatchers' compiled
    signatures: with a warm cache the search loads its callees without listing them there.)
    """
    import numba

    import jitfish
    from jitfish.runtime.jit import COLD_START, HELPER

    searcher = Searcher(hash_mb=1)
    worker = searcher.workers[0]
    worker.position = jitfish.Board("r3k2r/pp3ppp/8/3q4/8/8/PPP2PPP/R2QK2R w KQkq - 0 1").position.copy()
    ctx = worker.context(searcher._tt, searcher._weights, searcher._params)
    real = {numba.typeof(value) for value in (ctx, *ctx)} | {numba.int64, numba.uint64}
    signatures = jit_compile._search_callee_signatures()
    for name, (_, signature) in signatures.items():
        assert set(signature) <= real, (name, set(signature) - real)
    split = [name for role in COLD_START for name in jit_compile._split(role)]
    assert sorted(split) == sorted(signatures)
    assert len(split) >= 20
    helper_kernels = jit_compile._split(HELPER)
    # quiescence's callees first, so that it loads them; the wait ends at its cache file
    assert helper_kernels[-1] == "quiescence" and "evaluate_with_psq" in helper_kernels
    assert jit_compile._helper_result_file() == "quiescence.quiescence-*.nbi"


def test_waiting_for_the_helper_ends_when_it_finishes(tmp_path):
    helper = subprocess.Popen([sys.executable, "-c", "pass"])
    jit_compile._await_helper(helper, tmp_path)
    assert helper.poll() == 0


@pytest.fixture
def sleeping_helper():
    """A helper process that uses no CPU and does not exit by itself."""
    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield helper
    helper.kill()
    helper.wait()


def test_waiting_for_the_helper_ends_early_when_it_gets_no_cpu(monkeypatch, tmp_path, sleeping_helper):
    """A starved helper is not waited for: this process compiles the rest itself."""
    monkeypatch.setattr(jit_compile, "HELPER_POLL_SECONDS", 0.2)
    jit_compile._await_helper(sleeping_helper, tmp_path)
    assert sleeping_helper.poll() is None


def test_waiting_for_the_helper_ends_once_its_last_kernel_is_cached(tmp_path, sleeping_helper):
    """The helper takes most of a second to exit after its work is saved: the wait ends at the cache file."""
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / jit_compile._helper_result_file().replace("*", "61.py311")).touch()
    jit_compile._await_helper(sleeping_helper, tmp_path)
    assert sleeping_helper.poll() is None


@pytest.mark.parametrize("group", sorted(jit_compile.ENTRY_FILES))
def test_a_group_is_cached_only_once_its_top_kernel_is(tmp_path, group):
    assert not jit_compile.is_cached(group, tmp_path / "missing")
    assert not jit_compile.is_cached(group, tmp_path)
    folder = tmp_path / "jitfish_search_abc"
    folder.mkdir()
    (folder / "movegen.generate_moves-10.py311.nbi").touch()  # another kernel's file does not count
    assert not jit_compile.is_cached(group, tmp_path)
    (folder / jit_compile.ENTRY_FILES[group].replace("*", "-42.py311")).touch()
    assert jit_compile.is_cached(group, tmp_path)


def test_search_is_cached_after_the_search_ran(searched):
    assert jit_compile.is_cached("search")


def test_compile_command_compiles_every_group(searched):
    result = subprocess.run([sys.executable, "-m", "jitfish", "compile"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr
    groups = [name for name, _, _ in jit_compile.GROUPS]
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines if line.split()[:1] and line.split()[0] in groups] == groups
    assert lines[-1].startswith("total")
    for group in jit_compile.ENTRY_FILES:
        assert jit_compile.is_cached(group), group


# A cold compile of the search in a fresh cache, the way a cold start splits it (each split kernel compiled
# ahead for the types the search calls it with, then the search warm-up in this process), then a tablebase
# search; after each, every Jitfish kernel the process holds.  (With a warm cache the callees load inside
# their callers' cached code and list no signature, so only a cold compile can tell.)
ONE_SIGNATURE_CHILD = """
import gc
from numba.core.registry import CPUDispatcher
from jitfish.runtime import compile as c
from jitfish.runtime.jit import COLD_START
from jitfish.engine.engine import Engine
from jitfish.engine.turn import EngineCallbacks, GoParams

def report(stage):
    for kernel in gc.get_objects():
        if isinstance(kernel, CPUDispatcher) and kernel.py_func.__module__.startswith("jitfish."):
            print(stage, kernel.py_func.__module__, kernel.py_func.__name__, len(kernel.signatures))

c._compile_callees(*COLD_START)
c.warm_search(helper=False)
report("start")
engine = Engine(EngineCallbacks(on_info=lambda info: None))
engine.set_option("SyzygyPath", {tables!r})
engine.set_position("8/8/3k4/8/3r4/8/3R1P2/4K3 w - - 0 1", [])
engine.go(GoParams(depth=8))
assert engine.wait(600)
report("tables")
"""


@pytest.mark.slow
def test_a_cold_search_compiles_each_kernel_for_one_signature(tmp_path):
    """A literal argument (``f(x, 0)`` where the search passes an int64 elsewhere) compiles a kernel once more,
    which a cold start pays for: the search's calls pass typed constants (``jitfish.search.context``).  The
    split's signatures are the ones the search types, so each split kernel, compiled ahead, is reused and holds
    exactly one version (a wrong signature would be the second compile the split is meant to save).  Only
    kernels that take the search context (negamax, and the picker's kernels ``history.py`` reads through) have
    two versions, without and with tables in the context, and a start without tables compiles no prober."""
    import importlib
    import inspect
    from pathlib import Path

    tables = str(Path(__file__).resolve().parents[1] / "data" / "syzygy")
    env = dict(os.environ, JITFISH_CACHE_DIR=str(tmp_path))
    child = subprocess.run(
        [sys.executable, "-c", ONE_SIGNATURE_CHILD.format(tables=tables)],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert child.returncode == 0, child.stderr[-2000:]
    counts = {stage: {} for stage in ("start", "tables")}
    for line in child.stdout.splitlines():
        stage, module, name, count = line.split()
        counts[stage][f"{module} {name}"] = int(count)
    start, tables = counts["start"], counts["tables"]
    assert start["jitfish.search.negamax negamax"] == 1 and start["jitfish.syzygy.probe probe_wdl"] == 0
    split = {
        f"{kernel.py_func.__module__} {kernel.__name__}"
        for role in COLD_START
        for kernel in jit_compile._registered(role)
    }
    assert {name: start.get(name) for name in split if start.get(name) != 1} == {}
    assert {name: count for name, count in start.items() if count > 1} == {}
    assert tables["jitfish.syzygy.probe probe_wdl"] == 1
    twice = {name: count for name, count in tables.items() if count > 1}
    assert twice["jitfish.search.negamax negamax"] == 2 and set(twice.values()) == {2}

    def takes_context(name: str) -> bool:
        module, function = name.split()
        kernel = getattr(importlib.import_module(module), function)
        return "ctx" in inspect.signature(kernel.py_func).parameters

    assert all(takes_context(name) for name in twice), twice
