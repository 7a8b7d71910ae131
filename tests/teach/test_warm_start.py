"""A second process loads the teaching kernels from the cache, compiles nothing and runs (Numba issue #6061).

The teaching searches are recursive kernels called from Python, never from
another cached kernel: that is the arrangement which survives a warm start.
The child runs once to fill the cache, then again under ``NUMBA_DEBUG_CACHE=1``,
which prints a line for every cache load and save: the second run must save
nothing and still give the same answer.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.usefixtures("teaching_kernels")

CHILD = """
from jitfish.teach.ladder import ladder
report = ladder("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 3,
                ["minimax", "alphabeta", "ordering", "deepening", "pvs", "pruning", "quiescence"])
print("value", report.get("pvs", 3).value, report.get("minimax", 3).value)
"""


def run_child() -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_DEBUG_CACHE="1")
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=600)


def test_teaching_kernels_load_from_the_cache_in_a_fresh_process():
    first = run_child()
    assert first.returncode == 0, first.stderr
    second = run_child()
    assert second.returncode == 0, second.stderr
    saves = [line for line in second.stdout.splitlines() if line.startswith("[cache]") and "saved" in line]
    assert not saves, "kernels were compiled again:\n" + "\n".join(saves)
    assert any("enhanced_search" in line and "data loaded" in line for line in second.stdout.splitlines())
    value_line = next(line for line in second.stdout.splitlines() if line.startswith("value "))
    pvs_value, minimax_value = value_line.split()[1:]
    assert pvs_value == minimax_value
