"""King danger: the traced inputs match a python-chess count, and the score grows faster than the attack.

The reference counts each side's inputs from python-chess's attack sets:
for every knight, bishop, rook and queen, the squares next to the enemy
king it attacks, and its safe checks (squares it attacks from which a piece
of its kind would give check, not holding one of its own pieces, not
attacked by an enemy pawn, not next to the enemy king); then whether the
side has no queen, and the constant.
"""

from __future__ import annotations

import chess
import numpy as np

import jitfish
from jitfish.eval import evaluate_terms, trace
from jitfish.eval.params import (
    DANGER_INPUTS,
    DANGER_LABELS,
    KING_DANGER,
    KING_DANGER_SCALE,
    default_weights,
    score_from_trace,
)
from tests.eval.test_trace import random_games

PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def checking_squares(board: chess.Board, piece_type: int, king: int) -> chess.SquareSet:
    """Squares from which a ``piece_type`` would attack ``king`` with the board's occupancy."""
    if piece_type == chess.KNIGHT:
        return chess.SquareSet(chess.BB_KNIGHT_ATTACKS[king])
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    )
    return chess.SquareSet({chess.BISHOP: diagonal, chess.ROOK: straight, chess.QUEEN: diagonal | straight}[piece_type])


def reference_inputs(board: chess.Board, colour: bool) -> list[int]:
    king = board.king(not colour)
    zone = chess.SquareSet(chess.BB_KING_ATTACKS[king])
    enemy_pawn_attacks = chess.SquareSet()
    for pawn in board.pieces(chess.PAWN, not colour):
        enemy_pawn_attacks |= board.attacks(pawn)
    safe = ~chess.SquareSet(board.occupied_co[colour]) & ~enemy_pawn_attacks & ~zone
    inputs = [0] * DANGER_INPUTS
    for index, piece_type in enumerate(PIECES):
        checks = checking_squares(board, piece_type, king) & safe
        for square in board.pieces(piece_type, colour):
            attacks = board.attacks(square)
            inputs[index] += len(attacks & zone)
            inputs[4 + index] += len(attacks & checks)
    inputs[DANGER_LABELS.index("no_queen")] = int(not board.pieces(chess.QUEEN, colour))
    inputs[DANGER_LABELS.index("bias")] = 1
    return inputs


def test_danger_inputs_match_a_python_chess_count():
    checks_seen = 0
    for board, _ in random_games(seed=8, wanted=1500):
        reference = chess.Board(board.fen())
        _, _, danger = trace(board)
        for side, colour in enumerate((chess.WHITE, chess.BLACK)):
            assert danger[side].tolist() == reference_inputs(reference, colour), board.fen()
        checks_seen += int(danger[:, 4:8].sum())
    assert checks_seen > 100


def form_weights() -> np.ndarray:
    """The shipped weights with king-danger units chosen for these tests (the shipped ones are tuned)."""
    weights = default_weights().copy()
    units = [6, 4, 5, 8, 30, 20, 30, 35, -60, -30]
    weights[2 * KING_DANGER : 2 * (KING_DANGER + DANGER_INPUTS)] = np.repeat(units, 2)
    weights[KING_DANGER_SCALE : KING_DANGER_SCALE + 2] = [64, 16]
    return weights


def test_danger_grows_faster_than_the_attack():
    """Units add, the score squares them: the queen's zone square and check give (8 + 35 - 30) ** 2 // 64 = 2,
    and with the rook's check as well (8 + 35 + 30 - 30) ** 2 // 64 = 28, fourteen times as much."""
    weights = form_weights()
    queen_alone = "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - - 0 1"
    queen_and_rook = "6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1"
    assert evaluate_terms(jitfish.Board(queen_alone), weights)["king_danger"] == (2, 13 // 16)
    assert evaluate_terms(jitfish.Board(queen_and_rook), weights)["king_danger"] == (28, 43 // 16)


def test_danger_is_clamped_at_zero():
    """Units below zero count nothing: black's lone king-side pawns and king, with no queen, add no danger."""
    weights = form_weights()
    coefficients, _, danger = trace(jitfish.Board("6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1"))
    assert danger[1].tolist() == [0] * 8 + [1, 1]
    black_only = np.zeros_like(danger)
    black_only[1] = danger[1]
    assert score_from_trace(np.zeros_like(coefficients), black_only, weights) == (0, 0)
    # The same inputs with a positive constant do count, for black (negative from white's view).
    weights[2 * (KING_DANGER + DANGER_LABELS.index("bias")) :][:2] = [100, 100]
    assert score_from_trace(np.zeros_like(coefficients), black_only, weights) == (-(40 * 40 // 64), -(40 // 16))
