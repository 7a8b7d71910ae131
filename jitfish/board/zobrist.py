"""Zobrist keys: the Polyglot random numbers and the from-scratch key.

For standard chess the key equals the Polyglot key (and python-chess's
``chess.polyglot.zobrist_hash``), so Polyglot books can be probed with it.
The en-passant file is hashed only when a pawn of the side to move stands
ready to capture, whether or not the capture is legal; the position arrays
only ever hold such an en-passant square, so the key can hash it plainly.
Chess960 reuses the four castling keys for the four rights.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.bitops import lsb, pop_lsb
from jitfish.board.squares import EMPTY, NO_SQUARE, WHITE
from jitfish.runtime.jit import kernel

_POLYGLOT_PIECE = 0
_POLYGLOT_CASTLING = 768
_POLYGLOT_EN_PASSANT = 772
_POLYGLOT_TURN = 780


def fill_zobrist_keys(tables: np.ndarray) -> None:
    """Copy the Polyglot numbers into the table, reordered to our piece indices."""
    from chess.polyglot import POLYGLOT_RANDOM_ARRAY  # only when the table is first built

    keys = np.array(POLYGLOT_RANDOM_ARRAY, dtype=np.uint64)
    for color in range(2):
        for piece_type in range(6):
            # Polyglot orders pieces black pawn, white pawn, black knight, ...
            kind = 2 * piece_type + (1 if color == WHITE else 0)
            piece = color * 6 + piece_type
            start = L.ZOBRIST_PIECE + piece * 64
            tables[start : start + 64] = keys[_POLYGLOT_PIECE + 64 * kind : _POLYGLOT_PIECE + 64 * kind + 64]
    tables[L.ZOBRIST_CASTLING : L.ZOBRIST_CASTLING + 4] = keys[_POLYGLOT_CASTLING : _POLYGLOT_CASTLING + 4]
    tables[L.ZOBRIST_EN_PASSANT : L.ZOBRIST_EN_PASSANT + 8] = keys[_POLYGLOT_EN_PASSANT : _POLYGLOT_EN_PASSANT + 8]
    tables[L.ZOBRIST_TURN] = keys[_POLYGLOT_TURN]
    for rights in range(16):
        combined = np.uint64(0)
        for right in range(4):
            if rights >> right & 1:
                combined ^= keys[_POLYGLOT_CASTLING + right]
        tables[L.ZOBRIST_CASTLING_SET + rights] = combined


@kernel
def compute_key(bbs, state, tables):
    """The key of the position computed from scratch (incremental updates must equal it)."""
    key = EMPTY
    for piece in range(12):
        pieces = bbs[piece]
        while pieces:
            key ^= tables[L.ZOBRIST_PIECE + piece * 64 + lsb(pieces)]
            pieces = pop_lsb(pieces)
    rights = state[L.CASTLING_RIGHTS]
    for right in range(4):
        if rights & (1 << right):
            key ^= tables[L.ZOBRIST_CASTLING + right]  # spelled out: this is the reference
    if state[L.EN_PASSANT] != NO_SQUARE:
        key ^= tables[L.ZOBRIST_EN_PASSANT + (state[L.EN_PASSANT] & 7)]
    if state[L.SIDE_TO_MOVE] == WHITE:
        key ^= tables[L.ZOBRIST_TURN]
    return key
