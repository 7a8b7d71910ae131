"""Random legal 3-4-piece positions for the tablebase tests, from a seeded generator.

Material is drawn from the tables on disk, so every position is in them; a
tenth of the positions are built around a pawn that has just advanced two
squares next to an enemy pawn, so that en passant is on the board.
"""

from __future__ import annotations

import random
from pathlib import Path

import chess

TABLE_FOLDER = Path(__file__).resolve().parent.parent / "data" / "syzygy"
MATERIALS = sorted(path.stem for path in TABLE_FOLDER.glob("*.rtbw"))
PIECE_TYPES = {letter: chess.PIECE_SYMBOLS.index(letter.lower()) for letter in "KQRBNP"}


def _place(rng: random.Random, board: chess.Board, letters: str, colour: bool) -> None:
    for letter in letters:
        piece_type = PIECE_TYPES[letter]
        squares = [
            sq
            for sq in chess.SQUARES
            if board.piece_at(sq) is None and not (piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7))
        ]
        board.set_piece_at(rng.choice(squares), chess.Piece(piece_type, colour))


def random_position(rng: random.Random, material: str | None = None) -> chess.Board:
    """A valid position of ``material`` (a table name; swapped colours half the time), either side to move."""
    material = material or rng.choice(MATERIALS)
    while True:
        board = chess.Board(None)
        white, black = material.split("v")
        if rng.random() < 0.5:
            white, black = black, white
        _place(rng, board, white, chess.WHITE)
        _place(rng, board, black, chess.BLACK)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            return board


def en_passant_position(rng: random.Random) -> chess.Board:
    """A valid position where the side to move may take en passant (pawns on both sides)."""
    candidates = [m for m in MATERIALS if "P" in m.split("v")[0] and "P" in m.split("v")[1]]
    while True:
        material = rng.choice(candidates)
        board = chess.Board(None)
        turn = rng.random() < 0.5
        file = rng.randrange(8)
        side_file = file + rng.choice((-1, 1))
        if not 0 <= side_file < 8:
            continue
        # The pawn of the side not to move has just advanced two squares.
        rank = 3 if turn == chess.BLACK else 4
        mover = not turn
        board.set_piece_at(chess.square(file, rank), chess.Piece(chess.PAWN, mover))
        board.set_piece_at(chess.square(side_file, rank), chess.Piece(chess.PAWN, turn))
        white, black = material.split("v")
        rest_white = white.replace("P", "", 1)
        rest_black = black.replace("P", "", 1)
        _place(rng, board, rest_white, chess.WHITE)
        _place(rng, board, rest_black, chess.BLACK)
        board.turn = turn
        behind = chess.square(file, rank - 1 if mover == chess.WHITE else rank + 1)
        start = chess.square(file, 1 if mover == chess.WHITE else 6)
        if board.piece_at(behind) or board.piece_at(start):
            continue
        board.ep_square = behind
        if board.is_valid() and board.has_legal_en_passant():
            return board


def positions(count: int, seed: int) -> list[chess.Board]:
    """``count`` positions, one in ten with a legal en passant capture."""
    rng = random.Random(seed)
    return [en_passant_position(rng) if i % 10 == 9 else random_position(rng) for i in range(count)]
