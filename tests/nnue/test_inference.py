"""The Numba inference kernels against the NumPy reference: feature indices, output buckets, whole
evaluations on every sample position, incremental updates over random and real games (networks of one and
of eight output buckets), and the int16 accumulator's limit."""

from __future__ import annotations

import random

import chess
import chess.pgn
import numpy as np
import pytest

import jitfish
from jitfish.board.squares import BLACK, WHITE
from jitfish.nnue import features, reference
from jitfish.nnue.format import (
    CRELU,
    SCRELU,
    SHIPPED_NETWORK,
    Network,
    output_bucket,
    read_network,
    shipped_network,
)
from jitfish.nnue.inference import (
    ACCUMULATOR_DTYPE,
    accumulator_bound,
    add_feature,
    evaluate,
    evaluate_accumulators,
    feature_index,
    kernel_network,
    narrow_output,
    nnue_evaluate,
    refresh_accumulator,
    sub_feature,
)
from jitfish.nnue.inference import output_bucket as output_bucket_kernel
from tests.nnue.conftest import (
    DEFAULT_SCORES,
    PINNED_FENS,
    PINNED_SCORES,
    SAMPLE,
    SHIPPED_NETWORKS,
    TEST_DATA,
    VERSION_2_NETWORKS,
)
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


def test_the_output_bucket_kernel_is_the_formats_definition():
    for buckets in range(1, 33):
        for pieces in range(0, 40):
            assert output_bucket_kernel(pieces, buckets) == output_bucket(pieces, buckets), (pieces, buckets)
    eight = [int(output_bucket(pieces, 8)) for pieces in range(2, 33)]  # (pieces - 2) // 4
    assert eight == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4 + [7] * 3
    assert {int(output_bucket(pieces, 1)) for pieces in range(0, 40)} == {0}


@pytest.mark.parametrize("activation, buckets", [(CRELU, 1), (SCRELU, 1), (CRELU, 8), (SCRELU, 8)])
def test_every_sample_position_scores_as_the_reference(every_sample_position, activation, buckets):
    net = random_network(seed=11, hidden=32, activation=activation, buckets=buckets)
    arrays = kernel_network(net)
    scores = []
    for fen, board in every_sample_position:
        us, them = reference.ordered_features(fen)
        expected = reference.output(net, reference.accumulator(net, us), reference.accumulator(net, them), len(us))
        assert nnue_evaluate(board.position.bbs, side_of(board), *arrays) == expected, fen
        scores.append(expected)
    assert min(scores) < 0 < max(scores)  # both signs, so step 4's floor division on negatives is exercised


def test_the_shipped_network_in_the_engine_is_its_float_network_floored(every_sample_position):
    """The shipped file's integers, run by the engine's kernels, are exact integer arithmetic on the float
    network the file stands for (weights over their scales): each score is that network's floored, so it
    lies in [0, 1) centipawn below it, on every position of the sample.  SCReLU floors twice (the sum of
    squares over QA, then the output), so its bound is one more unit of the first floor, SCALE / (QA * QB)."""
    net = shipped_network()
    arrays = kernel_network(net)
    gaps = []
    for fen, board in every_sample_position:
        score = nnue_evaluate(board.position.bbs, side_of(board), *arrays)
        assert score == reference.evaluate(net, fen), fen
        gaps.append(reference.evaluate_float(net, fen) - score)
    bound = 1.0 + (net.scale / (net.qa * net.qb) if net.activation == SCRELU else 0.0)
    assert -1e-9 <= min(gaps) and max(gaps) < bound  # float64 sums of the scaled integers: 1e-13 off
    assert max(gaps) - min(gaps) > 0.5  # the floors really differ, so a rounding would fail the bound


@pytest.mark.parametrize("path, pinned", zip(SHIPPED_NETWORKS, PINNED_SCORES))
def test_every_shipped_network_gives_its_old_evaluations(path, pinned):
    """E-1 and the defaults before it, read by this version of the format and run by these kernels, score as
    the version-1 reader and kernels did (values recorded at 6a85c0d)."""
    net = read_network(path)
    assert tuple(evaluate(net, fen) for fen in PINNED_FENS) == pinned
    assert tuple(reference.evaluate(net, fen) for fen in PINNED_FENS) == pinned


@pytest.mark.parametrize(
    "path, pinned", [*((path, pinned) for path, _, pinned in VERSION_2_NETWORKS), (SHIPPED_NETWORK, DEFAULT_SCORES)]
)
def test_f1_to_j1_and_the_default_network_give_the_evaluations_they_were_shipped_with(path, pinned):
    net = read_network(path)
    assert tuple(evaluate(net, fen) for fen in PINNED_FENS) == pinned
    assert tuple(reference.evaluate(net, fen) for fen in PINNED_FENS) == pinned


@pytest.mark.parametrize(
    "activation, output_bias, turn, expected",
    [
        (CRELU, -1000, "w", -13),  # -12.33 floored (C's truncating division gives -12)
        (SCRELU, 475, "b", 0),  # step 3 floors -110719 / 255 to -435: 40 * 400 // 16320 = 0 (C: -434 gives 1)
    ],
)
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


def feature_changes(
    board: chess.Board, move: chess.Move
) -> tuple[list[tuple[chess.Piece, int]], list[tuple[chess.Piece, int]]]:
    """The pieces ``move`` takes off the board and puts on it, each with its square (python-chess's view)."""
    mover = board.piece_at(move.from_square)
    removed, added = [(mover, move.from_square)], []
    if board.is_castling(move):
        rook = chess.Piece(chess.ROOK, board.turn)
        rank = chess.square_rank(move.from_square)
        short = board.is_kingside_castling(move)
        removed.append((rook, chess.square(7 if short else 0, rank)))  # standard chess: the corner rook
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
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1",  # castling both ways
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",  # en passant
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",  # promotions
)


class IncrementalGame:
    """One game played on both boards, the accumulators kept by sub/add of the changed pieces: after each
    move they must equal a refresh, and score exactly as the integer reference and within the floor
    divisions' bound below the float network (:mod:`jitfish.nnue.reference`)."""

    def __init__(self, net: Network, fen: str) -> None:
        self.net, self.arrays = net, kernel_network(net)
        self.board, self.engine_board = chess.Board(fen), jitfish.Board(fen)
        self.incremental, self.refreshed = self.arrays.new_accumulators(), self.arrays.new_accumulators()
        self.buckets_seen: set[int] = set()
        self.refresh(self.incremental)

    def refresh(self, out: np.ndarray) -> None:
        for perspective in features.PERSPECTIVES:
            refresh_accumulator(
                self.engine_board.position.bbs, self.arrays.weights, self.arrays.biases, perspective, out[perspective]
            )

    def play_and_check(self, move: chess.Move) -> None:
        removed, added = feature_changes(self.board, move)
        for perspective in features.PERSPECTIVES:
            accumulator = self.incremental[perspective]
            for piece, square in removed:
                sub_feature(accumulator, self.arrays.weights, piece_feature(perspective, piece, square))
            for piece, square in added:
                add_feature(accumulator, self.arrays.weights, piece_feature(perspective, piece, square))
        self.engine_board.push_uci(move.uci())
        self.board.push(move)
        self.refresh(self.refreshed)
        assert self.incremental.tolist() == self.refreshed.tolist(), (self.board.fen(), move.uci())
        us, pieces = side_of(self.engine_board), len(self.board.piece_map())
        score = evaluate_accumulators(self.incremental[us], self.incremental[us ^ 1], pieces, *self.arrays[2:])
        assert score == reference.evaluate(self.net, self.board), self.board.fen()
        floors = reference.evaluate_float(self.net, self.board) - score
        bound = 1.0 + (self.net.scale / (self.net.qa * self.net.qb) if self.net.activation == SCRELU else 0.0)
        assert -1e-9 <= floors < bound, self.board.fen()
        self.buckets_seen.add(int(output_bucket(pieces, self.net.buckets)))


@pytest.mark.parametrize("activation, buckets", [(CRELU, 1), (SCRELU, 8)])
def test_incremental_updates_equal_a_refresh_after_every_move(activation, buckets):
    """Random games (seeded) from positions rich in castling, en passant and promotions."""
    net = random_network(seed=20, hidden=32, activation=activation, buckets=buckets)
    rng = random.Random(20)
    kinds = {"castling": 0, "en passant": 0, "promotion": 0, "capture": 0}
    for fen in GAME_STARTS * 3:  # three games from each
        game = IncrementalGame(net, fen)
        while not game.board.is_game_over(claim_draw=False) and game.board.ply() < 120:
            move = pick_move(game.board, rng)
            kinds["castling"] += game.board.is_castling(move)
            kinds["en passant"] += game.board.is_en_passant(move)
            kinds["promotion"] += move.promotion is not None
            kinds["capture"] += game.board.is_capture(move) and not game.board.is_castling(move)
            game.play_and_check(move)
    assert all(count >= 3 for count in kinds.values()), kinds


@pytest.mark.parametrize("hidden", [32, 64, 128, 256])  # 64, 128 and 256: the widths shipped or trained for it
@pytest.mark.parametrize("activation", [CRELU, SCRELU])
def test_a_bucketed_network_follows_real_games_to_their_endings(activation, hidden):
    """Four games of E-1's match against D-1 (``tests/data/nnue/e1-match-games.pgn``: castling, en passant,
    promotions, down to two to four pieces), with eight output buckets: every bucket is used."""
    net = random_network(seed=21, hidden=hidden, activation=activation, buckets=8)
    seen: set[int] = set()
    with open(TEST_DATA / "e1-match-games.pgn") as games:
        while (record := chess.pgn.read_game(games)) is not None:
            game = IncrementalGame(net, record.board().fen())
            for move in record.mainline_moves():
                game.play_and_check(move)
            seen |= game.buckets_seen
    assert seen == set(range(8))


def wide_network(seed: int, activation: int, buckets: int = 1) -> Network:
    """A random network whose output weights (up to 1,000) overflow the int16 products of the fast path."""
    net = random_network(seed=seed, hidden=32, activation=activation, buckets=buckets)
    rng = np.random.default_rng(seed)
    return Network(
        net.feature_weights,
        net.feature_bias,
        rng.integers(-1000, 1001, net.output_weights.shape),
        net.output_bias,
        activation=activation,
    )


def test_the_output_layer_is_narrow_exactly_while_its_products_and_sums_fit():
    assert narrow_output(shipped_network())
    for activation in (CRELU, SCRELU):
        assert narrow_output(random_network(seed=1, hidden=128, activation=activation))
        assert narrow_output(random_network(seed=1, hidden=256, activation=activation))
        assert not narrow_output(wide_network(seed=1, activation=activation))

    def flat(hidden: int, qa: int = 255, activation: int = CRELU) -> Network:  # every output weight 127
        zeros = np.zeros((768, hidden), int)
        return Network(zeros, zeros[0], np.full((1, 2 * hidden), 127), 0, activation, qa)

    assert narrow_output(flat(8, qa=258)) and not narrow_output(flat(8, qa=259))  # QA * 127: 32,766 fits int16
    assert narrow_output(flat(260, activation=SCRELU))  # a perspective's sum, N * 255^2 * 127, fits int32 up to 260
    assert not narrow_output(flat(261, activation=SCRELU))


@pytest.mark.parametrize("activation, buckets", [(CRELU, 1), (SCRELU, 8)])
def test_a_network_beyond_the_narrow_path_scores_as_the_reference(every_sample_position, activation, buckets):
    net = wide_network(seed=12, activation=activation, buckets=buckets)
    arrays = kernel_network(net)
    assert not arrays.narrow
    for fen, board in every_sample_position[::10]:
        us, them = reference.ordered_features(fen)
        expected = reference.output(net, reference.accumulator(net, us), reference.accumulator(net, them), len(us))
        assert nnue_evaluate(board.position.bbs, side_of(board), *arrays) == expected, fen


@pytest.mark.parametrize("activation", [CRELU, SCRELU])
def test_the_narrow_and_wide_sums_agree_at_the_extremes(activation):
    """Accumulators anywhere in int16 (the clamp at 0 and QA included) and weights at +-127: both paths give
    the same score for every bucket's weights."""
    net = kernel_network(random_network(seed=13, hidden=64, activation=activation, buckets=8))
    weights = net.output_weights.copy()
    weights[0] = 127
    weights[1] = -127
    rng = np.random.default_rng(13)
    values = np.array([-32768, -1, 0, 1, 254, 255, 256, 32767], dtype=np.int16)
    for trial in range(200):
        acc = rng.choice(values, (2, 64)) if trial % 2 else rng.integers(-600, 600, (2, 64)).astype(np.int16)
        for pieces in range(2, 33):
            args = (acc[0], acc[1], pieces, weights, *net[3:8])
            assert evaluate_accumulators(*args, True) == evaluate_accumulators(*args, False), (trial, pieces)


def test_accumulators_are_int16():
    arrays = kernel_network(random_network(seed=1))
    assert arrays.new_accumulators().dtype == ACCUMULATOR_DTYPE == np.int16


def uniform_network(weight: int) -> Network:
    return Network(np.full((768, 4), weight), [0, 0, 0, 0], np.ones(8, dtype=np.int16), output_bias=0)


def test_a_network_at_the_int16_limit_is_exact_in_a_full_position():
    net = uniform_network(1023)  # 32 pieces * 1023 = 32,736 <= 32,767
    assert accumulator_bound(net) == 32 * 1023
    arrays = kernel_network(net)
    out = arrays.new_accumulators()
    refresh_accumulator(jitfish.Board().position.bbs, arrays.weights, arrays.biases, WHITE, out[WHITE])
    assert out[WHITE].tolist() == [32 * 1023] * 4
    assert evaluate(net, jitfish.Board()) == reference.evaluate(net, chess.Board())


def test_a_network_that_could_overflow_int16_is_refused():
    with pytest.raises(ValueError, match="too large for int16"):
        kernel_network(uniform_network(1024))  # 32 * 1024 = 32,768
    with pytest.raises(ValueError, match="too large for int16"):
        large_bias = Network(np.ones((768, 2), dtype=np.int16), [0, 32767], [1, 1, 1, 1], output_bias=0)
        kernel_network(large_bias)  # 32,767 + 32 * 1


def test_the_trainers_clipped_weights_always_fit():
    assert accumulator_bound(uniform_network(505)) == 32 * 505
    assert accumulator_bound(Network(np.full((768, 1), -505), [-505], [1, 1], output_bias=0)) == 33 * 505


def test_the_kernel_cache_key_digests_the_inference_sources():
    """The search will call these kernels: editing them (or the feature constants) must invalidate its cache."""
    from jitfish.runtime.jit import kernel_sources

    assert {"nnue/features.py", "nnue/inference.py"} <= set(kernel_sources())
