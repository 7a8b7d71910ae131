"""The 768 input features: indices of known positions and the symmetry between the two perspectives."""

from __future__ import annotations

import chess
import numpy as np
import pytest

from jitfish.nnue.features import BLACK, FEATURE_COUNT, WHITE, active_features, feature_index, side_to_move

ROOK_ENDING = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"


def test_white_view_is_colour_type_square_and_black_view_flips_and_swaps():
    white_view, black_view = active_features(ROOK_ENDING)
    # white's view: white rook a1 = 0*384 + 3*64 + 0, white king e1 = 5*64 + 4, black king e8 = 384 + 5*64 + 60
    assert white_view.tolist() == [192, 324, 764]
    # black's view: its king is "ours" on e1 (60 ^ 56 = 4); white's rook is theirs on a8, white's king on e8
    assert black_view.tolist() == [324, 632, 764]


def test_the_starting_position_looks_the_same_from_both_sides():
    white_view, black_view = active_features(chess.Board())
    assert len(white_view) == 32
    assert white_view.tolist() == black_view.tolist()
    assert {8, 15, 64 + 1, 3 * 64 + 7, 4 * 64 + 3, 5 * 64 + 4} <= set(white_view.tolist())


@pytest.mark.parametrize("perspective", [WHITE, BLACK])
def test_each_perspective_maps_every_piece_on_every_square_to_its_own_feature(perspective):
    indices = {
        feature_index(perspective, colour, piece_type, square)
        for colour in (WHITE, BLACK)
        for piece_type in range(6)
        for square in range(64)
    }
    assert indices == set(range(FEATURE_COUNT))


def test_a_mirrored_position_with_colours_swapped_swaps_the_feature_sets(sample_fens):
    for fen in sample_fens:
        board = chess.Board(fen)
        white_view, black_view = active_features(board)
        mirrored_white, mirrored_black = active_features(board.mirror())  # flips ranks, colours and turn
        assert np.array_equal(mirrored_white, black_view), fen
        assert np.array_equal(mirrored_black, white_view), fen
        assert side_to_move(board.mirror()) == side_to_move(board) ^ 1


def test_a_fen_and_a_board_give_the_same_features():
    from_fen = active_features(ROOK_ENDING)
    from_board = active_features(chess.Board(ROOK_ENDING))
    assert all(np.array_equal(a, b) for a, b in zip(from_fen, from_board))


def test_a_bad_fen_is_a_value_error():
    with pytest.raises(ValueError, match="bad FEN"):
        active_features("not a fen")
