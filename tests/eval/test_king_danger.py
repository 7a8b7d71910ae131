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
from jitfish.eval.params import DANGER_INPUTS, DANGER_LABELS, default_weights, score_from_trace
from tests.eval.test_trace import random_games

PIECES = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)


def checking_squares(board: chess.Board, piece_type: int, king: int) -> chess.SquareSet:
    """Squares from which a ``piece_type`` would attack ``king`` with the board's occupancy."""
    if piece_type == chess.KNIGHT:
        return chess.SquareSet(chess.BB_KNIGHT_ATTACKS[king])
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied])
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


def test_danger_grows_faster_than_the_attack():
    """Queen and rook near the king score more than twice what the queen alone does."""
    queen_alone = "6k1/5ppp/8/8/8/8/1Q3PPP/6K1 w - - 0 1"
    queen_and_rook = "6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1"
    alone = evaluate_terms(jitfish.Board(queen_alone))["king_danger"][0]
    both = evaluate_terms(jitfish.Board(queen_and_rook))["king_danger"][0]
    assert 0 <= alone and both > 2 * alone + 10
    # Without its queen, the same attack from the other side is worth nothing.
    coefficients, _, danger = trace(jitfish.Board(queen_and_rook))
    assert danger[1].tolist() == [0] * 8 + [1, 1]
    queenless = np.zeros_like(danger)
    queenless[0] = danger[0]
    queenless[0, DANGER_LABELS.index("no_queen")] = 1
    assert score_from_trace(np.zeros_like(coefficients), queenless, default_weights()) == (0, 0)
