"""A fresh process loads every kernel from the on-disk cache and compiles nothing.

A cold start compiles the board kernels (20-40 s here, more under load); a
warm one loads them in about a second.  The child runs once to make sure the
cache holds exactly what it needs, then again under ``NUMBA_DEBUG_CACHE=1``,
which makes Numba print a line for every cache load and every save: the
second run must load and never save, leave the cache files untouched, and
compile nothing (how long a warm start takes is scripts/bench/bench_uci.py's business).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("compiled_kernels")

CHILD = """
import time
started = time.perf_counter()
import jitfish, jitfish.runtime.jit
imported = time.perf_counter()
nodes = jitfish.perft(jitfish.STARTING_FEN, 4)
done = time.perf_counter()
print("nodes", nodes)
print("cache", jitfish.runtime.jit.CACHE_DIR)
print(f"import {imported - started:.3f} s, perft {done - imported:.3f} s")
"""
# The search: a cached recursive negamax calling the recursive quiescence (Numba #6061 crashed such
# chains on the load after the one that compiled them).
SEARCH_CHILD = """
import jitfish, jitfish.runtime.jit
result = jitfish.search(jitfish.Board(), depth=5, hash_mb=1)
print("nodes", result.nodes)
print("cache", jitfish.runtime.jit.CACHE_DIR)
"""
# The search with Syzygy tables: the WDL prober inside negamax (a five-piece root whose captures reach the
# four-piece tables) and the compiled DTZ block decoder of root probing (a four-piece root).
TABLES = Path(__file__).resolve().parents[1] / "data" / "syzygy"
TABLEBASE_CHILD = f"""
import jitfish.runtime.jit
from jitfish.engine.engine import Engine
from jitfish.engine.turn import EngineCallbacks, GoParams
infos = []
engine = Engine(EngineCallbacks(on_info=infos.append))
engine.set_option("SyzygyPath", {str(TABLES)!r})
for fen in ("8/8/3k4/8/3r4/8/3R1P2/4K3 w - - 0 1", "8/8/8/4k3/8/8/8/R3K3 w - - 70 1"):
    engine.set_position(fen, [])
    engine.go(GoParams(depth=8))
    assert engine.wait(600)
    print("tbhits", infos[-1].tbhits, "score", infos[-1].score_cp, infos[-1].score_mate)
print("cache", jitfish.runtime.jit.CACHE_DIR)
"""
ATTEMPTS = 3  # another engineer's edit to jitfish/ between two runs changes the cache directory


def run_child(code: str = CHILD) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)


def cache_files(cache_dir: Path) -> dict[str, int]:
    """Each cached file's modification time; the compile locks, which other test workers take, left out."""
    return {
        str(path): path.stat().st_mtime_ns for path in cache_dir.rglob("*") if path.is_file() and path.suffix != ".lock"
    }


def child_value(result: subprocess.CompletedProcess, key: str) -> str:
    for line in result.stdout.splitlines():
        if line.startswith(key + " "):
            return line[len(key) + 1 :]
    raise AssertionError(f"no {key!r} line in:\n{result.stdout}\n{result.stderr}")


def warm_run(code: str) -> tuple[subprocess.CompletedProcess, Path, dict[str, int]]:
    """A run of ``code`` after one that filled the cache: its result, the cache and its files before."""
    for _ in range(ATTEMPTS):
        warm_up = run_child(code)  # compiles whatever the cache still lacks
        assert warm_up.returncode == 0, warm_up.stderr
        cache_dir = Path(child_value(warm_up, "cache"))
        before = cache_files(cache_dir)
        result = run_child(code)
        assert result.returncode == 0, result.stderr
        if Path(child_value(result, "cache")) == cache_dir:
            return result, cache_dir, before  # nobody changed the sources in between
    raise AssertionError("the package sources kept changing; the cache directory never settled")


def assert_loaded_only(result: subprocess.CompletedProcess, cache_dir: Path, before: dict[str, int]) -> None:
    cache_lines = [line for line in result.stdout.splitlines() if line.startswith("[cache]")]
    saves = [line for line in cache_lines if "saved" in line]
    assert not saves, "kernels were compiled again:\n" + "\n".join(saves)
    assert any("data loaded" in line for line in cache_lines), "no kernel came from the cache"
    # Files this run did not have before may be another test worker's kernels, compiled meanwhile.
    after = cache_files(cache_dir)
    assert {path: after.get(path) for path in before} == before, "the cache files changed"


def test_fresh_process_loads_every_kernel_from_the_cache_without_compiling():
    result, cache_dir, before = warm_run(CHILD)
    assert child_value(result, "nodes") == "197281"
    assert_loaded_only(result, cache_dir, before)


def test_fresh_process_loads_the_recursive_search_from_the_cache():
    result, cache_dir, before = warm_run(SEARCH_CHILD)
    assert int(child_value(result, "nodes")) > 0
    assert_loaded_only(result, cache_dir, before)


def test_fresh_process_loads_the_search_with_tablebases_from_the_cache():
    result, cache_dir, before = warm_run(TABLEBASE_CHILD)
    tbhits = int(child_value(result, "tbhits").split()[0])
    assert tbhits > 0, result.stdout
    assert_loaded_only(result, cache_dir, before)
