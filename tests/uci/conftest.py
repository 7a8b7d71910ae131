"""Fixtures for the UCI tests: the engine as a real subprocess, spoken to over pipes.

The first process of a session may have to compile every kernel (the cache
directory is keyed by a digest of the sources, so any edit invalidates it):
``warm_cache`` waits for that once with a generous timeout, and every later
process loads from the cache in a second or two.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ENGINE_COMMAND = [sys.executable, "-m", "jitfish"]
# The first start may compile everything on a busy machine.
COLD_START_TIMEOUT = 300.0
# Later starts load from the cache.
READY_TIMEOUT = 60.0
# A generous protocol deadline for answers that should come at once (uciok, readyok during a
# search, bestmove after stop or a book move): it cannot be missed on a loaded 2-core machine, yet
# a hang fails.  Latencies themselves are measured by scripts/bench/bench_uci.py, not asserted.
PROMPT = 10.0
# What the engine says when its search raised, before it plays the first legal move instead.
SEARCH_FAILED = "info string error: search failed"


class UciPipe:
    """A running engine: send lines, read lines with timeouts."""

    def __init__(
        self, command: list[str] | None = None, env: dict[str, str] | None = None, fail_on_search_error: bool = True
    ) -> None:
        self.fail_on_search_error = fail_on_search_error
        self.process = subprocess.Popen(
            command or ENGINE_COMMAND,
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.transcript: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        self.transcript.append(f"> {line[:200]}")
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read(self, timeout: float) -> str:
        """The next line; ``AssertionError`` on timeout or end of output."""
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; transcript:\n" + self.dump()) from None
        if line is None:
            self.lines.put(None)
            raise AssertionError("engine output ended; transcript:\n" + self.dump())
        self.transcript.append(f"< {line}")
        if self.fail_on_search_error and line.startswith(SEARCH_FAILED):
            raise AssertionError(
                "the search crashed (the engine played its fallback move); transcript:\n" + self.dump()
            )
        return line

    def read_until(self, prefix: str, timeout: float = 10.0) -> list[str]:
        """Every line up to and including the first that starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            line = self.read(max(deadline - time.monotonic(), 0.001))
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def no_line_starting(self, prefix: str, within: float) -> list[str]:
        """Read for ``within`` seconds and check that no line starts with ``prefix``."""
        deadline = time.monotonic() + within
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.001))
            except queue.Empty:
                break
            if line is None:
                self.lines.put(None)
                break
            self.transcript.append(f"< {line}")
            assert not line.startswith(prefix), f"unexpected {line!r}; transcript:\n" + self.dump()
            seen.append(line)
        return seen

    def ready(self, timeout: float = READY_TIMEOUT) -> list[str]:
        """``isready`` -> ``readyok``; the lines before it."""
        self.send("isready")
        return self.read_until("readyok", timeout)

    def dump(self) -> str:
        return "\n".join(self.transcript[-60:])

    def close(self) -> int:
        if self.process.poll() is None:
            try:
                self.send("quit")
            except (BrokenPipeError, OSError):
                pass
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


def errors_in(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string error")]


@pytest.fixture(scope="session")
def warm_cache() -> None:
    """Start the engine once and wait (long) for its kernels, so later starts are warm."""
    pipe = UciPipe()
    try:
        pipe.send("uci")
        pipe.read_until("uciok", 30)
        lines = pipe.ready(COLD_START_TIMEOUT)
        assert not errors_in(lines), lines
    finally:
        pipe.close()


def _started_engine():
    """Start an engine, answer ``uci``/``isready``, hand it over, close it afterwards."""
    pipe = UciPipe()
    pipe.send("uci")
    pipe.read_until("uciok", 30)
    pipe.ready()
    yield pipe
    pipe.close()


@pytest.fixture
def engine(warm_cache) -> UciPipe:
    """A fresh engine process after ``uci``/``isready``."""
    yield from _started_engine()


@pytest.fixture(scope="module")
def shared_engine(warm_cache) -> UciPipe:
    """One engine process for a module's quick checks (each test sets its own position)."""
    yield from _started_engine()


@pytest.fixture
def uci(shared_engine: UciPipe) -> UciPipe:
    """The shared engine, idle and drained, with default options and a new game."""
    shared_engine.send("stop")
    shared_engine.ready()
    shared_engine.send("ucinewgame")
    shared_engine.ready()
    return shared_engine
