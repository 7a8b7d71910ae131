"""Names for colours, piece types, pieces and squares, and the board masks.

Squares are numbered a1 = 0, b1 = 1, ..., h8 = 63 (little-endian rank-file
mapping, as python-chess).  A piece is ``colour * 6 + piece_type``.
Bitboard constants are ``np.uint64`` so that Numba never mixes them with
signed integers (which would promote the result to float64).
"""

from __future__ import annotations

import numpy as np

WHITE = 0
BLACK = 1
COLOR_NAMES = ("white", "black")

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
PIECE_TYPE_COUNT = 6
PIECE_SYMBOLS = "PNBRQKpnbrqk"
NO_PIECE = 12
NO_SQUARE = 64

SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]
(
    A1,
    B1,
    C1,
    D1,
    E1,
    F1,
    G1,
    H1,
    A2,
    B2,
    C2,
    D2,
    E2,
    F2,
    G2,
    H2,
    A3,
    B3,
    C3,
    D3,
    E3,
    F3,
    G3,
    H3,
    A4,
    B4,
    C4,
    D4,
    E4,
    F4,
    G4,
    H4,
    A5,
    B5,
    C5,
    D5,
    E5,
    F5,
    G5,
    H5,
    A6,
    B6,
    C6,
    D6,
    E6,
    F6,
    G6,
    H6,
    A7,
    B7,
    C7,
    D7,
    E7,
    F7,
    G7,
    H7,
    A8,
    B8,
    C8,
    D8,
    E8,
    F8,
    G8,
    H8,
) = range(64)

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"

EMPTY = np.uint64(0)
FULL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
ONE = np.uint64(1)
FILE_A = np.uint64(0x0101_0101_0101_0101)
FILE_H = np.uint64(0x8080_8080_8080_8080)
RANK_1 = np.uint64(0x0000_0000_0000_00FF)
RANK_3 = np.uint64(0x0000_0000_00FF_0000)
RANK_6 = np.uint64(0x0000_FF00_0000_0000)
RANK_8 = np.uint64(0xFF00_0000_0000_0000)
BACK_RANKS = RANK_1 | RANK_8
# Shifts that move a bitboard one file (1), one rank (8) or one diagonal step (7, 9); 16 and 32 fill files.
SHIFT_1 = np.uint64(1)
SHIFT_7 = np.uint64(7)
SHIFT_8 = np.uint64(8)
SHIFT_9 = np.uint64(9)
SHIFT_16 = np.uint64(16)
SHIFT_32 = np.uint64(32)


def square(file: int, rank: int) -> int:
    """The square on ``file`` (0-7) and ``rank`` (0-7)."""
    return rank * 8 + file


def square_file(sq: int) -> int:
    return sq & 7


def square_rank(sq: int) -> int:
    return sq >> 3


def parse_square(name: str) -> int:
    """The square named like ``"e4"``; raises ``ValueError`` otherwise."""
    try:
        return SQUARE_NAMES.index(name)
    except ValueError:
        raise ValueError(f"invalid square name: {name!r}") from None
