"""``jitfish bench`` must print the node count kept in ``tests/data/bench.txt``.

The bench node count is the search's signature (as in Stockfish and Weiss):
a commit that changes search behaviour updates the file and quotes the new
count as a ``Bench: N`` line of its message.  The file makes the check work
in any copy of the repository (a shallow clone, a tarball); in a git
checkout the newest ``Bench:`` line must also agree with the file, so the
two are updated together.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH_FILE = REPO / "tests" / "data" / "bench.txt"


def expected_bench() -> int:
    lines = [line.strip() for line in BENCH_FILE.read_text().splitlines()]
    return int(next(line for line in lines if line and not line.startswith("#")))


def newest_quoted_bench() -> int | None:
    """The newest ``Bench: N`` commit line, or ``None`` outside git or without one (a shallow clone)."""
    try:
        log = subprocess.run(["git", "log", "--format=%B"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    match = re.search(r"^Bench: (\d+)\s*$", log, flags=re.MULTILINE)
    return int(match.group(1)) if match else None


def test_bench_prints_the_node_count_of_the_bench_file():
    result = subprocess.run(
        [sys.executable, "-m", "jitfish", "bench"], cwd=REPO, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[-2].startswith("Nodes searched: ")
    assert lines[-1].startswith("Nodes/second: ")
    nodes = int(lines[-2].split(":")[1])
    assert nodes == expected_bench(), (
        f"bench searched {nodes} nodes, tests/data/bench.txt says {expected_bench()}: search behaviour changed"
    )


def test_the_newest_bench_commit_line_agrees_with_the_file():
    quoted = newest_quoted_bench()
    assert quoted in (None, expected_bench()), (
        f"the newest 'Bench:' commit line says {quoted}, tests/data/bench.txt {expected_bench()}: update both"
    )
