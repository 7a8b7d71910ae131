"""The Numba inference kernels against the NumPy reference: feature indices, whole evaluations on every
sample position, incremental updates over random games, and the int16 accumulator's limit."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.squares import BLACK, WHITE
from jitfish.nnue import features, reference
from jitfish.nnue.format import CRELU, SCRELU, Network, shipped_network
from jitfish.nnue.inference import (
    ACCUMULATOR_DTYPE, accumulator_bound, add_feature, evaluate, evaluate_accumulators, feature_index,
    kernel_network, nnue_evaluate, refresh_accumulator, sub_feature,
)
from tests.nnue.conftest import SAMPLE
from tests.nnue.networks import random_network
from tests.nnue.test_reference import ROOK_ENDING, hand_built
from tuning.datagen.lines import read_data


@pytest.fixture(scope="module")
def every_sample_position() -> list[tuple[str, jitfish.Board]]:
    """Every position of the shipped self-play sample (3000), as FEN and as the engine's board."""
    return [(fen, jitfish.Board(fen)) for fen, _, _ in read_data(SAMPLE, check_position=False)]


def side_of(board: jitfish.Board) -> int:
    return WHITE if board.turn else BLACK


def test_feature_index_kernel_matches_the_python_definition():
    for perspective in features.PERSPECTIVES:
        for colour in (WHITE, BLACK):
            for piece_type in range(6):
                for square in range(64):
                    expected = features.feature_index(perspective, colour, piece_type, square)
                    assert feature_index(perspective, colour, piece_type, square) == expected


@pytest.mark.parametrize("activation", [CRELU, SCRELU])
def test_every_sample_position_scores_as_the_reference(every_sample_position, activation):
    net = random_network(seed=11, hidden=32, activation=activation)
    arrays = kernel_network(net)
    scores = []
    for fen, board in every_sample_position:
        us, them = reference.ordered_features(fen)
        expected = reference.output(net, reference.accumulator(net, us), reference.accumulator(net, them))
        assert nnue_evaluate(board.position.bbs, side_of(board), *arrays) == expected, fen
        scores.append(expected)
    assert min(scores) < 0 < max(scores)   # both signs, so step 4's floor division on negatives is exercised


def test_the_shipped_network_in_the_engine_is_its_float_network_floored(every_sample_position):
    """The shipped file's integers, run by the engine's kernels, are exact integer arithmetic on the float
    network the file stands for (weights over their scales): each score is that network's floored, so it
    lies in [0, 1) centipawn below it, on every position of the sample."""
    net = shipped_network()
    arrays = kernel_network(net)
    gaps = []
    for fen, board in every_sample_position:
        score = nnue_evaluate(board.position.bbs, side_of(board), *arrays)
        assert score == reference.evaluate(net, fen), fen
        gaps.append(reference.evaluate_float(net, fen) - score)
    assert -1e-9 <= min(gaps) and max(gaps) < 1.0    # float64 sums of the scaled integers: 1e-13 off
    assert max(gaps) - min(gaps) > 0.5       # the floors really differ, so a rounding would fail the bound


@pytest.mark.parametrize("activation, output_bias, turn, expected", [
    (CRELU, -1000, "w", -13),   # -12.33 floored (C's truncating division gives -12)
    (SCRELU, 475, "b", 0),      # step 3 floors -110719 / 255 to -435: 40 * 400 // 16320 = 0 (C: -434 gives 1)
])
def test_negative_values_are_floored_as_in_the_reference(activation, output_bias, turn, expected):
    assert evaluate(hand_built(activation, output_bias), ROOK_ENDING.format(turn)) == expected


def test_refresh_writes_the_reference_accumulator_of_each_perspective(every_sample_position):
    net = random_network(seed=12, hidden=32)
    arrays = kernel_network(net)
    out = arrays.new_accumulators()
    for fen, board in every_sample_position[::10]:
        views = features.active_features(fen)
        for perspective in features.PERSPECTIVES:
            refresh_accumulator(board.position.bbs, arrays.weights, arrays.biases, perspective, out[perspective])
            assert out[perspective].tolist() == reference.accumulator(net, views[perspective]).tolist(), fen


def piece_feature(perspective: int, piece: chess.Piece, square: int) -> int:
    colour = WHITE if piece.color == chess.WHITE else BLACK
    return features.feature_index(perspective, colour, piece.piece_type - chess.PAWN, square)


def feature_changes(board: chess.Board, move: chess.Move) -> tuple[list[tuple[chess.Piece, int]],
                                                                      list[tuple[chess.Piece, int]]]:
    """The pieces ``move`` takes off the board and puts on it, each with its square (python-chess's view)."""
    mover = board.piece_at(move.from_square)
    removed, added = [(mover, move.from_square)], []
    if board.is_castling(move):
        rook = chess.Piece(chess.ROOK, board.turn)
        rank = chess.square_rank(move.from_square)
        short = board.is_kingside_castling(move)
        removed.append((rook, chess.square(7 if short else 0, rank)))   # standard chess: the corner rook
        added.append((mover, chess.square(6 if short else 2, rank)))
        added.append((rook, chess.square(5 if short else 3, rank)))
        return removed, added
    if board.is_en_passant(move):
        captured_square = move.to_square + (-8 if board.turn == chess.WHITE else 8)
        removed.append((board.piece_at(captured_square), captured_square))
    elif board.piece_at(move.to_square) is not None:
        removed.append((board.piece_at(move.to_square), move.to_square))
    placed = chess.Piece(move.promotion, board.turn) if move.promotion else mover
    added.append((placed, move.to_square))
    return removed, added


def pick_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """A random legal move, preferring castling, en passant and promotions so that every kind is played."""
    moves = list(board.legal_moves)
    special = [m for m in moves if board.is_castling(m) or board.is_en_passant(m) or m.promotion]
    return rng.choice(special if special and rng.random() < 0.8 else moves)


GAME_STARTS = (
    chess.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1",     # castling both ways
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",                            # en passant
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",     # promotions
)


def test_incremental_updates_equal_a_refresh_after_every_move():
    """Random games (seeded) from positions rich in castling, en passant and promotions: the accumulators
    kept by sub/add of the changed pieces equal a refresh, and score as the reference, after every move."""
    net = random_network(seed=20, hidden=32)
    arrays = kernel_network(net)
    rng = random.Random(20)
    kinds = {"castling": 0, "en passant": 0, "promotion": 0, "capture": 0}
    incremental, refreshed = arrays.new_accumulators(), arrays.new_accumulators()
    for fen in GAME_STARTS * 3:                         # three games from each
        board, engine_board = chess.Board(fen), jitfish.Board(fen)
        for perspective in features.PERSPECTIVES:
            refresh_accumulator(engine_board.position.bbs, arrays.weights, arrays.biases, perspective,
                                incremental[perspective])
        while not board.is_game_over(claim_draw=False) and board.ply() < 120:
            move = pick_move(board, rng)
            kinds["castling"] += board.is_castling(move)
            kinds["en passant"] += board.is_en_passant(move)
            kinds["promotion"] += move.promotion is not None
            kinds["capture"] += board.is_capture(move) and not board.is_castling(move)
            removed, added = feature_changes(board, move)
            for perspective in features.PERSPECTIVES:
                for piece, square in removed:
                    sub_feature(incremental[perspective], arrays.weights, piece_feature(perspective, piece, square))
                for piece, square in added:
                    add_feature(incremental[perspective], arrays.weights, piece_feature(perspective, piece, square))
            engine_board.push_uci(move.uci())
            board.push(move)
            for perspective in features.PERSPECTIVES:
                refresh_accumulator(engine_board.position.bbs, arrays.weights, arrays.biases, perspective,
                                    refreshed[perspective])
            assert incremental.tolist() == refreshed.tolist(), (board.fen(), move.uci())
            us = side_of(engine_board)
            score = evaluate_accumulators(incremental[us], incremental[us ^ 1], *arrays[2:])
            assert score == reference.evaluate(net, board), board.fen()
    assert all(count >= 3 for count in kinds.values()), kinds


def test_accumulators_are_int16():
    arrays = kernel_network(random_network(seed=1))
    assert arrays.new_accumulators().dtype == ACCUMULATOR_DTYPE == np.int16


def uniform_network(weight: int) -> Network:
    return Network(np.full((768, 4), weight), [0, 0, 0, 0], np.ones(8, dtype=np.int16), output_bias=0)


def test_a_network_at_the_int16_limit_is_exact_in_a_full_position():
    net = uniform_network(1023)                      # 32 pieces * 1023 = 32,736 <= 32,767
    assert accumulator_bound(net) == 32 * 1023
    arrays = kernel_network(net)
    out = arrays.new_accumulators()
    refresh_accumulator(jitfish.Board().position.bbs, arrays.weights, arrays.biases, WHITE, out[WHITE])
    assert out[WHITE].tolist() == [32 * 1023] * 4
    assert evaluate(net, jitfish.Board()) == reference.evaluate(net, chess.Board())


def test_a_network_that_could_overflow_int16_is_refused():
    with pytest.raises(ValueError, match="too large for int16"):
        kernel_network(uniform_network(1024))        # 32 * 1024 = 32,768
    with pytest.raises(ValueError, match="too large for int16"):
        large_bias = Network(np.ones((768, 2), dtype=np.int16), [0, 32767], [1, 1, 1, 1], output_bias=0)
        kernel_network(large_bias)                   # 32,767 + 32 * 1


def test_the_trainers_clipped_weights_always_fit():
    assert accumulator_bound(uniform_network(505)) == 32 * 505
    assert accumulator_bound(Network(np.full((768, 1), -505), [-505], [1, 1], output_bias=0)) == 33 * 505


def test_the_kernel_cache_key_digests_the_inference_sources():
    """The search will call these kernels: editing them (or the feature constants) must invalidate its cache."""
    from jitfish.jit import KERNEL_SOURCES, PACKAGE_DIR
    for name in ("nnue/features.py", "nnue/inference.py"):
        assert name in KERNEL_SOURCES and (PACKAGE_DIR / name).is_file()
