"""The tracing build: ``trace · weights`` (plus the king-danger score of its inputs) is the evaluation.

Positions come from seeded random games (captures favoured, so that material
comes off and the games reach endgames).  At each one the trace's dot product
with the weights, plus the king-danger score of the traced inputs
(``score_from_trace``), must equal the search build's (mg, eg) exactly, its taper
must equal the search's score (computed from the material and piece-square
score kept move by move with ``psq_delta``, as the search keeps it), and the
tuner's floating-point form must lie within the final rounding of it.
Random weights make sure no term escapes the trace.
"""

from __future__ import annotations

import numpy as np

import jitfish
from jitfish.board import layout as L
from jitfish.board.moves import MOVE_EN_PASSANT
from jitfish.board.squares import NO_PIECE
from jitfish.board.tables import lookup_tables
from jitfish.eval import taper, trace
from jitfish.eval.evaluation import evaluate as evaluate_kernel
from jitfish.eval.evaluation import evaluate_white, evaluate_with_psq, psq_delta, psq_score
from jitfish.eval.params import (
    DANGER_INPUTS,
    FROZEN,
    KING_DANGER,
    KING_DANGER_SCALE,
    PHASE_TOTAL,
    WEIGHT_PAIRS,
    default_weights,
    frozen_mask,
    score_from_trace,
)
from tests.eval.test_eval import random_weights

STARTS = [
    jitfish.STARTING_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r1bq1rk1/pp2ppbp/2np2p1/2n5/P3PP2/N1P2N2/1PB3PP/R1B1QRK1 b - - 0 1",
]
POSITIONS_WANTED = 3000
MAX_PLIES = 200  # per game
CAPTURE_CHANCE = 0.5  # play a capture when there is one, so that material comes off


def is_capture(board: jitfish.Board, move: int) -> bool:
    return board.position.state[L.MAILBOX + ((move >> 6) & 63)] != NO_PIECE or move >> 15 == MOVE_EN_PASSANT


def random_games(seed: int, wanted: int):
    """Yield (board, kept psq (mg, eg)) along seeded random games until ``wanted`` positions were visited."""
    rng = np.random.default_rng(seed)
    weights = default_weights()
    visited = 0
    game = 0
    while True:
        board = jitfish.Board(STARTS[game % len(STARTS)])
        game += 1
        mg, eg = psq_score(board.position.bbs, weights)
        for _ in range(MAX_PLIES):
            yield board, (mg, eg)
            visited += 1
            if visited >= wanted:
                return
            moves = [int(m) for m in board._encoded_legal_moves()]
            if not moves:
                break
            captures = [m for m in moves if is_capture(board, m)]
            pool = captures if captures and rng.random() < CAPTURE_CHANCE else moves
            move = pool[rng.integers(len(pool))]
            dmg, deg = psq_delta(board.position.state, weights, move)
            board.push(move)
            mg, eg = mg + dmg, eg + deg


def test_trace_times_weights_is_the_evaluation_on_thousands_of_positions():
    tables = lookup_tables()
    shipped = default_weights()
    rng = np.random.default_rng(11)
    weight_sets = [shipped] + [random_weights(rng, 200) for _ in range(2)]
    seen_phases = set()
    danger_fired = 0
    checked = 0
    for board, (psq_mg, psq_eg) in random_games(seed=5, wanted=POSITIONS_WANTED):
        p = board.position
        white_to_move = board.turn
        coefficients, phase, danger = trace(board)
        seen_phases.add(phase)
        rho = phase / shipped[PHASE_TOTAL]
        for weights in weight_sets:
            mg, eg = score_from_trace(coefficients, danger, weights)
            assert (mg, eg) == evaluate_white(p.bbs, p.state, tables, weights), board.fen()
            score = evaluate_kernel(p.bbs, p.state, tables, weights)
            assert taper(mg, eg, phase, white_to_move, weights) == score, board.fen()
            # The tuner's form: white's view, in floating point, before the final rounding
            # (the king-danger divisions included: each side's can round by up to 1 in each half).
            pairs = weights[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)
            units = np.maximum(danger @ pairs[KING_DANGER : KING_DANGER + DANGER_INPUTS], 0)
            scale_mg, scale_eg = weights[KING_DANGER_SCALE : KING_DANGER_SCALE + 2]
            danger_mg = (units[0, 0] ** 2 - units[1, 0] ** 2) / scale_mg
            danger_eg = (units[0, 1] - units[1, 1]) / scale_eg
            tuner_eval = (
                coefficients @ (rho * pairs[:, 0] + (1 - rho) * pairs[:, 1]) + rho * danger_mg + (1 - rho) * danger_eg
            )
            white_score = score if white_to_move else -score
            assert abs(tuner_eval - white_score) < 3, board.fen()
        danger_fired += score_from_trace(np.zeros_like(coefficients), danger, shipped) != (0, 0)
        # The search's score, from the material and piece-square score kept move by move.
        assert evaluate_with_psq(p.bbs, p.state, tables, shipped, psq_mg, psq_eg) == taper(
            *score_from_trace(coefficients, danger, shipped), phase, white_to_move
        )
        checked += 1
    assert checked == POSITIONS_WANTED
    assert {0, 24} <= seen_phases and len(seen_phases) > 15, "the games should range from opening to endgame"
    assert danger_fired > POSITIONS_WANTED // 50, "the king-danger term should fire in some positions"


def test_frozen_weights_never_fire():
    """The king's material cancels and no pawn stands on a back rank: their coefficients are always 0."""
    frozen = frozen_mask()
    assert frozen.sum() == len(FROZEN) == 17
    fired = np.zeros(WEIGHT_PAIRS, dtype=bool)
    for board, _ in random_games(seed=6, wanted=1000):
        coefficients, _, _ = trace(board)
        assert not coefficients[frozen].any(), board.fen()
        fired |= coefficients != 0
    assert fired.sum() > WEIGHT_PAIRS // 2


def test_trace_does_not_depend_on_the_weights():
    board = jitfish.Board(STARTS[1])
    weights = random_weights(np.random.default_rng(2), 500)
    for ours, theirs in zip(trace(board), trace(board, weights)):
        assert np.array_equal(ours, theirs)
