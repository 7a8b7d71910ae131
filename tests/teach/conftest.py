"""Shared set-up for the teaching-mode tests: the teaching kernels, loaded or compiled once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "teach"


@pytest.fixture(scope="session")
def teaching_kernels() -> None:
    """The teaching searches, loaded or compiled once (one test process at a time: the others then load)."""
    from jitfish.runtime.compile import one_compile_at_a_time
    from jitfish.teach.ladder import warm_up

    with one_compile_at_a_time():
        warm_up(engine=False)


def suite_positions() -> list[tuple[str, int]]:
    """(FEN, perft(4)) of the test suite."""
    positions = []
    for line in (DATA / "positions.epd").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fen, count = line.split(";D4")
            positions.append((fen.strip(), int(count)))
    return positions


@pytest.fixture(scope="session")
def uct_kernels() -> None:
    """The UCT kernel, loaded or compiled once per session (and the teaching searches it is compared with)."""
    from jitfish.runtime.compile import one_compile_at_a_time
    from jitfish.teach.ladder import warm_up
    from jitfish.teach.mcts import mcts

    with one_compile_at_a_time():
        warm_up(engine=False)
        mcts("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 10)
