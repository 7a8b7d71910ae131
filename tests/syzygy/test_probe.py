"""The compiled WDL prober against python-chess's, position by position."""

from __future__ import annotations

import os
import random

import chess
import chess.syzygy
import pytest

from jitfish.syzygy import Tablebase, layout
from tests.syzygy.positions import TABLE_FOLDER, positions, random_position


@pytest.fixture(scope="module")
def tables() -> Tablebase:
    return Tablebase(str(TABLE_FOLDER))


@pytest.fixture(scope="module")
def reference():
    with chess.syzygy.open_tablebase(str(TABLE_FOLDER)) as prober:
        yield prober


def test_all_tables_load(tables):
    assert (tables.wdl_count, tables.dtz_count, tables.max_pieces) == (35, 35, 4)
    assert tables.problems == []


def test_index_tables_match_the_format(tables):
    """The fixed tables are derived from their definitions; python-chess spells them out."""
    fixed = tables.tb
    assert list(fixed[layout.TRIANGLE : layout.TRIANGLE + 64]) == chess.syzygy.TRIANGLE
    assert list(fixed[layout.LOWER : layout.LOWER + 64]) == chess.syzygy.LOWER
    assert list(fixed[layout.DIAG : layout.DIAG + 64]) == chess.syzygy.DIAG
    assert list(fixed[layout.FLAP : layout.FLAP + 64]) == chess.syzygy.FLAP
    assert list(fixed[layout.PTWIST : layout.PTWIST + 64]) == chess.syzygy.PTWIST
    assert list(fixed[layout.KK_IDX : layout.KK_IDX + 640]) == sum(chess.syzygy.KK_IDX, [])
    assert list(fixed[layout.PAWNIDX : layout.PAWNIDX + 120]) == sum(chess.syzygy.PAWNIDX, [])
    assert list(fixed[layout.PFACTOR : layout.PFACTOR + 20]) == sum(chess.syzygy.PFACTOR, [])


@pytest.mark.slow
def test_wdl_equals_python_chess_on_10000_random_positions(tables, reference):
    boards = positions(10_000, seed=35)
    assert sum(board.has_legal_en_passant() for board in boards) == 1000
    assert {board.turn for board in boards} == {chess.WHITE, chess.BLACK}
    expected = [reference.probe_wdl(board) for board in boards]
    compiled = tables.probe_wdl_many(boards).tolist()
    mismatches = [
        (board.fen(), mine, theirs) for board, mine, theirs in zip(boards, compiled, expected) if mine != theirs
    ]
    assert mismatches == []
    assert set(expected) == {-2, 0, 2}  # (3-4 pieces have no cursed wins or blessed losses)
    assert [tables.probe_wdl(board) for board in boards[:50]] == expected[:50]


def test_known_positions(tables):
    assert tables.probe_wdl("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1") == -2  # KBNvK, black to move loses
    assert tables.probe_wdl("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1") == 0  # KPvK, opposition holds
    assert tables.probe_wdl("8/8/8/8/8/k7/8/K7 w - - 0 1") == 0  # KvK


def test_positions_outside_the_tables_give_none(tables):
    assert tables.probe_wdl(chess.STARTING_FEN) is None  # too many pieces
    assert tables.probe_wdl("4k2r/8/8/8/8/8/8/4K3 b k - 0 1") is None  # castling rights
    assert Tablebase([]).probe_wdl("8/8/8/8/8/k7/8/KQ6 w - - 0 1") is None  # no tables


def _copy_tables(folder, names):
    for name in names:
        for suffix in (".rtbw", ".rtbz"):
            (folder / (name + suffix)).write_bytes((TABLE_FOLDER / (name + suffix)).read_bytes())


def test_truncated_and_foreign_files_are_reported_and_skipped(tmp_path):
    _copy_tables(tmp_path, ["KQvK", "KRvK"])
    wdl = (tmp_path / "KRvK.rtbw").read_bytes()
    (tmp_path / "KRvK.rtbw").write_bytes(wdl[: len(wdl) - 64])  # truncated: blocks past the end
    (tmp_path / "KBvK.rtbw").write_bytes(b"\x00" * 80)  # right size, wrong magic
    tables = Tablebase(str(tmp_path))
    assert tables.wdl_count == 1
    assert any("KRvK.rtbw" in problem and "past the end" in problem for problem in tables.problems)
    assert any("KBvK.rtbw" in problem and "magic" in problem for problem in tables.problems)
    assert tables.probe_wdl("8/8/8/8/8/k7/8/KQ6 w - - 0 1") == 2
    assert tables.probe_wdl("8/8/8/8/8/k7/8/KR6 w - - 0 1") is None


def test_garbage_data_never_crashes(tmp_path):
    """Header intact, compressed data overwritten: probes answer or give None, never read astray."""
    _copy_tables(tmp_path, ["KRvK"])
    path = tmp_path / "KRvK.rtbw"
    data = bytearray(path.read_bytes())
    noise = random.Random(7)
    for at in range(64, len(data)):
        data[at] = noise.randrange(256)
    path.write_bytes(bytes(data))
    tables = Tablebase(str(tmp_path))
    boards = [random_position(noise, "KRvK") for _ in range(2000)]
    results = tables.probe_wdl_many(boards)
    assert set(results.tolist()) <= {-2, -1, 0, 1, 2, layout.TB_FAILED}


def test_bad_folders_are_reported(tmp_path):
    tables = Tablebase(os.pathsep.join([str(tmp_path / "missing"), str(tmp_path), str(TABLE_FOLDER)]))
    assert tables.problems == [
        f"Syzygy folder {tmp_path / 'missing'} does not exist",
        f"Syzygy folder {tmp_path} holds no tables",
    ]
    assert (tables.wdl_count, tables.dtz_count) == (35, 35)


def test_dtz_with_compiled_decoding_equals_python_chess(tables, reference):
    """The root's DTZ prober is python-chess's with block decoding compiled: same answers."""
    boards = positions(1000, seed=36)
    prober = tables.dtz_prober()
    assert [prober.probe_dtz(board) for board in boards] == [reference.probe_dtz(board) for board in boards]
