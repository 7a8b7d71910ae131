"""A plain-Python static exchange evaluation on python-chess boards: the reference the kernel's SEE is held to.

The exchange is played out literally on a copy of the board: the move is
made, then the two sides take turns recapturing on the target square with
their least valuable attacker (the lowest square among equals, a1 first),
and every capture is a real piece leaving a real square, so x-rays (a
slider behind a piece that just left) come from python-chess's attack
generation, not from bookkeeping.  Each side may stop instead of
recapturing; the value is the minimax of the gains along that one line,
worked backwards (the classic swap list).

The conventions are the engine's (:mod:`jitfish.search.see`), stated here
so that the comparison is with rules, not with code:

* values P 100, N 320, B 330, R 500, Q 900, K 20000;
* pins are ignored (``attackers`` is pseudo-legal);
* a king may capture only onto a square the other side no longer attacks
  once the king stands there (a king never walks into a capture);
* en passant removes the pawn behind the target square, which can open a
  line through it;
* a promotion is valued as the pawn that moves (the promoted piece is not
  counted, for the first move and for recaptures alike);
* castling exchanges nothing (value 0).
"""

from __future__ import annotations

import chess

VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900, chess.KING: 20000}


def _least_valuable_attacker(board: chess.Board, colour: chess.Color, square: chess.Square) -> chess.Square | None:
    attackers = board.attackers(colour, square)
    if not attackers:
        return None
    return min(attackers, key=lambda sq: (board.piece_type_at(sq), sq))


def _step(board: chess.Board, from_square: chess.Square, to_square: chess.Square) -> chess.Piece:
    """Move the piece on ``from_square`` onto ``to_square`` (replacing whatever stood there); return it."""
    piece = board.remove_piece_at(from_square)
    board.set_piece_at(to_square, piece)
    return piece


def see(board: chess.Board, move: chess.Move) -> int:
    """The material the side to move gains by ``move`` once the exchange on its target square is over."""
    if board.is_castling(move):
        return 0
    scratch = board.copy(stack=False)
    target = move.to_square
    if scratch.is_en_passant(move):
        victim = VALUES[chess.PAWN]
        scratch.remove_piece_at(target - 8 if board.turn == chess.WHITE else target + 8)
    else:
        victim_type = scratch.piece_type_at(target)
        victim = VALUES[victim_type] if victim_type else 0
    on_square = VALUES[_step(scratch, move.from_square, target).piece_type]
    gains = [victim]
    side = not board.turn
    while (attacker := _least_valuable_attacker(scratch, side, target)) is not None:
        piece_type = scratch.piece_type_at(attacker)
        if piece_type == chess.KING:
            trial = scratch.copy(stack=False)
            _step(trial, attacker, target)
            if trial.attackers(not side, target):
                break  # the king may not take onto a defended square
        gains.append(on_square - gains[-1])
        on_square = VALUES[piece_type]
        _step(scratch, attacker, target)
        side = not side
    # Work backwards: at each capture the side may rather not have made it.
    for depth in range(len(gains) - 1, 0, -1):
        gains[depth - 1] = -max(-gains[depth - 1], gains[depth])
    return gains[0]


def captures(board: chess.Board) -> list[chess.Move]:
    """Every legal capture of ``board`` (en passant included, castling never)."""
    return [move for move in board.legal_moves if board.is_capture(move) and not board.is_castling(move)]
