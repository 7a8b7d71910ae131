"""The evaluation's term counts made again with python-chess: the reference for ``jitfish.eval.trace``.

Each term is counted square by square from its definition (the docstrings
and ``TERMS`` comments of :mod:`jitfish.eval.params` and
:mod:`jitfish.eval.evaluation`), with python-chess's boards and square sets
and no bitboard fills, so that a wrong shift, file mask or sign in the
engine's bitboard code shows as a different count here:

* material and piece-square slots, squares from each side's own view
  (a black piece on ``sq`` uses ``sq ^ 56``);
* doubled pawns: a file holding n pawns of a side counts n - 1;
  isolated: no pawn of the side on a neighbouring file;
* passed: no enemy pawn ahead on the pawn's file or a neighbouring one;
  by relative rank 2..7 (slot 0..5): the pawn itself, whether any piece
  stands on its stop square (the square in front), and the two kings'
  distances (king moves) to that stop square;
* mobility of N B R Q: attacked squares not holding a piece of the side and
  not attacked by an enemy pawn (sliders stop at the first piece);
* king attack: squares next to the enemy king that piece attacks;
* rooks with no pawn of their side on their file: open with no enemy pawn
  there either, else semi-open;
* the bishop pair: two bishops or more;
* king shelter: the side's pawns on the king's file and its neighbours,
  one or two ranks in front of the king;
* threats: enemy N B R Q on a square one of our pawns attacks, enemy R Q
  a knight or bishop attacks, an enemy queen a rook attacks (each victim
  once, however many attackers);
* tempo for the side to move;
* king-danger inputs per attacking side: the zone attacks above, safe
  checks (squares from which the piece would check the enemy king, not
  next to that king, not ours, not attacked by an enemy pawn), no queen,
  and a constant 1.

Coefficients are white's count minus black's; danger inputs are a
``(2, inputs)`` array, white attacking first.
"""

from __future__ import annotations

import chess
import numpy as np

from jitfish.eval.params import DANGER_LABELS, OFFSETS, TERMS, WEIGHT_PAIRS

MOBILE = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
MOBILITY = {
    chess.KNIGHT: "knight_mobility",
    chess.BISHOP: "bishop_mobility",
    chess.ROOK: "rook_mobility",
    chess.QUEEN: "queen_mobility",
}
PIECE_LETTER = {chess.KNIGHT: "N", chess.BISHOP: "B", chess.ROOK: "R", chess.QUEEN: "Q"}
DIAGONALS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
LINES = ((1, 0), (-1, 0), (0, 1), (0, -1))
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
KING_STEPS = DIAGONALS + LINES


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def rays(board: chess.Board, square: chess.Square, directions) -> set[chess.Square]:
    """Squares a slider on ``square`` reaches along ``directions``, stopping at (and including) a piece."""
    reached = set()
    for df, dr in directions:
        file, rank = chess.square_file(square) + df, chess.square_rank(square) + dr
        while _on_board(file, rank):
            target = chess.square(file, rank)
            reached.add(target)
            if board.piece_at(target):
                break
            file, rank = file + df, rank + dr
    return reached


def steps(square: chess.Square, offsets) -> set[chess.Square]:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return {chess.square(file + df, rank + dr) for df, dr in offsets if _on_board(file + df, rank + dr)}


def attacks(board: chess.Board, square: chess.Square, piece_type: int) -> set[chess.Square]:
    if piece_type == chess.KNIGHT:
        return steps(square, KNIGHT_JUMPS)
    if piece_type == chess.BISHOP:
        return rays(board, square, DIAGONALS)
    if piece_type == chess.ROOK:
        return rays(board, square, LINES)
    return rays(board, square, DIAGONALS + LINES)


def pawn_attacks(board: chess.Board, colour: chess.Color) -> set[chess.Square]:
    forward = 1 if colour == chess.WHITE else -1
    return {target for sq in board.pieces(chess.PAWN, colour) for target in steps(sq, ((-1, forward), (1, forward)))}


def relative_rank(square: chess.Square, colour: chess.Color) -> int:
    rank = chess.square_rank(square)
    return rank if colour == chess.WHITE else 7 - rank


def king_distance(a: chess.Square, b: chess.Square) -> int:
    return max(abs(chess.square_file(a) - chess.square_file(b)), abs(chess.square_rank(a) - chess.square_rank(b)))


def side_counts(board: chess.Board, colour: chess.Color) -> tuple[dict[tuple[str, int], int], dict[str, int]]:
    """One side's counts as {(term, slot): count} and its king-danger inputs as {label: count}."""
    counts: dict[tuple[str, int], int] = {}
    danger = {label: 0 for label in DANGER_LABELS}

    def add(term: str, slot: int = 0, count: int = 1) -> None:
        counts[(term, slot)] = counts.get((term, slot), 0) + count

    enemy = not colour
    own_squares = set(chess.SquareSet(board.occupied_co[colour]))
    for piece_type in range(1, 7):
        for sq in board.pieces(piece_type, colour):
            add("material", piece_type - 1)
            add("pst", (piece_type - 1) * 64 + (sq if colour == chess.WHITE else sq ^ 56))

    # Pawn structure.
    pawns = list(board.pieces(chess.PAWN, colour))
    enemy_pawns = list(board.pieces(chess.PAWN, enemy))
    files = [chess.square_file(sq) for sq in pawns]
    for file in range(8):
        add("doubled_pawn", 0, max(files.count(file) - 1, 0))
    forward = 1 if colour == chess.WHITE else -1
    for sq in pawns:
        file = chess.square_file(sq)
        if not any(abs(other - file) == 1 for other in files):
            add("isolated_pawn")
        ahead = [
            e
            for e in enemy_pawns
            if abs(chess.square_file(e) - file) <= 1 and (chess.square_rank(e) - chess.square_rank(sq)) * forward > 0
        ]
        if not ahead:
            slot = relative_rank(sq, colour) - 1
            stop = sq + 8 * forward
            add("passed_pawn", slot)
            if board.piece_at(stop):
                add("passed_blocked", slot)
            add("passed_own_king", slot, king_distance(board.king(colour), stop))
            add("passed_enemy_king", slot, king_distance(board.king(enemy), stop))

    # Mobility, king attacks and danger, rook files, threats.
    enemy_king = board.king(enemy)
    zone = steps(enemy_king, KING_STEPS)
    enemy_pawn_attacks = pawn_attacks(board, enemy)
    safe = {sq for sq in chess.SQUARES if sq not in own_squares and sq not in enemy_pawn_attacks and sq not in zone}
    checks = {
        chess.KNIGHT: attacks(board, enemy_king, chess.KNIGHT) & safe,
        chess.BISHOP: attacks(board, enemy_king, chess.BISHOP) & safe,
        chess.ROOK: attacks(board, enemy_king, chess.ROOK) & safe,
    }
    checks[chess.QUEEN] = checks[chess.BISHOP] | checks[chess.ROOK]
    danger["bias"] = 1
    danger["no_queen"] = int(not board.pieces(chess.QUEEN, colour))
    minor_attacks: set[chess.Square] = set()
    rook_attacks: set[chess.Square] = set()
    for piece_type in MOBILE:
        for sq in board.pieces(piece_type, colour):
            reach = attacks(board, sq, piece_type)
            add(MOBILITY[piece_type], len([t for t in reach if t not in own_squares and t not in enemy_pawn_attacks]))
            add("king_attack", MOBILE.index(piece_type), len(reach & zone))
            danger["zone_" + PIECE_LETTER[piece_type]] += len(reach & zone)
            danger["check_" + PIECE_LETTER[piece_type]] += len(reach & checks[piece_type])
            if piece_type in (chess.KNIGHT, chess.BISHOP):
                minor_attacks |= reach
            if piece_type == chess.ROOK:
                rook_attacks |= reach
                file = chess.square_file(sq)
                if not any(chess.square_file(p) == file for p in pawns):
                    if any(chess.square_file(p) == file for p in enemy_pawns):
                        add("rook_semi_open_file")
                    else:
                        add("rook_open_file")
    if len(board.pieces(chess.BISHOP, colour)) >= 2:
        add("bishop_pair")
    own_pawn_attacks = pawn_attacks(board, colour)
    for victim in MOBILE:
        add("threat_by_pawn", MOBILE.index(victim), len(set(board.pieces(victim, enemy)) & own_pawn_attacks))
    for victim in (chess.ROOK, chess.QUEEN):
        add("threat_by_minor", victim - chess.ROOK, len(set(board.pieces(victim, enemy)) & minor_attacks))
    add("threat_by_rook", 0, len(set(board.pieces(chess.QUEEN, enemy)) & rook_attacks))

    # King shelter: own pawns on the king's and neighbouring files, one or two ranks ahead.
    king = board.king(colour)
    add(
        "king_shelter",
        0,
        sum(
            1
            for p in pawns
            if abs(chess.square_file(p) - chess.square_file(king)) <= 1
            and 1 <= (chess.square_rank(p) - chess.square_rank(king)) * forward <= 2
        ),
    )
    if board.turn == colour:
        add("tempo")
    return counts, danger


def reference_trace(board: chess.Board) -> tuple[np.ndarray, np.ndarray]:
    """(coefficients, danger inputs) in the layout of :func:`jitfish.eval.trace`."""
    coefficients = np.zeros(WEIGHT_PAIRS, dtype=np.int64)
    danger = np.zeros((2, len(DANGER_LABELS)), dtype=np.int64)
    for side, colour in enumerate((chess.WHITE, chess.BLACK)):
        counts, inputs = side_counts(board, colour)
        sign = 1 if colour == chess.WHITE else -1
        for (term, slot), count in counts.items():
            coefficients[OFFSETS[term] + slot] += sign * count
        danger[side] = [inputs[label] for label in DANGER_LABELS]
    return coefficients, danger


def reference_evaluation(board: chess.Board, weights: dict[str, list]) -> int:
    """The score for the side to move from the counts above and ``weights`` as ``weights.json`` spells them.

    Plain integers throughout: the linear terms are count × (mg, eg) pair; a
    side's king-danger units are its inputs × their pairs, clamped at 0, and
    score units² // scale in the middlegame and units // scale in the endgame;
    the phase adds each N B R Q's phase weight, capped at the full board's;
    the taper turns to the side to move before its floor division.
    """
    coefficients, danger = reference_trace(board)
    names = [name for name, count in TERMS for _ in range(count)]
    slots = [slot for _, count in TERMS for slot in range(count)]
    mg = eg = 0
    for index, coefficient in enumerate(coefficients.tolist()):
        if coefficient:
            pair_mg, pair_eg = weights[names[index]][slots[index]]
            mg += coefficient * pair_mg
            eg += coefficient * pair_eg
    scale_mg, scale_eg = weights["king_danger_scale"]
    for side, sign in ((0, 1), (1, -1)):
        units_mg = max(sum(int(n) * w[0] for n, w in zip(danger[side], weights["king_danger"])), 0)
        units_eg = max(sum(int(n) * w[1] for n, w in zip(danger[side], weights["king_danger"])), 0)
        mg += sign * (units_mg * units_mg // scale_mg)
        eg += sign * (units_eg // scale_eg)
    total = weights["phase_total"][0]
    phase = min(
        sum(
            weight * len(board.pieces(piece_type, colour))
            for piece_type, weight in zip(MOBILE, weights["phase"])
            for colour in chess.COLORS
        ),
        total,
    )
    sign = 1 if board.turn == chess.WHITE else -1
    return (sign * (mg * phase + eg * (total - phase))) // total
