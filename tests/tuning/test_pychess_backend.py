"""The python-chess backend plays real games: results, PGN, SPRT stopping, and engine faults."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

from tests.extras import needs_program, program_path
from tests.tuning.conftest import random_mover
from tuning.backends.pychess import PythonChessBackend
from tuning.config import MatchConfig
from tuning.engines import EngineSpec, parse_engine_spec
from tuning.match import run_match
from tuning.openings import read_openings
from tuning.sprt import SprtConfig
from tuning.tc import parse_time_control

REPO = Path(__file__).parents[2]
BALANCED = REPO / "tuning" / "openings" / "balanced.epd"
STOCKFISH = program_path("stockfish")
FAIRYMAX = program_path("fairymax")


def play(first: EngineSpec, second: EngineSpec, **changes: object) -> dict:
    fields: dict[str, object] = dict(
        engines=(first, second),
        time_control=parse_time_control("5+0.05"),
        rounds=1,
        concurrency=2,
        openings=tuple(read_openings(BALANCED)[:4]),
        opening_order="sequential",
        max_moves=25,
        stall_timeout=1.0,
    )
    fields.update(changes)
    return run_match(MatchConfig(**fields), PythonChessBackend(), progress=False)  # type: ignore[arg-type]


def test_short_match_records_results_and_pgn(tmp_path: Path) -> None:
    pgn_path = tmp_path / "games.pgn"
    summary = play(random_mover("A", seed=1), random_mover("B", seed=2), rounds=2, pgn_out=str(pgn_path))
    assert summary["games"] == 4 and summary["unfinished"] == 0
    assert summary["wins"] + summary["draws"] + summary["losses"] == 4
    assert sum(summary["pentanomial"]) == 2
    assert summary["faults"] == {
        name: {"time_loss": 0, "illegal_move": 0, "crash": 0, "hang": 0} for name in ("A", "B")
    }
    with open(pgn_path) as handle:
        games = [chess.pgn.read_game(handle) for _ in range(4)]
    assert all(game is not None and not game.errors for game in games)
    assert sorted((g.headers["White"], g.headers["Round"]) for g in games) == [
        ("A", "1"),
        ("A", "2"),
        ("B", "1"),
        ("B", "2"),
    ]
    for game in games:
        assert game.headers["TimeControl"] == "5+0.05"
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert "FEN" in game.headers  # openings from the EPD suite
        moves = list(game.mainline_moves())
        assert 0 < len(moves) <= 50
        assert game.end().board().is_valid()
    json.dumps(summary, allow_nan=False)


@pytest.mark.parametrize(
    ("flags", "kind"),
    [
        (("--crash-after", "3"), "crash"),
        (("--illegal-after", "3"), "illegal_move"),
        (("--no-move-after", "3"), "illegal_move"),
        (("--hang-after", "3"), "hang"),
        (("--sleep-after", "2", "--sleep", "1.5"), "time_loss"),
    ],
)
def test_engine_faults_lose_the_game_and_restart_the_engine(flags: tuple[str, ...], kind: str) -> None:
    time_control = "1+0" if kind in ("time_loss", "hang") else "5+0.05"
    summary = play(random_mover("good"), random_mover("faulty", *flags), time_control=parse_time_control(time_control))
    assert summary["games"] == 2
    assert (summary["wins"], summary["draws"], summary["losses"]) == (2, 0, 0)
    assert summary["faults"]["faulty"][kind] == 2
    assert sum(summary["faults"]["good"].values()) == 0
    assert summary["restarts"]["faulty"] >= 1


def test_crash_in_a_longer_match_keeps_going() -> None:
    summary = play(
        random_mover("steady"),
        random_mover("crashy", "--crash-after", "40"),
        rounds=3,
        concurrency=1,
        max_moves=None,
        openings=(),
        time_control=parse_time_control("10+0.05"),
    )
    assert summary["games"] == 6
    assert summary["faults"]["crashy"]["crash"] >= 1
    assert summary["restarts"]["crashy"] == summary["faults"]["crashy"]["crash"]


def test_sprt_stops_early() -> None:
    from tuning.results import SPRT_MIN_PAIRS

    summary = play(
        random_mover("winner"),
        random_mover("loser", "--crash-after", "0"),
        rounds=50,
        concurrency=1,
        sprt=SprtConfig(0, 5, 0.05, 0.05),
    )
    assert summary["stopped_early"] and summary["sprt"]["decision"] == "H1"
    assert summary["sprt"]["llr"] >= summary["sprt"]["upper_bound"]
    # It stops as soon as the test may decide: after SPRT_MIN_PAIRS complete opening pairs.
    assert summary["games"] == 2 * SPRT_MIN_PAIRS


def test_engine_that_cannot_start_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="cannot start engine"):
        play(random_mover("A"), parse_engine_spec(["cmd=/nonexistent/engine", "name=ghost"]))


@needs_program("stockfish")
def test_stockfish_at_fixed_nodes_beats_the_random_mover() -> None:
    stockfish = parse_engine_spec([f"cmd={STOCKFISH}", "name=sf", "option.Hash=16", "option.Threads=1"])
    summary = play(
        stockfish, random_mover("random"), time_control=parse_time_control("nodes=2000"), max_moves=None, resign=None
    )
    assert summary["wins"] == 2


@needs_program("fairymax")
def test_xboard_engine_without_setboard_plays_from_openings_as_named() -> None:
    """Fairy-Max declares setboard=0: the runner sets the openings up with edit mode on its own."""
    fairymax = parse_engine_spec([f"cmd={FAIRYMAX}", "proto=xboard", "name=Fairy-Max"])
    summary = play(fairymax, random_mover("random"), time_control=parse_time_control("2+0.05"), max_moves=20)
    assert summary["games"] == 2 and sum(summary["faults"]["Fairy-Max"].values()) == 0
    assert summary["losses"] == 0


def test_command_line_prints_json_last(tmp_path: Path) -> None:
    pgn_path = tmp_path / "cli.pgn"
    command = [
        sys.executable,
        "-m",
        "tuning.match",
        "--engine",
        f"cmd={sys.executable}",
        f"arg={Path(__file__).parent / 'engines' / 'random_mover.py'}",
        "name=r1",
        "--engine",
        f"cmd={sys.executable} {Path(__file__).parent / 'engines' / 'random_mover.py'} --seed 5",
        "name=r2",
        "option.Hash=32",
        "--tc",
        "3+0.03",
        "--openings",
        str(BALANCED),
        "--rounds",
        "1",
        "--concurrency",
        "2",
        "--pgnout",
        str(pgn_path),
        "--sprt",
        "elo0=0",
        "elo1=5",
        "--maxmoves",
        "15",
        "--backend",
        "python-chess",
        "--draw",
        "movenumber=10",
        "movecount=3",
        "score=5",
        "--resign",
        "movecount=3",
        "score=500",
    ]
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stderr
    summary = json.loads(completed.stdout.strip().splitlines()[-1])
    assert summary["games"] == 2 and summary["engines"] == ["r1", "r2"]
    assert {"llr", "lower_bound", "upper_bound"} <= set(summary["sprt"])
    assert pgn_path.read_text().count("[Event ") == 2


def test_command_line_rejects_bad_options() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tuning.match", "--engine", "cmd=x", "--engine", "cmd=y", "--tc", "soon"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 2 and "bad time control" in completed.stderr


def _jitfish_is_ready(timeout: float = 180.0) -> bool:
    """Whether `python -m jitfish` answers uciok and readyok (its kernels may compile on first start)."""
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "jitfish"],
            input="uci\nisready\nquit\n",
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return False
    return "uciok" in completed.stdout and "readyok" in completed.stdout


@pytest.mark.slow
def test_jitfish_against_the_random_mover() -> None:
    assert _jitfish_is_ready(), "python -m jitfish did not answer uciok and readyok"
    jitfish = parse_engine_spec([f"cmd={sys.executable}", "arg=-m", "arg=jitfish", f"dir={REPO}", "name=Jitfish"])
    summary = play(
        jitfish,
        random_mover("random"),
        time_control=parse_time_control("10+0.1"),
        max_moves=40,
        startup_timeout=180.0,
        concurrency=1,
    )
    assert summary["games"] == 2
    assert sum(summary["faults"]["Jitfish"].values()) == 0
    assert summary["losses"] == 0
