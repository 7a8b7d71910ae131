"""Hostile command batches: after any of them, one ``stop`` leaves the engine idle.

Each batch is random lines written at once -- searches of every kind (infinite,
ponder, no limit, small limits), ``stop`` and ``ponderhit`` out of place,
options, positions good and bad, junk -- then one ``stop`` and a ``go movetime``
on a new position.  Every ``go`` of the batch gets exactly one ``bestmove``,
and the last ``bestmove`` is the timed search's, with no second ``stop``.  The
searches with a limit keep it small (a few plies, nodes or milliseconds), so
a batch ends in seconds; the deadline only keeps a hang from stalling the suite.
"""

from __future__ import annotations

import random

import pytest

from jitfish.uci.commands import starts_search
from tests.uci.test_gui_replay import (
    DISJOINT,
    assert_legal,
    assert_nothing_more,
    bestmoves,
    read_bestmoves,
    write_at_once,
)

BATCH_LINES = 30
FINAL_POSITION = DISJOINT[4]


def random_go(rng: random.Random) -> str:
    words = ["go"]
    for _ in range(rng.randint(0, 3)):
        words += rng.choice(
            [
                ["infinite"],
                ["ponder"],
                ["depth", str(rng.randint(1, 4))],
                ["nodes", str(rng.randint(1, 4000))],
                ["movetime", str(rng.randint(1, 120))],
                ["wtime", str(rng.randint(-50, 1500)), "btime", str(rng.randint(-50, 1500))],
                ["winc", str(rng.randint(0, 50))],
                ["mate", str(rng.randint(1, 3))],
                ["searchmoves", "e2e4", "zz"],
                ["depth"],
                ["movetime", "soon"],
                ["bogus"],
            ]
        )
    return " ".join(words)


def random_line(rng: random.Random) -> str:
    return rng.choice(
        [
            lambda: random_go(rng),
            lambda: random_go(rng),
            lambda: "stop",
            lambda: "ponderhit",
            lambda: "isready",
            lambda: "ucinewgame",
            lambda: f"position {rng.choice(DISJOINT)}",
            lambda: "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5",
            lambda: "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
            lambda: "position startpos moves e2e5",
            lambda: "position",
            lambda: f"setoption name MultiPV value {rng.randint(0, 3)}",
            lambda: f"setoption name Hash value {rng.randint(1, 4)}",
            lambda: f"setoption name Threads value {rng.randint(1, 2)}",
            lambda: f"setoption name UCI_ShowWDL value {rng.choice(['true', 'false', 'maybe'])}",
            lambda: "setoption name Nonsense value 3",
            lambda: "setoption",
            lambda: f"debug {rng.choice(['on', 'off', 'loud'])}",
            lambda: "go perft 2",
            lambda: "d",
            lambda: "",
            lambda: " ".join(
                rng.choice(["go", "stop", "x", "moves", "fen", "name", "value", "\t"]) for _ in range(rng.randint(1, 6))
            ),
        ]
    )()


@pytest.mark.parametrize("seed", range(6))
def test_one_stop_after_any_batch_leaves_the_engine_idle(engine, seed):
    rng = random.Random(seed)
    batch = [random_line(rng) for _ in range(BATCH_LINES)]
    searches = sum(starts_search(words[0], words[1:]) for words in map(str.split, batch) if words)
    write_at_once(engine, *batch, "stop", f"position {FINAL_POSITION}", "go movetime 100")
    answers = read_bestmoves(engine, searches + 1)
    assert all(len(bestmoves(lines)) == 1 for lines in answers), engine.dump()
    assert_legal(bestmoves(answers[-1])[0], FINAL_POSITION)
    assert_nothing_more(engine)
