"""Polyglot opening books (OwnBook / BookFile).

A Polyglot ``.bin`` file is a sorted array of 16-byte big-endian entries:
key (8 bytes), move (2), weight (2), learn (4).  python-chess's
:mod:`chess.polyglot` reads it; the key is our own (``Board.zobrist()`` is
Polyglot-compatible), so no python-chess board is built per move.  Polyglot
writes castling as king-takes-rook (``e1h1``): the move is turned into the
board's own notation, and a move that is not legal here (a key collision, a
broken book) is skipped.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING

import chess.polyglot

if TYPE_CHECKING:
    from jitfish.board.board import Board

ENTRY_SIZE = 16


class Book:
    """An open Polyglot book; raises ``OSError``/``ValueError`` for a missing or malformed file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        size = os.path.getsize(self.path)  # OSError when missing
        if size == 0 or size % ENTRY_SIZE:
            raise ValueError(f"{self.path} is not a Polyglot book ({size} bytes, not a multiple of {ENTRY_SIZE})")
        self._reader = chess.polyglot.open_reader(self.path)

    def __len__(self) -> int:
        return len(self._reader)

    def close(self) -> None:
        self._reader.close()

    def moves(self, board: Board) -> list[tuple[str, int]]:
        """The book's legal moves here, in the board's notation, with their weights."""
        from jitfish.board.moves import move_to_uci

        result: dict[str, int] = {}
        for entry in self._reader.find_all(board.zobrist()):
            try:
                encoded = board.parse_uci(entry.move.uci())
            except ValueError:
                continue
            move = move_to_uci(encoded, board.chess960)
            result[move] = result.get(move, 0) + entry.weight
        return list(result.items())

    def pick(self, board: Board, rng: random.Random) -> str | None:
        """A book move chosen with probability proportional to its weight, or ``None``."""
        moves = self.moves(board)
        total = sum(weight for _, weight in moves)
        if total <= 0:
            return None
        ticket = rng.randrange(total)
        for move, weight in moves:
            ticket -= weight
            if ticket < 0:
                return move
        return moves[-1][0]
