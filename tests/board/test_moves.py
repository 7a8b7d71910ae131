"""The move encoding: one set of accessors decodes what encode_move packs."""

from __future__ import annotations

import chess
import pytest

import jitfish
from jitfish.board.moves import (
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    MOVE_NORMAL,
    encode_move,
    is_special_move,
    move_from,
    move_from_to,
    move_kind,
    move_promotion,
    move_to,
    move_to_uci,
    piece_colour,
    piece_type,
)
from jitfish.board.squares import KNIGHT, PIECE_SYMBOLS, QUEEN, SQUARE_NAMES


@pytest.mark.parametrize(
    "from_sq, to_sq, promotion, kind",
    [
        (0, 63, 0, MOVE_NORMAL),
        (52, 60, QUEEN, MOVE_NORMAL),
        (49, 56, KNIGHT, MOVE_NORMAL),
        (36, 43, 0, MOVE_EN_PASSANT),
        (4, 7, 0, MOVE_CASTLING),
    ],
)
def test_accessors_decode_what_encode_move_packs(from_sq, to_sq, promotion, kind):
    move = encode_move(from_sq, to_sq, promotion, kind)
    assert (move_from(move), move_to(move), move_promotion(move), move_kind(move)) == (from_sq, to_sq, promotion, kind)
    assert move_from_to(move) == from_sq + 64 * to_sq
    assert is_special_move(move) == (promotion != 0 or kind != MOVE_NORMAL)


def test_generated_moves_decode_to_their_uci_squares():
    board = jitfish.Board("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
    kinds = {}
    for move in board._encoded_legal_moves():
        move = int(move)
        text = move_to_uci(move, chess960=True)
        assert text[:4] == SQUARE_NAMES[move_from(move)] + SQUARE_NAMES[move_to(move)]
        kinds[text] = move_kind(move)
    assert kinds["e5d6"] == MOVE_EN_PASSANT
    assert kinds["e1h1"] == kinds["e1a1"] == MOVE_CASTLING
    assert kinds["b7b8q"] == MOVE_NORMAL


@pytest.mark.parametrize("piece", range(12))
def test_a_piece_splits_into_its_colour_and_type_as_python_chess_reads_its_symbol(piece):
    symbol = chess.Piece.from_symbol(PIECE_SYMBOLS[piece])
    assert piece_type(piece) == symbol.piece_type - 1  # python-chess counts from PAWN = 1
    assert piece_colour(piece) == int(symbol.color == chess.BLACK)
