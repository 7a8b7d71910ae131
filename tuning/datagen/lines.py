"""The text format of training data: ``FEN | score | result``, one position a line, gzip-compressed.

This is the text format bullet's ``convert`` and most Texel tuners read::

    rnbqkb1r/pp2pppp/2p2n2/3p4/2PP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4 | 31 | 0.5

* ``score``: the search's score of the position, an integer in centipawns from white's view (never a
  mate score: such positions are not written);
* ``result``: how the game the position came from ended, from white's view: ``1.0`` a white win,
  ``0.5`` a draw, ``0.0`` a black win.

Fields are separated by `` | ``; a FEN never contains ``|``.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import chess

SEPARATOR = " | "
WHITE_WIN, DRAW, BLACK_WIN = 1.0, 0.5, 0.0
RESULTS = (WHITE_WIN, DRAW, BLACK_WIN)
PGN_RESULTS = {"1-0": WHITE_WIN, "1/2-1/2": DRAW, "0-1": BLACK_WIN}


def format_line(fen: str, score: int, result: float) -> str:
    """One line (without its newline) for a position, its score (cp, white's view) and the game's result."""
    if result not in RESULTS:
        raise ValueError(f"result must be one of {RESULTS}, not {result!r}")
    return f"{fen}{SEPARATOR}{int(score)}{SEPARATOR}{result:.1f}"


def parse_line(line: str, check_position: bool = True) -> tuple[str, int, float]:
    """``(fen, score, result)`` of a line; ``ValueError`` naming what is wrong with a malformed one.

    Spaces around the ``|`` are optional and a result may also be written as in PGN (``1-0``,
    ``1/2-1/2``, ``0-1``), as other tools write it.  With ``check_position`` the FEN must describe a
    legal position (python-chess's ``Board.is_valid``), which makes this a checker more than a fast
    reader; the Texel tuner turns it off, its own board reads the FEN anyway."""
    fields = [field.strip() for field in line.split("|")]
    if len(fields) != 3:
        raise ValueError(f"expected 'FEN | score | result', got {line!r}")
    fen, score_text, result_text = fields
    if check_position:
        try:
            board = chess.Board(fen)
        except ValueError as error:
            raise ValueError(f"bad FEN in {line!r}: {error}") from None
        if not board.is_valid():
            raise ValueError(f"bad FEN in {line!r}: not a legal position ({board.status()!r})")
    try:
        score = int(score_text)
    except ValueError:
        raise ValueError(f"score is not an integer in {line!r}") from None
    if result_text in PGN_RESULTS:
        return fen, score, PGN_RESULTS[result_text]
    if result_text not in {f"{r:.1f}" for r in RESULTS}:
        raise ValueError(f"result must be 1.0, 0.5 or 0.0 in {line!r}")
    return fen, score, float(result_text)


def read_data(path: str | Path, check_position: bool = True) -> Iterator[tuple[str, int, float]]:
    """Every ``(fen, score, result)`` of a data file (gzip-compressed if its name ends in ``.gz``).

    A malformed line raises ``ValueError`` naming the file and line number; blank lines are skipped."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="ascii") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield parse_line(line, check_position)
            except ValueError as error:
                raise ValueError(f"{path}:{number}: {error}") from None


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Have ``write`` write a temporary file beside ``path``, then rename it: ``path`` is whole or absent."""
    temporary = path.with_name(path.name + ".tmp")
    write(temporary)
    os.replace(temporary, path)


def write_data(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` (without newlines), gzip-compressed, to ``path`` atomically."""

    def write(temporary: Path) -> None:
        with gzip.open(temporary, "wt", encoding="ascii") as handle:
            for line in lines:
                handle.write(line + "\n")

    write_atomically(path, write)
