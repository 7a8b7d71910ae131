"""The repository's data set: the manifest adds up, and self-play into a data folder keeps it adding up."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jitfish.nnue.format import SHIPPED_NETWORK
from tuning.datagen import dataset
from tuning.datagen.__main__ import main
from tuning.datagen.convert import data_set_positions
from tuning.datagen.records import game_positions, read_games, unpack
from tuning.datagen.run import generate
from tuning.datagen.selfplay import GameSettings

REPO = Path(__file__).resolve().parents[3]
DATA_DIR = REPO / "data" / "nnue"


@pytest.mark.slow
def test_the_repositorys_manifest_matches_its_files():
    assert dataset.check(DATA_DIR) == []
    totals = dataset.totals(DATA_DIR)
    assert totals["positions"] >= 1_058_009  # the two files the set started with
    assert totals["positions by hce"] == 1_058_009


def test_a_wrong_count_a_missing_file_and_a_file_without_a_row_are_reported(tmp_path):
    generate(tmp_path / "a.bin", seed=3, settings=GameSettings(nodes=200, depth_cap=4), games=2, progress=False)
    counts = dataset.count(tmp_path / "a.bin")
    assert counts["games"] == 2 and counts["positions"] > 0
    assert dataset.check(tmp_path) == ["a.bin: a game file with no row in the manifest"]
    row = dataset.FileRow(
        "a.bin",
        counts["positions"] + 1,
        2,
        counts["white_wins"],
        counts["draws"],
        counts["black_wins"],
        3,
        "abc",
        "hce",
        200,
        4,
        *dataset.file_digest(tmp_path / "a.bin"),
    )
    dataset.write_row(tmp_path, row)
    assert dataset.check(tmp_path) == [
        f"a.bin: positions {counts['positions'] + 1} in the manifest, {counts['positions']} in the file"
    ]
    (tmp_path / "a.bin").unlink()
    assert dataset.check(tmp_path) == ["a.bin: in the manifest, but no such file"]


def _labels(path: Path) -> list[tuple[str, int, float]]:
    return [unpack(row) for record in read_games(path) for row in game_positions(*record)]


def test_the_network_teacher_is_recorded_by_its_hash_and_labels_otherwise(tmp_path):
    """Self-play into a data folder with the shipped network and with the hand-written evaluation: each
    file has its row, named by its teacher, and the positions both games reach get other labels."""
    common = [
        "--games",
        "8",
        "--nodes",
        "300",
        "--seed",
        "5",
        "--workers",
        "1",
        "--chunk-games",
        "1",
        "--quiet",
        "--data-dir",
        str(tmp_path),
    ]
    assert main(common) == 0  # the default teacher: the shipped network
    assert main(common + ["--eval", "hce"]) == 0
    teacher = dataset.teacher_name(SHIPPED_NETWORK)
    assert teacher.startswith("nnue-") and len(teacher) == 17
    rows = {row.teacher: row for row in dataset.read_manifest(tmp_path)}
    assert set(rows) == {teacher, "hce"}
    assert rows[teacher].file == dataset.file_name(5, 300, teacher)
    assert (rows[teacher].nodes, rows[teacher].seed, rows[teacher].games) == (300, 5, 8)
    assert dataset.check(tmp_path) == []
    by_network, by_hce = (
        {fen: score for fen, score, _ in _labels(tmp_path / rows[name].file)} for name in (teacher, "hce")
    )
    shared = by_network.keys() & by_hce.keys()
    assert len(shared) >= 2  # the same openings: most games' first positions are in both files...
    assert [fen for fen in shared if by_network[fen] != by_hce[fen]]  # ...scored by another evaluation
    assert main(["check", str(tmp_path)]) == 0


def test_a_data_folder_run_publishes_every_finished_chunk(tmp_path):
    seen = []
    generate(
        tmp_path / "d.bin",
        seed=4,
        settings=GameSettings(nodes=200, depth_cap=4),
        games=3,
        chunk_games=1,
        progress=False,
        published=lambda summary: seen.append((summary.games, dataset.count(tmp_path / "d.bin"))),
    )
    assert [games for games, _ in seen] == [1, 2, 3, 3]
    assert all(counts["games"] == games for games, counts in seen)


def test_check_and_a_missing_network_are_reported_on_one_line(tmp_path, capsys):
    assert main(["check", str(tmp_path / "none")]) == 2
    assert main(["--games", "1", "--eval", str(tmp_path / "missing.nnue"), "--output", str(tmp_path / "x.bin")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("error: usage: python -m tuning.datagen check DIR")
    assert err[1] == f"error: no such network file: {tmp_path / 'missing.nnue'}"


def test_a_manifest_that_is_not_one_is_refused(tmp_path):
    (tmp_path / dataset.MANIFEST).write_text(json.dumps({"rows": []}))
    with pytest.raises(ValueError, match="not a data manifest"):
        dataset.read_manifest(tmp_path)


def test_a_file_whose_chunks_are_gone_is_not_played_again(tmp_path, capsys):
    """On a fresh machine the chunks are gone but the file and its row are there: the same command must
    not start the run again from game 0 over the file."""
    command = [
        "--games",
        "1",
        "--nodes",
        "200",
        "--seed",
        "6",
        "--workers",
        "1",
        "--quiet",
        "--eval",
        "hce",
        "--data-dir",
        str(tmp_path),
    ]
    assert main(command) == 0
    name = dataset.file_name(6, 200, "hce")
    for part in (tmp_path / (name + ".parts")).iterdir():
        part.unlink()
    (tmp_path / (name + ".parts")).rmdir()
    before = (tmp_path / name).read_bytes()
    assert main(command) == 2
    assert "start another seed" in capsys.readouterr().err
    assert (tmp_path / name).read_bytes() == before


def _data_folder(tmp_path: Path, games: int = 6) -> Path:
    """A data folder of one self-play file of ``games`` games (chunks of 2), with its row."""
    command = ["--games", str(games), "--nodes", "200", "--depth-cap", "4", "--seed", "8", "--workers", "1"]
    assert main(command + ["--chunk-games", "2", "--quiet", "--eval", "hce", "--data-dir", str(tmp_path)]) == 0
    return tmp_path / dataset.file_name(8, 200, "hce")


def test_every_row_holds_its_files_size_and_sha256(tmp_path):
    path = _data_folder(tmp_path)
    [row] = dataset.read_manifest(tmp_path)
    assert (row.bytes, row.sha256) == (path.stat().st_size, hashlib.sha256(path.read_bytes()).hexdigest())
    assert all(len(row.sha256) == 64 and row.bytes > 0 for row in dataset.read_manifest(DATA_DIR))


def test_a_file_cut_short_or_changed_is_named_with_its_first_bad_record(tmp_path, capsys):
    path = _data_folder(tmp_path)
    capsys.readouterr()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) * 2 // 3])
    [problem] = dataset.check(tmp_path)
    assert problem.startswith(
        f"{path.name}: {len(data) * 2 // 3:,} bytes, the manifest lists {len(data):,}: cut short;"
    )
    assert "record " in problem and "cannot be read" in problem
    assert main(["check", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == problem and len(out) == 2  # the problem, then the totals: no traceback
    for offset in (len(data) // 3, len(data) // 2, len(data) - 12):  # in a member's stream, and its checksum
        changed = bytearray(data)
        changed[offset] ^= 0x10
        path.write_bytes(bytes(changed))
        [problem] = dataset.check(tmp_path)
        assert problem.startswith(f"{path.name}: its first {len(data):,} bytes are not the manifest's"), problem
        assert "record " in problem, problem
    path.write_bytes(data)
    assert dataset.check(tmp_path) == []


def test_the_trainer_refuses_a_set_that_does_not_check(tmp_path):
    path = _data_folder(tmp_path)
    dataset.verify([tmp_path])
    dataset.verify([path])
    path.write_bytes(path.read_bytes()[:-100])
    for given in ([tmp_path], [path]):
        with pytest.raises(ValueError, match=f"the data does not check: {path.name}: .* cut short"):
            dataset.verify(given)


def test_bytes_past_a_row_are_not_in_the_set_until_the_row_says_so(tmp_path):
    """A generator killed between writing its file and its row leaves the file longer than the row: the
    set is the row's bytes, which still check, and readers read only them."""
    path = _data_folder(tmp_path, games=2)
    [row] = dataset.read_manifest(tmp_path)
    positions = len([p for block in data_set_positions([tmp_path]) for p in block])
    with open(path, "ab") as file:  # a further chunk, as the next rename would leave it
        file.write(write_games_bytes(tmp_path))
    assert dataset.check(tmp_path) == []
    assert len([p for block in data_set_positions([tmp_path]) for p in block]) == positions == row.positions


def test_a_killed_generator_leaves_the_set_checking_clean(tmp_path):
    """Kill a generator run (SIGKILL) at several moments after it has published: the set always checks,
    and no row ever shrinks."""
    command = [sys.executable, "-m", "tuning.datagen", "--games", "400", "--nodes", "100", "--depth-cap", "3"]
    command += ["--seed", "9", "--workers", "1", "--chunk-games", "1", "--quiet", "--eval", "hce"]
    command += ["--data-dir", str(tmp_path)]
    held = 0
    for delay in (0.0, 0.3, 0.7):
        process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and sum(row.games for row in _rows(tmp_path)) <= held:
            time.sleep(0.02)
        time.sleep(delay)
        process.kill()
        process.wait()
        assert dataset.check(tmp_path) == []
        games = sum(row.games for row in _rows(tmp_path))
        assert games > held
        held = games


def _rows(folder: Path) -> list[dataset.FileRow]:
    try:
        return dataset.read_manifest(folder)
    except ValueError:  # not written yet
        return []


def write_games_bytes(folder: Path) -> bytes:
    """One more game, as the bytes of a chunk file."""
    generate(folder / "extra.bin", seed=11, settings=GameSettings(nodes=200, depth_cap=4), games=1, progress=False)
    data = (folder / "extra.bin").read_bytes()
    (folder / "extra.bin").unlink()
    return data
