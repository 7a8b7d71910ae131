"""The Syzygy options over UCI: tables found, bad folders and files reported, the root kept in the tables."""

from __future__ import annotations

import os

import chess
import chess.syzygy

from tests.syzygy.positions import TABLE_FOLDER
from tests.uci.conftest import errors_in

KQVK = "8/8/8/8/8/k7/8/KQ6 w - - 0 1"


def info_strings(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string")]


def test_tables_are_counted_and_bad_folders_named(engine, tmp_path):
    engine.send(f"setoption name SyzygyPath value {tmp_path / 'nowhere'}{os.pathsep}{TABLE_FOLDER}")
    lines = engine.ready()
    assert f"info string error: Syzygy folder {tmp_path / 'nowhere'} does not exist" in lines
    assert any("found 35 WDL and 35 DTZ tables (up to 4 pieces)" in line for line in info_strings(lines)), lines
    engine.send("setoption name SyzygyPath value <empty>")
    assert not errors_in(engine.ready())


def test_a_corrupt_table_is_named_and_the_engine_plays_on(engine, tmp_path):
    (tmp_path / "KQvK.rtbw").write_bytes(b"\x71\xe8\x23\x5d" + b"\x00" * 76)
    engine.send(f"setoption name SyzygyPath value {tmp_path}")
    lines = engine.ready()
    assert any("KQvK.rtbw" in line for line in errors_in(lines)), lines
    engine.send(f"position fen {KQVK}")
    engine.send("go depth 4")
    assert engine.read_until("bestmove", 30)[-1].split()[1] in {m.uci() for m in chess.Board(KQVK).legal_moves}


def _winning_in_time(fen: str) -> set[str]:
    """The moves after which the win comes before the clock reaches 100 plies (DTZ's own count)."""
    board = chess.Board(fen)
    keep = set()
    with chess.syzygy.open_tablebase(str(TABLE_FOLDER)) as prober:
        for move in board.legal_moves:
            board.push(move)
            dtz = -prober.probe_dtz(board)
            if board.is_checkmate() or (dtz > 0 and dtz + board.halfmove_clock <= 99):
                keep.add(move.uci())
            board.pop()
    return keep


def test_the_root_keeps_the_win_and_reports_a_tablebase_score(engine):
    engine.send(f"setoption name SyzygyPath value {TABLE_FOLDER}")
    engine.ready()
    # KRvK with most of the clock gone: only some moves still win before the 50-move rule.
    fen = "8/8/8/4k3/8/8/8/R3K3 w - - 70 1"
    winning = _winning_in_time(fen)
    assert 0 < len(winning) < chess.Board(fen).legal_moves.count()
    engine.send(f"position fen {fen}")
    engine.send("go depth 6")
    lines = engine.read_until("bestmove", 60)
    assert lines[-1].split()[1] in winning
    scores = [
        line.split()[line.split().index("score") + 1 : line.split().index("score") + 3]
        for line in lines
        if " score " in line
    ]
    assert scores[-1] == ["cp", "31743"] or scores[-1][0] == "mate", scores


def _tbhits(lines: list[str]) -> list[int]:
    return [int(line.split()[line.split().index("tbhits") + 1]) for line in lines if " tbhits " in line]


def test_the_search_probes_after_captures_into_the_tables(engine):
    # Five pieces: the rook trade on d4 leads into four-piece tables.
    fen = "8/8/3k4/8/3r4/8/3R1P2/4K3 w - - 0 1"
    engine.send(f"position fen {fen}")
    engine.send("go depth 8")
    lines = engine.read_until("bestmove", 60)
    assert _tbhits(lines) == []  # no tables, no tbhits field
    engine.send(f"setoption name SyzygyPath value {TABLE_FOLDER}")
    engine.ready()
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.send("go depth 8")
    lines = engine.read_until("bestmove", 60)
    assert _tbhits(lines) and _tbhits(lines)[-1] > 0, lines
