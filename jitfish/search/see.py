"""Static exchange evaluation: does a capture win material once all recaptures on its square are played out?

``see_ge(..., move, threshold)`` answers "is the exchange started by ``move``
worth at least ``threshold``?" with the swap algorithm (as Stockfish): the
side to move alternately recaptures with its least valuable attacker, and
sliders behind the pieces that leave the square (x-rays) join in.  Pins are
ignored; the king recaptures only onto an undefended square.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.attacks import attackers_to, bishop_attacks, rook_attacks
from jitfish.board.bitops import lsb
from jitfish.board.moves import (
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    move_from,
    move_kind,
    move_promotion,
    move_to,
    piece_type,
)
from jitfish.board.squares import BISHOP, KING, NO_PIECE, ONE, PAWN, QUEEN, ROOK
from jitfish.runtime.jit import HELPER, kernel

# Exchange values by piece type (P N B R Q K); the king is never given up.
SEE_VALUES = (100, 320, 330, 500, 900, 20000)


@kernel(hot=True)
def see_value(kind):
    return SEE_VALUES[kind]


@kernel(hot=True)
def captured_type(state, move):
    """Type of the piece ``move`` captures, or -1 (castling and quiet moves)."""
    kind = move_kind(move)
    if kind == MOVE_EN_PASSANT:
        return PAWN
    if kind == MOVE_CASTLING:
        return -1
    piece = state[L.MAILBOX + move_to(move)]
    if piece == NO_PIECE:
        return -1
    return piece_type(piece)


@kernel(hot=True, inline=True)
def is_quiet(state, move):
    """Neither a capture nor a promotion."""
    return captured_type(state, move) < 0 and move_promotion(move) == 0


@kernel(hot=True, llvm_inline=True, cold_start=HELPER)
def see_ge(bbs, state, tables, move, threshold):
    """Whether the static exchange on ``move``'s target square gains at least ``threshold``."""
    if move_kind(move) == MOVE_CASTLING:
        return threshold <= 0
    from_sq = move_from(move)
    to_sq = move_to(move)
    victim = captured_type(state, move)
    swap = (see_value(victim) if victim >= 0 else 0) - threshold
    if swap < 0:
        return False
    swap = see_value(piece_type(state[L.MAILBOX + from_sq])) - swap
    if swap <= 0:
        return True

    occupied = bbs[L.OCCUPIED] ^ (ONE << np.uint64(from_sq)) ^ (ONE << np.uint64(to_sq))
    if move_kind(move) == MOVE_EN_PASSANT:
        occupied ^= ONE << np.uint64(to_sq - 8 if state[L.SIDE_TO_MOVE] == 0 else to_sq + 8)
    stm = state[L.SIDE_TO_MOVE]
    attackers = attackers_to(to_sq, occupied, bbs, tables)
    diagonal = bbs[BISHOP] | bbs[QUEEN] | bbs[6 + BISHOP] | bbs[6 + QUEEN]
    straight = bbs[ROOK] | bbs[QUEEN] | bbs[6 + ROOK] | bbs[6 + QUEEN]
    result = 1
    while True:
        stm ^= 1
        attackers &= occupied
        mine = attackers & bbs[L.OCCUPIED_WHITE + stm]
        if not mine:
            break
        result ^= 1
        attacker = PAWN
        while attacker < KING and not mine & bbs[stm * 6 + attacker]:
            attacker += 1
        if attacker == KING:
            # The king may only take last: if the other side still attacks, it cannot.
            if attackers & ~bbs[L.OCCUPIED_WHITE + stm]:
                return result == 0
            return result == 1
        swap = see_value(attacker) - swap
        if swap < result:
            break
        occupied ^= ONE << np.uint64(lsb(mine & bbs[stm * 6 + attacker]))
        if attacker == PAWN or attacker == BISHOP or attacker == QUEEN:
            attackers |= bishop_attacks(to_sq, occupied, tables) & diagonal
        if attacker == ROOK or attacker == QUEEN:
            attackers |= rook_attacks(to_sq, occupied, tables) & straight
    return result == 1
