"""Runs: the output holds the games of the seed, once each, however the run was split, resumed or parallelised."""

from __future__ import annotations

import json

import pytest

from tuning.datagen.__main__ import main
from tuning.datagen.records import encode_game, read_games
from tuning.datagen.run import MANIFEST, chunk_name, generate, parts_dir
from tuning.datagen.selfplay import SelfPlayer


def lines_of(path) -> list[bytes]:
    """The game records of a game file."""
    return [encode_game(*record) for record in read_games(path)]


@pytest.fixture(scope="module")
def played(fast):
    player = SelfPlayer()
    return [player.play_game(3, index, fast) for index in range(3)]


@pytest.fixture(scope="module")
def three_games(played) -> list[bytes]:
    """The records of games 0, 1, 2 of seed 3, played one by one."""
    return [game.record() for game in played]


def test_a_run_writes_the_records_of_its_games_in_order(tmp_path, fast, played, three_games):
    summary = generate(tmp_path / "d.bin", seed=3, settings=fast, games=3, chunk_games=2, progress=False)
    assert lines_of(tmp_path / "d.bin") == three_games
    assert (summary.games, summary.positions, summary.new_games) == (3, sum(g.positions for g in played), 3)
    assert sum(summary.results) == 3
    assert not parts_dir(tmp_path / "d.bin").exists()  # removed once the output is written


def test_a_resumed_run_plays_only_the_missing_games(tmp_path, fast, three_games):
    output = tmp_path / "d.bin"
    generate(output, seed=3, settings=fast, games=1, chunk_games=1, keep_parts=True, progress=False)
    summary = generate(output, seed=3, settings=fast, games=3, chunk_games=1, progress=False)
    assert summary.new_games == 2 and summary.games == 3
    assert lines_of(output) == three_games


def test_a_chunk_written_but_not_recorded_is_played_again(tmp_path, fast, three_games):
    output = tmp_path / "d.bin"
    generate(output, seed=3, settings=fast, games=3, chunk_games=1, keep_parts=True, progress=False)
    parts = parts_dir(output)
    manifest = json.loads((parts / MANIFEST).read_text())
    manifest["chunks"] = manifest["chunks"][:1]  # killed before games 1 and 2 were recorded
    (parts / MANIFEST).write_text(json.dumps(manifest))
    (parts / chunk_name(1, 2)).write_bytes(b"half a gzip")  # a torn file is never trusted
    (parts / (chunk_name(2, 3) + ".tmp")).write_bytes(b"")
    summary = generate(output, seed=3, settings=fast, games=3, chunk_games=1, progress=False)
    assert summary.new_games == 2
    assert lines_of(output) == three_games


def test_a_positions_target_takes_the_first_chunks_that_hold_it(tmp_path, fast, played, three_games):
    wanted = played[0].positions + 1
    summary = generate(tmp_path / "d.bin", seed=3, settings=fast, positions=wanted, chunk_games=1, progress=False)
    assert lines_of(tmp_path / "d.bin") == three_games[:2]
    assert summary.positions == played[0].positions + played[1].positions and summary.games == 2


def test_two_workers_write_the_same_games_as_one(tmp_path, fast, three_games):
    generate(tmp_path / "d.bin", seed=3, settings=fast, games=3, chunk_games=1, workers=2, progress=False)
    assert lines_of(tmp_path / "d.bin") == three_games


def test_resuming_with_other_settings_is_refused(tmp_path, fast):
    output = tmp_path / "d.bin"
    generate(output, seed=3, settings=fast, games=1, chunk_games=1, keep_parts=True, progress=False)
    with pytest.raises(ValueError, match="settings"):
        generate(output, seed=4, settings=fast, games=2, chunk_games=1, progress=False)


def test_the_command_line_writes_and_summarises(tmp_path, capsys):
    output = tmp_path / "cli.bin"
    assert (
        main(
            [
                "--games",
                "1",
                "--nodes",
                "300",
                "--depth-cap",
                "6",
                "--workers",
                "1",
                "--seed",
                "9",
                "--output",
                str(output),
                "--quiet",
            ]
        )
        == 0
    )
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("games 1 ") and "positions/s" in last
    assert len(lines_of(output)) == 1


def test_the_command_line_reports_bad_input(tmp_path, capsys):
    assert main(["pgn", str(tmp_path / "missing.pgn"), "--output", str(tmp_path / "x.gz")]) == 2
    assert "no such PGN file" in capsys.readouterr().err
