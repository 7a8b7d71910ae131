"""Hostile command batches (``tests/uci/fuzz.py``): after any of them, ``stop`` and ``isready`` leave the engine idle.

Each batch is random lines written at once: bad FENs, garbage, lines past the length limit, ``go`` with every
combination of limits (``go nodes 2147483648`` among them), ``ponderhit`` and ``stop`` out of place, ``stop``
with junk after it, options good and bad.  Then ``stop`` and ``isready``: every search of the batch must have
answered before ``readyok``, and a ``go movetime 50`` on a new position within 2 s.  The seeds are fixed, so a
failure replays.  The fast tier runs a few hundred lines, the slow one 2 x 10^4 in one engine.
"""

from __future__ import annotations

import os
import random

import pytest

from tests.uci.fuzz import hostile_batch, replay
from tests.uci.test_gui_replay import assert_nothing_more

BATCH_LINES = 40


@pytest.mark.parametrize("seed", range(6))
def test_stop_and_isready_after_any_batch_leave_the_engine_idle(engine, seed):
    rng = random.Random(seed)
    for _ in range(2):
        replay(engine, hostile_batch(rng, BATCH_LINES))
    assert_nothing_more(engine)


# The slow tier's seeds (about 100 s each on two cores): ``JITFISH_FUZZ_SEEDS=1,2,3 pytest -m slow ...`` for more.
SLOW_SEEDS = [int(seed) for seed in os.environ.get("JITFISH_FUZZ_SEEDS", "55").split(",")]


@pytest.mark.slow
@pytest.mark.parametrize("seed", SLOW_SEEDS)
def test_twenty_thousand_hostile_lines(engine, seed):
    rng = random.Random(seed)
    for _ in range(20_000 // BATCH_LINES):
        replay(engine, hostile_batch(rng, BATCH_LINES))
    assert_nothing_more(engine)
