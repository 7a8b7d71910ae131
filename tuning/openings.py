"""Opening suites: reading EPD and PGN files into start positions, and the order they are played in.

An :class:`Opening` is a start FEN plus the moves played from it (PGN openings keep their moves, so the games
written out show them). Each opening is played twice with colours swapped by the match runner.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import chess
import chess.pgn

OpeningFormat = Literal["epd", "pgn"]
OpeningOrder = Literal["random", "sequential"]


@dataclass(frozen=True)
class Opening:
    """A start position and the book moves played from it."""

    fen: str = chess.STARTING_FEN
    moves: tuple[chess.Move, ...] = ()

    def board(self) -> chess.Board:
        """The position after the book moves (with the move stack, so repetitions count from the start)."""
        board = chess.Board(self.fen)
        for move in self.moves:
            board.push(move)
        return board


def opening_format(path: str | Path) -> OpeningFormat:
    """``pgn`` for ``.pgn`` files, else ``epd``."""
    return "pgn" if str(path).lower().endswith(".pgn") else "epd"


def read_epd(path: str | Path) -> list[Opening]:
    """One opening per non-empty line; ``#`` lines are comments. Raises ValueError naming a bad line."""
    openings: list[Opening] = []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            board, _ = chess.Board.from_epd(line)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: {error}") from None
        if not board.is_valid():
            raise ValueError(f"{path}:{number}: illegal position {line!r}")
        openings.append(Opening(fen=board.fen()))
    return openings


def read_pgn(path: str | Path, plies: int | None = None) -> list[Opening]:
    """The main line of every game, cut to ``plies`` half-moves when given."""
    openings: list[Opening] = []
    with open(path, encoding="utf-8-sig") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            if game.errors:
                raise ValueError(f"{path}: {game.errors[0]}")
            moves = list(game.mainline_moves())
            if plies is not None:
                moves = moves[:plies]
            openings.append(Opening(fen=game.board().fen(), moves=tuple(moves)))
    return openings


def read_openings(path: str | Path, fmt: OpeningFormat | None = None, plies: int | None = None) -> list[Opening]:
    """Read an EPD or PGN suite (format from the file name unless given)."""
    fmt = fmt or opening_format(path)
    openings = read_pgn(path, plies) if fmt == "pgn" else read_epd(path)
    if not openings:
        raise ValueError(f"{path}: no openings")
    return openings


def opening_sequence(openings: list[Opening], count: int, order: OpeningOrder, seed: int | None) -> list[Opening]:
    """``count`` openings: the suite in file or shuffled order, starting again from the top when used up."""
    if not openings:
        return [Opening()] * count
    indices = list(range(len(openings)))
    if order == "random":
        random.Random(seed).shuffle(indices)
    return [openings[indices[i % len(indices)]] for i in range(count)]
