"""OpenBench's client with an engine, step by step (AndyGrant/OpenBench, Client/utils.py and Client/bench.py).

The steps, copied: the repository at HEAD unpacked into a temporary folder (``git archive``), ``make -j
EXE=<name> CC=python3`` there, the file moved to ``Engines/``, the folder deleted; then ``./Engines/<name>
bench`` started once per thread at once, each read for its node count as the client reads it; then
``genfens``.  ``scripts/bench/bench_openbench.py`` times them; ``tests/test_openbench.py`` checks them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH_LIMIT_SECONDS = 60  # the client's limit for every bench of a round (Client/bench.py)
GENFENS_GAP_SECONDS = 15  # the client's limit between two genfens lines (Client/genfens.py)
GENFENS_PREFIX = "info string genfens "
# How the client finds the node count: the last line matching one of these, once non-alphanumerics are spaces.
CLIENT_BENCH_PATTERN = re.compile(r"(\d+\s+nodes)|(nodes\s+\d+)|(nodes searched\s+\d+)", re.IGNORECASE)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without a checkout on PYTHONPATH: the executable must carry its own code."""
    return dict({key: value for key, value in os.environ.items() if key != "PYTHONPATH"}, **extra)


def client_bench_nodes(output: str) -> int | None:
    """The node count the client reads from a bench's output, or None."""
    for line in reversed(output.strip().splitlines()):
        match = CLIENT_BENCH_PATTERN.search(re.sub(r"[^a-zA-Z0-9 ]+", " ", line))
        if match:
            return int(re.search(r"\d+", match.group()).group())
    return None


def unpack_head(folder: Path) -> Path:
    """The repository's files at HEAD in ``folder``, without .git, as the client unpacks a commit."""
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def build_as_the_client(work: Path, name: str, cache: Path) -> tuple[Path, subprocess.CompletedProcess]:
    """Unpack HEAD, ``make -j EXE=<name> CC=python3``, move the file to ``work/Engines``, delete the folder.

    Returns the executable's path and make's result (its output holds the warm-up bench)."""
    source = unpack_head(work / "source")
    made = subprocess.run(
        ["make", "-j", f"EXE={name}", "CC=python3"],
        cwd=source,
        capture_output=True,
        text=True,
        env=clean_env(JITFISH_CACHE_DIR=str(cache)),
    )
    engines = work / "Engines"
    engines.mkdir(exist_ok=True)
    if made.returncode == 0:
        shutil.move(source / name, engines / name)
    shutil.rmtree(source)
    return engines / name, made


def benches_at_once(executable: Path, copies: int, cache: Path) -> list[tuple[float, int | None, str]]:
    """``copies`` benches started together from the client's folder: (seconds, node count, output) of each."""
    env = clean_env(JITFISH_CACHE_DIR=str(cache))
    command = [f"./{executable.parent.name}/{executable.name}", "bench"]
    started = time.perf_counter()
    processes = [
        subprocess.Popen(
            command, cwd=executable.parent.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
        )
        for _ in range(copies)
    ]
    results = []
    for process in processes:  # read each to its end; a copy's time is when its output ended
        output = process.communicate()[0]
        results.append(
            (time.perf_counter() - started, client_bench_nodes(output) if process.returncode == 0 else None, output)
        )
    return results


def genfens(executable: Path, count: int, seed: int, cache: Path) -> tuple[list[str], float]:
    """The FENs of ``<name> "genfens <count> seed <seed> book None" quit`` and the longest wait for a line
    (the first counted from the start)."""
    command = [f"./{executable.parent.name}/{executable.name}", f"genfens {count} seed {seed} book None", "quit"]
    process = subprocess.Popen(
        command,
        cwd=executable.parent.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=clean_env(JITFISH_CACHE_DIR=str(cache)),
    )
    fens, longest, last = [], 0.0, time.perf_counter()
    for line in process.stdout:
        if line.startswith(GENFENS_PREFIX):
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
            fens.append(line[len(GENFENS_PREFIX) :].strip())
    process.wait()
    return fens, longest
