"""No option makes a search compile: what an option needs is compiled (or loaded) before its ``readyok``.

A kernel compiled inside a clocked move holds the GIL for seconds, and lost
games on time: lichess-bot's default ``SyzygyPath ./syzygy/`` (a folder that
usually does not exist) once made a bot's first move take 35 s.  For every
option, a fresh engine process (``tests/uci/compiles.py``) sets it, answers
``isready``, then searches where the option matters; the kernels' compiled
signatures must be the same after the search as at ``readyok``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import chess
import pytest

from jitfish.engine.options import OPTIONS
from jitfish.nnue.format import SHIPPED_NETWORK
from tests.syzygy.positions import TABLE_FOLDER
from tests.uci.conftest import REPO, errors_in
from tests.uci.test_book import CASTLE_FEN, write_book

START = "position startpos"
# Five pieces: the search probes the 3-4-piece tables after the rook trade on d4.
INTO_TABLES = "position fen 8/8/3k4/8/3r4/8/3R1P2/4K3 w - - 0 1"
# A root in the tables: its moves are ranked by DTZ before the search.
IN_TABLES = "position fen 8/8/8/4k3/8/8/8/R3K3 w - - 70 1"
CHESS960 = "position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
TABLES = f"setoption name SyzygyPath value {TABLE_FOLDER}"
WITH_TABLES = [INTO_TABLES, "go depth 6", IN_TABLES, "go depth 4"]
PLAIN = [START, "go depth 5"]
MISSING_TABLES = "./syzygy/"

# Option name -> (the setoption lines, what is searched after readyok).
CASES = {
    "Threads": (["setoption name Threads value 4"], [START, "go depth 7"]),
    "Hash": (["setoption name Hash value 64"], PLAIN),
    "Clear Hash": ([START, "go depth 3", "setoption name Clear Hash"], PLAIN),
    "Ponder": (["setoption name Ponder value true"], [START, "go ponder wtime 2000 btime 2000", "ponderhit"]),
    "MultiPV": (["setoption name MultiPV value 3"], PLAIN),
    "Move Overhead": (["setoption name Move Overhead value 100"], [START, "go wtime 3000 btime 3000"]),
    "Skill Level": (["setoption name Skill Level value 3"], PLAIN),
    "UCI_LimitStrength": (["setoption name UCI_LimitStrength value true"], [START, "go movetime 200"]),
    "UCI_Elo": (
        ["setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 2000"],
        [START, "go movetime 200"],
    ),
    "UCI_Chess960": (["setoption name UCI_Chess960 value true"], [CHESS960, "go depth 5"]),
    "UCI_ShowWDL": (["setoption name UCI_ShowWDL value true"], PLAIN),
    "OwnBook": (["setoption name OwnBook value true"], PLAIN),
    "BookFile": (["setoption name OwnBook value true", "setoption name BookFile value {book}"], PLAIN),
    "EvalFile": ([f"setoption name EvalFile value {SHIPPED_NETWORK}"], PLAIN),
    "Use NNUE": (["setoption name Use NNUE value false"], PLAIN),
    "SyzygyPath": ([TABLES], WITH_TABLES),
    "SyzygyProbeDepth": ([TABLES, "setoption name SyzygyProbeDepth value 3"], WITH_TABLES),
    "Syzygy50MoveRule": ([TABLES, "setoption name Syzygy50MoveRule value false"], WITH_TABLES),
    "SyzygyProbeLimit": ([TABLES, "setoption name SyzygyProbeLimit value 4"], WITH_TABLES),
}


def kernels_compiled_by_search(setup: list[str], searches: list[str]) -> dict:
    """``tests/uci/compiles.py``'s report of a fresh engine process."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.uci.compiles", *setup, "--", *searches],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_a_search_whose_pv_is_one_move_compiles_nothing(warm_cache):
    """A depth-1 search (or one stopped early) has a PV of one move, and its ponder move is read from the
    table from Python: the kernels for that are loaded before readyok too."""
    report = kernels_compiled_by_search([], [START, "go depth 1"])
    assert report["compiled"] == [], report["compiled"]
    assert report["lines"][-1].startswith("bestmove")


def test_every_option_has_a_case():
    assert sorted(CASES) == sorted(spec.name for spec in OPTIONS)


@pytest.mark.parametrize("option", sorted(CASES))
def test_a_search_after_the_option_and_readyok_compiles_nothing(option, tmp_path, warm_cache):
    book = write_book(tmp_path / "book.bin", [(chess.STARTING_FEN, "e2e4", 1), (CASTLE_FEN, "e1h1", 1)])
    setup, searches = CASES[option]
    report = kernels_compiled_by_search([line.format(book=book) for line in setup], searches)
    assert report["compiled"] == [], report["compiled"]
    assert not errors_in(report["lines"]), report["lines"]
    assert sum(line.startswith("bestmove") for line in report["lines"]) == sum(
        line.startswith("go") for line in setup + searches
    )


def test_a_syzygy_folder_without_tables_leaves_the_search_without_tables(warm_cache):
    """lichess-bot's default: the folder is reported, no tablebase kernel is loaded, nothing compiles."""
    report = kernels_compiled_by_search(
        [f"setoption name SyzygyPath value {MISSING_TABLES}"], [INTO_TABLES, "go depth 6"]
    )
    assert report["compiled"] == []
    assert not [name for name in report["ready"] if name.startswith("jitfish.syzygy.")], report["ready"]
    assert f"info string error: Syzygy folder {MISSING_TABLES} does not exist" in report["lines"]
    assert not any(" tbhits " in line for line in report["lines"])


def test_lichess_bots_options_compile_nothing_in_the_first_move(warm_cache):
    """lichess-bot's default options, then its first move: a clocked ``go`` after ``readyok``."""
    setup = [
        f"setoption name {name} value {value}"
        for name, value in [
            ("Move Overhead", 100),
            ("Threads", 4),
            ("Hash", 512),
            ("SyzygyPath", MISSING_TABLES),
            ("UCI_ShowWDL", "true"),
        ]
    ]
    report = kernels_compiled_by_search(setup, [START, "go wtime 60000 btime 60000 winc 1000 binc 1000"])
    assert report["compiled"] == []
    assert any(" wdl " in line for line in report["lines"]), report["lines"]
