"""``--resume``: a stopped match goes on from its PGN, counting the old pairs in the score and the SPRT."""

from __future__ import annotations

import gzip
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.tuning.conftest import random_mover
from tuning import pgnfile
from tuning.backends.pychess import PythonChessBackend
from tuning.config import MatchConfig
from tuning.engines import EngineSpec
from tuning.match import run_match
from tuning.openings import read_openings
from tuning.results import SPRT_MIN_PAIRS
from tuning.resume import played_records
from tuning.sprt import SprtConfig
from tuning.tc import parse_time_control

REPO = Path(__file__).parents[2]
BALANCED = REPO / "tuning" / "openings" / "balanced.epd"


def config(pgn: Path, first: EngineSpec, second: EngineSpec, rounds: int, **changes: object) -> MatchConfig:
    fields: dict[str, object] = dict(
        engines=(first, second),
        time_control=parse_time_control("5+0.05"),
        rounds=rounds,
        concurrency=1,
        openings=tuple(read_openings(BALANCED)[:20]),
        opening_order="sequential",
        max_moves=12,
        pgn_out=str(pgn),
    )
    fields.update(changes)
    return MatchConfig(**fields)  # type: ignore[arg-type]


def resume(match: MatchConfig) -> dict:
    played = played_records(match)
    match = replace(match, played=frozenset(record.encounter for record in played))
    return run_match(match, PythonChessBackend(), progress=False, played=played)


def games_in(pgn: Path) -> list[str]:
    return ["[Event " + text for text in pgnfile.read_text(pgn).split("[Event ")[1:]]


def rewrite(pgn: Path, games: list[str]) -> None:
    pgn.unlink()
    pgnfile.append(pgn, "".join(games))


def points_of_a(game: str) -> float:
    result = game.split('[Result "')[1].split('"')[0]
    white = game.split('[White "')[1].split('"')[0]
    return 0.5 if result == "1/2-1/2" else float((result == "1-0") == (white == "A"))


@pytest.mark.parametrize("name", ["games.pgn", "games.pgn.gz"])
def test_a_pair_cut_in_half_is_played_again_and_the_rest_is_not(tmp_path: Path, name: str) -> None:
    pgn = tmp_path / name
    first = config(pgn, random_mover("A", seed=1), random_mover("B", seed=2), rounds=3)
    run_match(first, PythonChessBackend(), progress=False)
    games = games_in(pgn)
    assert len(games) == 6
    rewrite(pgn, games[:5])  # stopped in the third pair, after its first game

    played = played_records(first)
    assert [(record.encounter, record.number) for record in played] == [(0, 1), (0, 2), (1, 3), (1, 4)]
    assert [record.white for record in played] == ["A", "B", "A", "B"]

    summary = resume(first)
    assert summary["resumed_games"] == 4 and summary["games"] == 6
    assert sum(summary["pentanomial"]) == 3
    again = games_in(pgn)
    assert len(again) == 7 and again[5:] != games[4:]  # the third pair, both games, once more
    assert [game.split('[Round "')[1][0] for game in again] == ["1", "1", "2", "2", "3", "3", "3"]
    # The score is that of the first two pairs as they were played and of the third as played again.
    points = [points_of_a(game) for game in again[:4] + again[5:]]
    assert (summary["wins"], summary["draws"], summary["losses"]) == (
        points.count(1),
        points.count(0.5),
        points.count(0),
    )

    finished = resume(first)  # nothing left to play: the same totals, no new game
    assert finished["games"] == 6 and finished["resumed_games"] == 6
    assert len(games_in(pgn)) == 7


def test_a_compressed_file_cut_while_written_resumes_and_ends_as_one_gzip_member(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn.gz"
    match = config(pgn, random_mover("A", seed=1), random_mover("B", seed=2), rounds=2)
    run_match(match, PythonChessBackend(), progress=False)
    games = games_in(pgn)
    rewrite(pgn, games[:2])
    with open(pgn, "ab") as handle:  # the run was killed while it wrote the second pair's first game
        handle.write(gzip.compress(games[2].encode(), 9, mtime=0)[:-8])
    assert [record.encounter for record in played_records(match)] == [0, 0]
    summary = resume(match)
    assert summary["resumed_games"] == 2 and summary["games"] == 4
    again = games_in(pgn)
    assert again[:2] == games[:2] and len(again) == 4
    assert pgn.read_bytes() == gzip.compress("".join(again).encode(), 9, mtime=0)  # compacted at the end


def test_faults_in_the_old_games_still_count(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    match = config(pgn, random_mover("good"), random_mover("crashy", "--crash-after", "0"), rounds=1)
    run_match(match, PythonChessBackend(), progress=False)
    played = played_records(match)
    assert [(record.fault, record.faulty_engine) for record in played] == [("crash", "crashy")] * 2
    assert [record.points_for("good") for record in played] == [1.0, 1.0]
    summary = resume(replace(match, rounds=2))
    assert summary["faults"]["crashy"]["crash"] == 4 and summary["wins"] == 4


def test_the_sprt_goes_on_from_the_old_pairs(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    engines = (random_mover("winner"), random_mover("loser", "--crash-after", "0"))
    sprt = SprtConfig(0, 5, 0.05, 0.05)
    run_match(config(pgn, *engines, rounds=SPRT_MIN_PAIRS - 2), PythonChessBackend(), progress=False)
    summary = resume(config(pgn, *engines, rounds=50, sprt=sprt))
    # It decides as soon as the old and new pairs together allow: two pairs after the resumption.
    assert summary["sprt"]["decision"] == "H1"
    assert summary["games"] == 2 * SPRT_MIN_PAIRS and summary["resumed_games"] == 2 * (SPRT_MIN_PAIRS - 2)


def test_games_from_other_openings_are_refused(tmp_path: Path) -> None:
    pgn = tmp_path / "games.pgn"
    match = config(pgn, random_mover("A"), random_mover("B"), rounds=1)
    run_match(match, PythonChessBackend(), progress=False)
    shifted = replace(match, openings=match.openings[1:])
    with pytest.raises(ValueError, match="another opening"):
        played_records(shifted)
    with pytest.raises(ValueError, match="needs the first run's --seed"):
        played_records(replace(match, opening_order="random"))
    assert played_records(replace(match, event="another match")) == []  # other matches' games are not ours
    assert played_records(replace(match, pgn_out=str(tmp_path / "none.pgn"))) == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [((), "--resume needs --pgnout"), (("--pgnout", "x.pgn", "--backend", "cutechess"), "python-chess backend")],
)
def test_command_line_explains_a_resume_it_cannot_do(extra: tuple[str, ...], message: str) -> None:
    mover = Path(__file__).parent / "engines" / "random_mover.py"
    command = [sys.executable, "-m", "tuning.match", "--engine", f"cmd={sys.executable}", f"arg={mover}"]
    command += ["--engine", f"cmd={sys.executable}", f"arg={mover}", "--tc", "1+0", "--resume", *extra]
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2 and message in completed.stderr
    assert len(completed.stderr.strip().splitlines()[-1]) < 200
