"""The search's NNUE accumulators: kept lazily along a line of moves, they score every position as a
network evaluating it from scratch; a searcher given a network evaluates with it, and without one with
the hand-written evaluation."""

from __future__ import annotations

import random

import chess
import numba
import numpy as np
import pytest

import jitfish
from jitfish.board import layout as L
from jitfish.board.makemove import make_move, make_null_move, unmake_move, unmake_null_move
from jitfish.board.movegen import GEN_ALL, generate_moves
from jitfish.board.moves import MOVE_CASTLING, MOVE_EN_PASSANT, move_kind, move_promotion
from jitfish.board.tables import lookup_tables
from jitfish.nnue.format import read_network, shipped_network, write_network
from jitfish.nnue.inference import evaluate, kernel_network, nnue_evaluate
from jitfish.search import Searcher, SearchLimits
from jitfish.search.buffers import WORK_SIZE, new_stack
from jitfish.search.evalstack import (
    evaluate_network_at,
    network_arrays,
    no_network,
    note_move,
    note_null_move,
    prepare_root,
)
from tests.nnue.conftest import SHIPPED_NETWORKS
from tests.nnue.networks import random_network
from tests.perft_data import PERFT_DATA, read_epd_suite

TABLES = lookup_tables()
STARTS = (
    [
        (chess.STARTING_FEN, False),
        ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R w KQkq - 0 1", False),  # castling both ways
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False),  # en passant
        ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", False),  # promotions
    ]
    + [(case.fen, True) for case in read_epd_suite(PERFT_DATA / "pychess-chess960.epd")[:4]]
)


def _legal_moves(position, work) -> list[int]:
    count = generate_moves(position.bbs, position.state, TABLES, work, 0, GEN_ALL)
    return [int(move) for move in work[:count]]


def _pick(moves: list[int], rng: random.Random) -> int:
    """A random move, mostly castling, en passant or a promotion when there is one."""
    special = [m for m in moves if move_kind(m) in (MOVE_CASTLING, MOVE_EN_PASSANT) or move_promotion(m)]
    return rng.choice(special if special and rng.random() < 0.7 else moves)


@pytest.mark.parametrize("buckets", [1, 8])
def test_lazy_accumulators_score_every_position_of_a_wandering_line_as_from_scratch(buckets):
    # Walks that go down (moves and null moves) and back up as a search does, evaluating at random plies
    # only, so that updates span several plies and follow lines that were left and taken again.
    net = kernel_network(random_network(seed=31, hidden=24, buckets=buckets))
    kinds = set()
    for fen, chess960 in STARTS:
        network = network_arrays(net)
        position = jitfish.Board(fen, chess960=chess960).position
        stack = new_stack()
        work = np.zeros(WORK_SIZE, dtype=np.int32)
        rng = random.Random(fen)
        prepare_root(network, stack, position.bbs)
        made = []  # whether each move down the current line is a null move
        for _ in range(400):
            moves = _legal_moves(position, work)
            if moves and len(made) < 12 and rng.random() < 0.6:
                if rng.random() < 0.1 and made and not made[-1]:
                    note_null_move(network, stack, len(made))
                    make_null_move(position.bbs, position.state, position.undo, position.key_history, TABLES)
                    made.append(True)
                else:
                    move = _pick(moves, rng)
                    kinds.add(_kind(move, chess960))
                    note_move(network, stack, position.state, len(made), move)
                    make_move(position.bbs, position.state, position.undo, position.key_history, TABLES, move)
                    made.append(False)
            elif made:
                undo = unmake_null_move if made.pop() else unmake_move
                undo(position.bbs, position.state, position.undo, position.key_history, TABLES)
            if rng.random() < 0.4:
                expected = nnue_evaluate(position.bbs, int(position.state[L.SIDE_TO_MOVE]), *net)
                score = evaluate_network_at(network, stack, position.bbs, position.state, len(made))
                assert score == expected, (fen, made)
    assert kinds == {"castling", "castling 960", "en passant", "promotion", "other"}


def _kind(move: int, chess960: bool) -> str:
    if move_kind(move) == MOVE_CASTLING:
        return "castling 960" if chess960 else "castling"
    if move_kind(move) == MOVE_EN_PASSANT:
        return "en passant"
    return "promotion" if move_promotion(move) else "other"


@pytest.mark.parametrize("buckets", [1, 8])
def test_one_ply_search_scores_the_best_reply_by_the_network(buckets):
    # Blocked pawns, kings apart: no capture anywhere within two plies, so each reply is scored by the
    # network's evaluation of the position after it (quiescence stands pat), and the root takes the best.
    board = jitfish.Board("4k3/4p3/4P3/8/8/8/8/4K3 w - - 0 1")
    net = kernel_network(random_network(seed=32, hidden=16, buckets=buckets))
    expected = max(-evaluate(net, _after(board, move)) for move in board.legal_moves())
    result = Searcher(hash_mb=1, network=net).search(board, SearchLimits(depth=1))
    assert result.score == expected


def test_without_a_network_the_search_is_the_hand_written_one():
    board = jitfish.Board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4")
    plain = Searcher(hash_mb=1).search(board, SearchLimits(depth=6))
    searcher = Searcher(hash_mb=1, network=kernel_network(random_network(seed=33)))
    searcher.set_network(None)
    again = searcher.search(board, SearchLimits(depth=6))
    assert (again.nodes, again.score, again.best_move) == (plain.nodes, plain.score, plain.best_move)
    assert network_arrays(None)[1].shape == no_network().biases.shape == (0,)


def _after(board: jitfish.Board, move: str) -> jitfish.Board:
    child = board.copy()
    child.push_uci(move)
    return child


@pytest.mark.parametrize("buckets", [1, 8])
def test_a_network_read_from_a_file_takes_the_search_compiled_for_the_hand_written_evaluation(tmp_path, buckets):
    # Read-only arrays (a file's buffer) would be another Numba type: a second compile of the whole search.
    path = tmp_path / "net.nnue"
    write_network(path, random_network(seed=34, buckets=buckets))
    for net in (read_network(path), shipped_network(), read_network(SHIPPED_NETWORKS[-1])):  # and E-1, version 1
        assert numba.typeof(network_arrays(kernel_network(net))) == numba.typeof(network_arrays(None))
