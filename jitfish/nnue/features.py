"""The network's inputs: 768 features, one per (piece colour, piece type, square), for each perspective.

A perspective is the side a set of features is seen from.  Each side sees the board as if it were white:

* white's view is the board as it is;
* black's view flips every square vertically (``square ^ 56``: a1 <-> a8) and swaps the colours, so that
  black's own pieces count as "ours" and its back rank is rank 1.

The index of a piece in a view is::

    index = relation * 384 + piece_type * 64 + square

with ``relation`` 0 for the viewer's own pieces and 1 for the opponent's, ``piece_type`` 0..5 (pawn, knight,
bishop, rook, queen, king, as :mod:`jitfish.board.squares`), ``square`` 0..63 (a1 = 0, h8 = 63) after the
flip.  For white's view ``relation`` is the piece's colour (white 0, black 1), so white's view reads
``colour * 384 + piece_type * 64 + square``.  A position's feature set in a view holds one index per piece
(at most 32 in a legal position); the two views are exchanged by mirroring the board vertically and swapping
the colours, which the tests check.

This module is pure Python and NumPy: the trainer and the integer reference use it, and the Numba engine
will compute the same indices from its own arrays.
"""

from __future__ import annotations

import chess
import numpy as np

from jitfish.board.squares import BLACK, PIECE_TYPE_COUNT, WHITE

SQUARE_COUNT = 64
RELATION_COUNT = 2  # the viewer's own pieces, the opponent's
FEATURE_COUNT = RELATION_COUNT * PIECE_TYPE_COUNT * SQUARE_COUNT  # 768
PERSPECTIVES = (WHITE, BLACK)
VERTICAL_FLIP = 56  # square ^ 56 mirrors a square across the board's middle (a1 <-> a8)


def feature_index(perspective: int, colour: int, piece_type: int, square: int) -> int:
    """The feature of a ``colour`` piece of ``piece_type`` (0..5) on ``square`` seen from ``perspective``."""
    if perspective == BLACK:
        colour, square = colour ^ 1, square ^ VERTICAL_FLIP
    return colour * (PIECE_TYPE_COUNT * SQUARE_COUNT) + piece_type * SQUARE_COUNT + square


def as_board(position: str | chess.Board) -> chess.Board:
    """A python-chess board of a FEN (``ValueError`` for a bad one), or the board itself."""
    if isinstance(position, chess.Board):
        return position
    try:
        return chess.Board(position)
    except ValueError as error:
        raise ValueError(f"bad FEN {position!r}: {error}") from None


def active_features(position: str | chess.Board) -> tuple[np.ndarray, np.ndarray]:
    """The sorted feature indices (``int64``) of every piece of a FEN or python-chess board: ``(white's
    view, black's view)``.  Index them by perspective (``WHITE`` = 0, ``BLACK`` = 1)."""
    board = as_board(position)
    white_view, black_view = [], []
    for square, piece in board.piece_map().items():
        colour = WHITE if piece.color == chess.WHITE else BLACK
        piece_type = piece.piece_type - chess.PAWN  # python-chess numbers pawn..king 1..6
        white_view.append(feature_index(WHITE, colour, piece_type, square))
        black_view.append(feature_index(BLACK, colour, piece_type, square))
    return np.sort(np.array(white_view, dtype=np.int64)), np.sort(np.array(black_view, dtype=np.int64))


def side_to_move(position: str | chess.Board) -> int:
    """``WHITE`` (0) or ``BLACK`` (1): whose view comes first in the network's input."""
    return WHITE if as_board(position).turn == chess.WHITE else BLACK
