"""A match's PGN file (``tuning/pgnfile.py``): plain or gzip by its name, appended game by game, compacted."""

from __future__ import annotations

import gzip
from pathlib import Path

from tuning import pgnfile

GAME = '[Event "e"]\n[Result "1-0"]\n\n1. e4 e5 1-0\n\n'


def test_a_plain_name_gets_plain_text(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn"
    pgnfile.append(path, GAME)
    pgnfile.append(path, GAME)
    assert path.read_text() == pgnfile.read_text(path) == GAME * 2
    pgnfile.compact(path)  # a plain file is left as it is
    assert path.read_text() == GAME * 2


def test_a_gz_name_gets_gzip_that_gzip_reads(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn.gz"
    pgnfile.append(path, GAME)
    pgnfile.append(path, GAME.replace("1-0", "0-1"))
    expected = GAME + GAME.replace("1-0", "0-1")
    assert gzip.decompress(path.read_bytes()).decode() == pgnfile.read_text(path) == expected
    with gzip.open(path, "rt") as handle:  # what python-chess is given: one stream across the members
        assert handle.read() == expected


def test_compact_leaves_one_member_with_no_name_and_no_time(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn.gz"
    for _ in range(20):
        pgnfile.append(path, GAME)
    members = path.read_bytes()
    pgnfile.compact(path)
    packed = path.read_bytes()
    assert packed == gzip.compress((GAME * 20).encode(), 9, mtime=0) and len(packed) < len(members)
    assert packed[3] == 0 and packed[4:8] == b"\0\0\0\0"  # no FNAME flag, no modification time (gzip -n)
    pgnfile.compact(path)
    assert path.read_bytes() == packed and [p.name for p in tmp_path.iterdir()] == ["games.pgn.gz"]


def test_a_member_cut_short_is_left_out_and_compact_drops_it(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn.gz"
    pgnfile.append(path, GAME)
    whole = path.read_bytes()
    path.write_bytes(whole + gzip.compress(GAME.encode(), 9, mtime=0)[:-6])  # killed while writing the second
    assert pgnfile.read_text(path) == GAME
    pgnfile.compact(path)
    assert path.read_bytes() == whole
    pgnfile.append(path, GAME)
    assert gzip.decompress(path.read_bytes()).decode() == GAME * 2


def test_a_missing_file_reads_empty_and_is_not_made(tmp_path: Path) -> None:
    assert pgnfile.read_text(tmp_path / "none.pgn.gz") == ""
    pgnfile.compact(tmp_path / "none.pgn.gz")
    pgnfile.compact(None)
    assert not list(tmp_path.iterdir())
