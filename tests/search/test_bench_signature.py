"""``jitfish bench`` must print the node count quoted by the newest ``Bench:`` commit line.

The bench node count is the search's signature (as in Stockfish and Weiss):
a commit that changes search behaviour quotes the new count, and this test
fails when the code and the quoted count disagree.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def newest_quoted_bench() -> int | None:
    try:
        log = subprocess.run(["git", "log", "--format=%B"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    match = re.search(r"^Bench: (\d+)\s*$", log, flags=re.MULTILINE)
    return int(match.group(1)) if match else None


def test_bench_prints_the_node_count_of_the_newest_bench_commit_line():
    quoted = newest_quoted_bench()
    if quoted is None:
        pytest.skip("not a git checkout with a 'Bench:' commit line")
    result = subprocess.run([sys.executable, "-m", "jitfish", "bench"], cwd=REPO, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[-2].startswith("Nodes searched: ")
    assert lines[-1].startswith("Nodes/second: ")
    assert int(lines[-2].split(":")[1]) == quoted
