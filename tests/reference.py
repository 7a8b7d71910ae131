"""python-chess as the slow, obvious reference that the board core is compared with."""

from __future__ import annotations

import chess


def reference_perft(board: chess.Board, depth: int) -> int:
    """Leaf count of python-chess's legal move tree (the last ply counted, not made)."""
    if depth == 0:
        return 1
    if depth == 1:
        return board.legal_moves.count()
    nodes = 0
    for move in list(board.legal_moves):
        board.push(move)
        nodes += reference_perft(board, depth - 1)
        board.pop()
    return nodes


def reference_divide(board: chess.Board, depth: int) -> dict[str, int]:
    """python-chess's perft below each root move, keyed by UCI text as the board writes it."""
    result = {}
    for move in list(board.legal_moves):
        board.push(move)
        result[board.peek().uci()] = reference_perft(board, depth - 1)
        board.pop()
    return result


def reference_uci_moves(board: chess.Board) -> set[str]:
    """Legal moves as UCI text: king-takes-rook castling on a Chess960 board, e1g1 otherwise."""
    return {board.uci(move, chess960=board.chess960) for move in board.legal_moves}
