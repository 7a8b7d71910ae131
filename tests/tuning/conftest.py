"""Fixtures for the match-runner tests: the fault-injecting random mover and engine specs built from it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tuning.engines import EngineSpec, parse_engine_spec

RANDOM_MOVER = Path(__file__).parent / "engines" / "random_mover.py"


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels() -> None:
    """Overrides the suite-wide Numba warm-up: these tests never import Jitfish's kernels in-process."""


def random_mover(name: str, *flags: str, seed: int = 1) -> EngineSpec:
    """A spec for the random mover with fault flags such as ``--crash-after 5``."""
    tokens = [f"cmd={sys.executable}", f"arg={RANDOM_MOVER}", f"name={name}", "arg=--seed", f"arg={seed}"]
    tokens += [f"arg={flag}" for flag in flags]
    return parse_engine_spec(tokens)
