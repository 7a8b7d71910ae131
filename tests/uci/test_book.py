"""Polyglot opening books: a small book built here, read by the engine with our key."""

from __future__ import annotations

import random
import struct
from collections import Counter
from pathlib import Path

import chess
import chess.polyglot
import pytest

import jitfish
from jitfish.engine.book import Book
from tests.uci.conftest import PROMPT, errors_in

CASTLE_FEN = "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq - 4 8"


def raw_move(uci: str) -> int:
    """Polyglot's 16-bit move: to square, from square (6 bits each), promotion piece."""
    move = chess.Move.from_uci(uci)
    promotion = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return move.to_square | move.from_square << 6 | promotion << 12


def write_book(path: Path, entries: list[tuple[str, str, int]]) -> Path:
    """Entries (fen, move in Polyglot notation, weight) as a sorted 16-byte big-endian book."""
    rows = []
    for fen, move, weight in entries:
        key = jitfish.Board(fen).zobrist()
        assert key == chess.polyglot.zobrist_hash(chess.Board(fen))  # our key is Polyglot's
        rows.append(struct.pack(">QHHI", key, raw_move(move), weight, 0))
    rows.sort()
    path.write_bytes(b"".join(rows))
    return path


@pytest.fixture
def book_file(tmp_path: Path) -> Path:
    start = chess.STARTING_FEN
    return write_book(
        tmp_path / "small.bin",
        [
            (start, "e2e4", 30),
            (start, "d2d4", 10),
            (start, "g1f3", 0),  # weight 0: never played
            (start, "e2e5", 50),  # illegal: skipped
            (CASTLE_FEN, "e1h1", 5),  # Polyglot castling, king takes rook
        ],
    )


def test_reader_finds_moves_with_weights(book_file):
    book = Book(book_file)
    assert len(book) == 5
    assert sorted(book.moves(jitfish.Board())) == [("d2d4", 10), ("e2e4", 30)]
    assert book.moves(jitfish.Board(CASTLE_FEN)) == [("e1g1", 5)]
    assert book.moves(jitfish.Board(CASTLE_FEN, chess960=True)) == [("e1h1", 5)]
    board = jitfish.Board()
    board.push_uci("a2a3")
    assert book.moves(board) == [] and book.pick(board, random.Random(1)) is None


def test_picks_are_weighted_by_the_book(book_file):
    book = Book(book_file)
    rng = random.Random(7)
    counts = Counter(book.pick(jitfish.Board(), rng) for _ in range(2000))
    assert set(counts) == {"e2e4", "d2d4"}
    assert 0.68 < counts["e2e4"] / 2000 < 0.82  # 30 / 40 = 0.75


def test_bad_book_files_are_refused(tmp_path):
    with pytest.raises(OSError):
        Book(tmp_path / "missing.bin")
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00" * 15)
    with pytest.raises(ValueError):
        Book(bad)


def test_engine_plays_a_book_move_at_once(uci, book_file):
    uci.send(f"setoption name BookFile value {book_file}")
    uci.send("setoption name OwnBook value true")
    assert not errors_in(uci.ready())
    seen = set()
    for _ in range(6):
        uci.send("position startpos")
        uci.send("go wtime 60000 btime 60000 winc 1000 binc 1000")
        lines = uci.read_until("bestmove", PROMPT)
        assert any("book move" in line for line in lines), lines
        seen.add(lines[-1].split()[1])
    assert seen <= {"e2e4", "d2d4"} and "e2e4" in seen
    uci.send(f"position fen {CASTLE_FEN}")
    uci.send("go wtime 60000 btime 60000")
    assert uci.read_until("bestmove", 30)[-1] == "bestmove e1g1"
    uci.send("position startpos moves h2h3")  # out of book: a real search
    uci.send("go depth 2")
    lines = uci.read_until("bestmove", 10)
    assert not any("book move" in line for line in lines)
    uci.send("setoption name OwnBook value false")
    uci.send("setoption name BookFile value <empty>")
    uci.ready()


def test_bad_book_file_is_reported(uci, tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x01" * 17)
    uci.send(f"setoption name BookFile value {bad}")
    errors = errors_in(uci.ready())
    assert errors and "BookFile" in errors[0]
