"""``genfens``: opening positions for OpenBench's data generation, made by the engine itself.

OpenBench's client builds the opening book of a data-generation workload by running, once per thread::

    <engine> "genfens N seed S book <None|Books/file.epd> <extra>" "quit"

and reading ``N`` lines ``info string genfens <FEN>`` (it gives up when 15 s pass without one).  Each
position here is a random game's start: a position of the book (a random line), or the start position
with ``book None``, then a few random legal plies (``START_PLIES`` from the start position, fewer from a
book's: they are openings already).  A candidate is kept when it is new (placement, side to move,
castling and en passant), the side to move has a legal move, and a quick search (``FILTER_DEPTH``, one
thread, a cleared table) scores it within ``MAX_SCORE_CP`` of equality without a mate: a position
already lost teaches little.  Everything follows from ``random.Random(S)`` and fixed-depth searches, so
the same command prints the same positions.  The ``extra`` words are accepted and ignored.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.board.board import Board
    from jitfish.engine.engine import Engine

START_PLIES = (8, 9)  # random plies from the start position: either side may be to move
BOOK_PLIES = (2, 3)  # from a book position
FILTER_DEPTH = 6
FILTER_HASH_MB = 16
MAX_SCORE_CP = 300
MAX_POSITIONS = 1 << 20
TRIES_PER_POSITION = 100  # candidates tried per position asked for before giving up (a tiny book)
USAGE = "genfens N seed S book <None|file.epd> [extra]"


def parse_genfens(args: list[str]) -> tuple[int, int, Path | None]:
    """(positions, seed, book file or None) of ``genfens``'s arguments; ``ValueError`` with the usage."""
    if len(args) < 5 or args[1] != "seed" or args[3] != "book":
        raise ValueError(f"usage: {USAGE}")
    try:
        count, seed = int(args[0]), int(args[2])
    except ValueError:
        raise ValueError(f"N and S must be integers: {USAGE}") from None
    if not 1 <= count <= MAX_POSITIONS:
        raise ValueError(f"N must be between 1 and {MAX_POSITIONS}, got {count}")
    return count, seed, None if args[4].lower() == "none" else Path(args[4])


def book_lines(book: Path | None) -> list[str]:
    """The positions to start from: the book's non-empty lines (EPD or FEN), or the start position."""
    from jitfish.board.position import STARTING_FEN

    if book is None:
        return [STARTING_FEN]
    try:
        lines = [line.strip() for line in book.read_text().splitlines() if line.strip()]
    except OSError as error:
        raise ValueError(f"book {book}: {error.strerror}") from None
    if not lines:
        raise ValueError(f"book {book} holds no position")
    return lines


def start_board(line: str) -> Board:
    """A ``Board`` of one book line: a FEN, or an EPD (its four fields; operations such as ``c0`` dropped)."""
    from jitfish.board.board import Board

    fields = line.split()
    counters = fields[4:6] if len(fields) >= 6 and all(field.isdigit() for field in fields[4:6]) else ["0", "1"]
    try:
        return Board(" ".join(fields[:4] + counters))
    except ValueError as error:
        raise ValueError(f"book line '{line[:80]}': {error}") from None


def generate_fens(engine: Engine, count: int, seed: int, book: Path | None) -> Iterator[str]:
    """The ``count`` positions of ``genfens`` as FENs, one at a time (see the module docstring)."""
    from jitfish.search import Searcher, SearchLimits

    lines = book_lines(book)
    plies = START_PLIES if book is None else BOOK_PLIES
    rng = random.Random(seed)
    searcher = Searcher(FILTER_HASH_MB, threads=1, params=engine.searcher.params, network=engine.searcher.network)
    seen: set[str] = set()
    for _ in range(count * TRIES_PER_POSITION):
        board = start_board(rng.choice(lines))
        for _ply in range(rng.randint(*plies)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push_uci(rng.choice(moves))
        fen = board.fen()
        key = " ".join(fen.split()[:4])
        if key in seen or not board.legal_moves():
            continue
        searcher.clear()
        result = searcher.search(board, SearchLimits(depth=FILTER_DEPTH))
        if result.score_mate is not None or result.score_cp is None or abs(result.score_cp) > MAX_SCORE_CP:
            continue
        seen.add(key)
        yield fen
        if len(seen) == count:
            return
    raise ValueError(
        f"found only {len(seen)} distinct positions of {count} in {count * TRIES_PER_POSITION} tries "
        f"(a larger book, or fewer positions)"
    )


def genfens(engine: Engine, args: list[str], send: Callable[[str], None]) -> None:
    """The UCI command: each position as a line ``info string genfens <FEN>`` (through ``send``) as soon as it is
    found, never held back: the client gives up when 15 s pass without one."""
    count, seed, book = parse_genfens(args)
    for fen in generate_fens(engine, count, seed, book):
        send(f"info string genfens {fen}")
