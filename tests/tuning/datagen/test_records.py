"""Binary data: packed positions and game files keep every field of the shipped self-play sample."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

from tuning.datagen.__main__ import main
from tuning.datagen.convert import convert, data_set_positions, text_to_games
from tuning.datagen.lines import read_data
from tuning.datagen.records import (
    MAGIC,
    POSITION,
    data_files,
    encode_game,
    pack_fen,
    read_games,
    unpack,
    write_games,
)

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "datagen_sample.gz"


@pytest.fixture(scope="module")
def lines() -> list[tuple[str, int, float]]:
    return list(read_data(SAMPLE))


def test_a_packed_position_keeps_every_field_of_a_line(lines):
    for fen, score, result in lines:
        record = pack_fen(fen, score, result)
        assert record.nbytes == 32
        assert unpack(record) == (fen, score, result)


def test_packing_keeps_castling_en_passant_and_counters():
    for fen in [
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 41",
        "4k3/8/8/8/8/8/8/4K3 b - - 99 300",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ]:
        assert unpack(pack_fen(fen, -123, 0.5)) == (fen, -123, 0.5)
    with pytest.raises(ValueError):
        pack_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 40000, 0.5)


def test_text_to_games_and_back_gives_the_same_lines_in_a_quarter_of_the_bytes(lines, tmp_path):
    games = tmp_path / "sample.bin"
    assert convert(SAMPLE, games) == len(lines)
    assert games.stat().st_size <= SAMPLE.stat().st_size / 4
    back = tmp_path / "back.gz"
    assert convert(games, back) == len(lines)
    assert list(read_data(back)) == lines
    records = list(read_games(games))
    assert len(records) < len(lines) / 20  # most lines joined their game's record


def test_game_files_append_and_directories_are_one_data_set(lines, tmp_path):
    records = list(text_to_games(lines[:400]))
    write_games(tmp_path / "a.bin", records[:2])
    write_games(tmp_path / "a.bin", records[2:], append=True)
    assert [encode_game(*record) for record in read_games(tmp_path / "a.bin")] == records
    (tmp_path / "sub").mkdir()
    with gzip.open(tmp_path / "sub" / "b.gz", "wt") as handle:
        handle.write(gzip.decompress(SAMPLE.read_bytes()).decode().split("\n", 100)[-1])
    assert data_files([tmp_path]) == [tmp_path / "a.bin", tmp_path / "sub" / "b.gz"]
    positions = np.concatenate(list(data_set_positions([tmp_path])))
    assert positions.dtype == POSITION
    assert [unpack(row) for row in positions[:400]] == lines[:400]
    assert [unpack(row) for row in positions[400:]] == lines[100:]


def test_bad_game_files_are_refused(lines, tmp_path):
    record = next(text_to_games(lines))
    (tmp_path / "torn.bin").write_bytes(gzip.compress(MAGIC + record[:-3]))
    (tmp_path / "text.bin").write_bytes(SAMPLE.read_bytes())
    for name, message in [("torn.bin", "truncated"), ("text.bin", "not a game file")]:
        with pytest.raises(ValueError, match=message):
            list(read_games(tmp_path / name))
    with pytest.raises(ValueError, match="no such"):
        data_files([tmp_path / "missing"])


def test_the_command_line_converts_both_ways(tmp_path, capsys):
    assert main(["convert", str(SAMPLE), str(tmp_path / "s.bin")]) == 0
    assert "3000 positions" in capsys.readouterr().out
    assert main(["convert", str(tmp_path / "s.bin"), str(tmp_path / "s.gz")]) == 0
    assert gzip.decompress((tmp_path / "s.gz").read_bytes()) == gzip.decompress(SAMPLE.read_bytes())
    assert main(["convert", str(tmp_path / "s.bin"), str(tmp_path / "t.bin")]) == 2
    assert main(["convert", str(tmp_path / "none.gz"), str(tmp_path / "t.bin")]) == 2
