"""Plain-Python indexing of the history tables on python-chess boards: the reference the kernels'
(:mod:`jitfish.search.history`) index functions are held to.

The rules, stated here rather than read from the engine: pieces are numbered white P N B R Q K (0-5), then
black's (6-11); squares a1 = 0 ... h8 = 63; a move code holds its from-square in bits 0-5 and its to-square
in bits 6-11.
"""

from __future__ import annotations

import chess

from jitfish.board.moves import move_to_uci
from jitfish.search.history import CAPTURES, CONTINUATION, HISTORY


def piece_to(board: chess.Board, move: int) -> int:
    """The moving piece * 64 + the to-square."""
    piece = board.piece_at(move & 63)
    return (6 * (piece.color == chess.BLACK) + piece.piece_type - 1) * 64 + ((move >> 6) & 63)


def butterfly_index(board: chess.Board, move: int) -> int:
    return HISTORY + (board.turn == chess.BLACK) * 4096 + (move & 4095)


def continuation_indices(earlier_piece_tos: list[int], board: chess.Board, move: int) -> list[int]:
    """The continuation entries of ``move`` after earlier moves given by their ``piece_to``."""
    return [CONTINUATION + earlier * 12 * 64 + piece_to(board, move) for earlier in earlier_piece_tos]


def capture_index(board: chess.Board, move: int) -> int:
    """The capture history entry: ``piece_to * 6 + the captured type`` (a pawn for en passant)."""
    m = chess.Move.from_uci(move_to_uci(move))
    victim = chess.PAWN if board.is_en_passant(m) else board.piece_type_at(m.to_square)
    return CAPTURES + piece_to(board, move) * 6 + victim - 1
