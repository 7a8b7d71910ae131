"""The NumPy integer inference: a two-neuron network worked by hand, and its agreement with the float network."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest

from jitfish.nnue.features import active_features
from jitfish.nnue.format import CRELU, SCRELU, Network
from jitfish.nnue.reference import accumulator, evaluate, evaluate_float
from tests.nnue.networks import random_network

ROOK_ENDING = "4k3/8/8/8/8/8/8/R3K3 {} - - 0 1"  # white's view {192, 324, 764}, black's {324, 632, 764}


def hand_built(activation: int, output_bias: int) -> Network:
    weights = np.zeros((768, 2), dtype=np.int16)
    weights[192] = [100, -50]  # white rook a1 in white's view
    weights[324] = [10, 20]  # own king on e1
    weights[764] = [30, 40]  # enemy king on e8
    weights[632] = [-200, 300]  # enemy rook on a8 (white's rook in black's view)
    return Network(
        weights,
        feature_bias=[5, 6],
        output_weights=[2, -3, 4, 1],
        output_bias=output_bias,
        activation=activation,
        qa=255,
        qb=64,
        scale=400,
    )


def test_accumulators_are_the_bias_plus_the_rows_of_the_active_features():
    net = hand_built(CRELU, 1000)
    white_view, black_view = active_features(ROOK_ENDING.format("w"))
    assert accumulator(net, white_view).tolist() == [5 + 100 + 10 + 30, 6 - 50 + 20 + 40]  # [145, 16]
    assert accumulator(net, black_view).tolist() == [5 + 10 + 30 - 200, 6 + 20 + 40 + 300]  # [-155, 366]


@pytest.mark.parametrize(
    "activation, output_bias, turn, expected",
    [
        # clipped: white's view h = [145, 16], black's h = [0, 255]; eval = (s + c) * 400 // (255 * 64)
        (CRELU, 1000, "w", 36),  # s = 145*2 + 16*-3 + 0*4 + 255*1 = 497; 1497 * 400 = 598800; // 16320 = 36
        (CRELU, 1000, "b", 20),  # s = 0*2 + 255*-3 + 145*4 + 16*1 = -169; 831 * 400 = 332400; // 16320 = 20
        (CRELU, -1000, "w", -13),  # (497 - 1000) * 400 = -201200 is -12.33: floored to -13 (C's / gives -12)
        # squared: s = sum(h² * v) // 255
        (SCRELU, 1000, "w", 34),  # (145²*2 + 16²*-3 + 255²*1) // 255 = 106307 // 255 = 416; 1416*400 // 16320 = 34
        (SCRELU, 1000, "b", 13),  # (255²*-3 + 145²*4 + 16²*1) // 255 = -110719 // 255 = -435 (C: -434);
        # 565 * 400 // 16320 = 13
    ],
)
def test_a_two_neuron_network_gives_the_score_worked_out_by_hand(activation, output_bias, turn, expected):
    assert evaluate(hand_built(activation, output_bias), ROOK_ENDING.format(turn)) == expected


def test_the_piece_count_picks_the_output_bucket():
    """Eight buckets, zero output weights, bucket k's bias 400 k centipawns: the score is 400 times the
    bucket, (pieces - 2) // 4."""
    net = Network(
        np.zeros((768, 2), dtype=np.int16),
        [0, 0],
        np.zeros((8, 4), dtype=np.int16),
        output_bias=np.arange(8) * 255 * 64,
    )
    for fen, pieces in (
        (chess.STARTING_FEN, 32),
        (ROOK_ENDING.format("w"), 3),
        ("6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", 9),
        ("8/8/4k3/8/2R5/8/4K3/8 b - - 0 1", 3),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1", 32),
    ):
        assert evaluate(net, fen) == evaluate_float(net, fen) == 400 * ((pieces - 2) // 4), fen


@pytest.mark.parametrize("activation, buckets", [(CRELU, 1), (SCRELU, 1), (CRELU, 8), (SCRELU, 8)])
def test_the_integers_are_the_float_network_floored(sample_fens, activation, buckets):
    net = random_network(seed=3, hidden=32, activation=activation, buckets=buckets)
    slack = 1.0 + (net.scale / (net.qa * net.qb) if activation == SCRELU else 0.0)
    for fen in sample_fens:
        difference = evaluate_float(net, fen) - evaluate(net, fen)
        assert -1e-9 <= difference < slack + 1e-9, fen


@pytest.mark.parametrize("activation", [CRELU, SCRELU])
def test_a_mirrored_position_with_colours_swapped_scores_the_same(sample_fens, activation):
    net = random_network(seed=4, activation=activation)
    for fen in sample_fens:
        board = chess.Board(fen)
        assert evaluate(net, board.mirror()) == evaluate(net, board), fen


def test_extreme_weights_do_not_overflow():
    net = Network(
        np.full((768, 4), 32767, dtype=np.int16),
        np.full(4, 32767),
        np.full(8, 32767),
        output_bias=2**31 - 1,
        activation=SCRELU,
    )
    start = chess.Board()
    assert accumulator(net, active_features(start)[0]).tolist() == [33 * 32767] * 4
    assert evaluate(net, start) == ((255**2 * 32767 * 8) // 255 + 2**31 - 1) * 400 // (255 * 64)


def test_the_nnue_package_imports_neither_numba_nor_torch():
    code = (
        "import sys, jitfish.nnue.reference, jitfish.nnue.format, tuning.nnue.data; "
        "print(sorted(m for m in ('numba', 'torch') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
