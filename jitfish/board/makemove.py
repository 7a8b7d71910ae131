"""Make and unmake moves on the position arrays, keeping the key incremental.

``make_move`` pushes a row on the undo stack (move, captured piece, castling
rights, en-passant square, halfmove clock) and the key before the move on
``key_history``; ``unmake_move`` pops them.  Moves must be legal: these
kernels do not check.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.moves import (
    MOVE_CASTLING,
    MOVE_EN_PASSANT,
    castling_squares,
    move_from,
    move_kind,
    move_promotion,
    move_to,
)
from jitfish.board.squares import BLACK, KING, NO_PIECE, NO_SQUARE, ONE, PAWN, ROOK, WHITE
from jitfish.runtime.jit import ENGINE_FIRST, HELPER, WHILE_WAITING, inlined_copy, kernel


@kernel(hot=True, inline=True)
def put_piece(bbs, state, tables, piece, color, sq):
    bit = ONE << np.uint64(sq)
    bbs[piece] |= bit
    bbs[L.OCCUPIED_WHITE + color] |= bit
    bbs[L.OCCUPIED] |= bit
    bbs[L.KEY] ^= tables[L.ZOBRIST_PIECE + piece * 64 + sq]
    state[L.MAILBOX + sq] = piece


@kernel(hot=True, inline=True)
def remove_piece(bbs, state, tables, piece, color, sq):
    bit = ONE << np.uint64(sq)
    bbs[piece] ^= bit
    bbs[L.OCCUPIED_WHITE + color] ^= bit
    bbs[L.OCCUPIED] ^= bit
    bbs[L.KEY] ^= tables[L.ZOBRIST_PIECE + piece * 64 + sq]
    state[L.MAILBOX + sq] = NO_PIECE


@kernel(hot=True, inline=True)
def _place(bbs, state, piece, color, sq):
    """Put a piece without touching the key (unmake restores the key whole)."""
    bit = ONE << np.uint64(sq)
    bbs[piece] |= bit
    bbs[L.OCCUPIED_WHITE + color] |= bit
    bbs[L.OCCUPIED] |= bit
    state[L.MAILBOX + sq] = piece


@kernel(hot=True, inline=True)
def _lift(bbs, state, piece, color, sq):
    """Remove a piece without touching the key."""
    bit = ONE << np.uint64(sq)
    bbs[piece] ^= bit
    bbs[L.OCCUPIED_WHITE + color] ^= bit
    bbs[L.OCCUPIED] ^= bit
    state[L.MAILBOX + sq] = NO_PIECE


@kernel(hot=True, llvm_inline=True, cold_start=ENGINE_FIRST)
def make_move(bbs, state, undo, key_history, tables, move):
    """Play a legal ``move``."""
    us = state[L.SIDE_TO_MOVE]
    them = us ^ 1
    from_sq = move_from(move)
    to_sq = move_to(move)
    promotion = move_promotion(move)
    kind = move_kind(move)
    ply = state[L.GAME_PLY]
    row = ply * L.UNDO_SIZE
    key_history[ply] = bbs[L.KEY]
    undo[row + L.UNDO_MOVE] = move
    undo[row + L.UNDO_CASTLING] = state[L.CASTLING_RIGHTS]
    undo[row + L.UNDO_EN_PASSANT] = state[L.EN_PASSANT]
    undo[row + L.UNDO_HALFMOVE] = state[L.HALFMOVE_CLOCK]
    captured = NO_PIECE

    if state[L.EN_PASSANT] != NO_SQUARE:
        bbs[L.KEY] ^= tables[L.ZOBRIST_EN_PASSANT + (state[L.EN_PASSANT] & 7)]
        state[L.EN_PASSANT] = NO_SQUARE
    state[L.HALFMOVE_CLOCK] += 1
    piece = state[L.MAILBOX + from_sq]

    if kind == MOVE_CASTLING:
        king_to, rook_to = castling_squares(from_sq, to_sq)
        rook = us * 6 + ROOK
        remove_piece(bbs, state, tables, piece, us, from_sq)
        remove_piece(bbs, state, tables, rook, us, to_sq)
        put_piece(bbs, state, tables, piece, us, king_to)
        put_piece(bbs, state, tables, rook, us, rook_to)
    else:
        if kind == MOVE_EN_PASSANT:
            captured_sq = to_sq - 8 if us == WHITE else to_sq + 8
            captured = them * 6 + PAWN
            remove_piece(bbs, state, tables, captured, them, captured_sq)
        else:
            captured = state[L.MAILBOX + to_sq]
            if captured != NO_PIECE:
                remove_piece(bbs, state, tables, captured, them, to_sq)
                state[L.HALFMOVE_CLOCK] = 0
        remove_piece(bbs, state, tables, piece, us, from_sq)
        if promotion:
            put_piece(bbs, state, tables, us * 6 + promotion, us, to_sq)
        else:
            put_piece(bbs, state, tables, piece, us, to_sq)
        if piece == us * 6 + PAWN:
            state[L.HALFMOVE_CLOCK] = 0
            if to_sq - from_sq == 16 or from_sq - to_sq == 16:
                # Record the en-passant square only when an enemy pawn stands
                # beside the arrival square (the Polyglot rule).
                ep_sq = (from_sq + to_sq) >> 1
                if tables[L.PAWN_ATTACKS + us * 64 + ep_sq] & bbs[them * 6 + PAWN]:
                    state[L.EN_PASSANT] = ep_sq
                    bbs[L.KEY] ^= tables[L.ZOBRIST_EN_PASSANT + (ep_sq & 7)]

    rights = state[L.CASTLING_RIGHTS]
    if rights:
        new_rights = rights & state[L.CASTLING_MASK + from_sq] & state[L.CASTLING_MASK + to_sq]
        if new_rights != rights:
            bbs[L.KEY] ^= tables[L.ZOBRIST_CASTLING_SET + (rights ^ new_rights)]
            state[L.CASTLING_RIGHTS] = new_rights

    undo[row + L.UNDO_CAPTURED] = captured
    state[L.SIDE_TO_MOVE] = them
    bbs[L.KEY] ^= tables[L.ZOBRIST_TURN]
    if us == BLACK:
        state[L.FULLMOVE_NUMBER] += 1
    state[L.GAME_PLY] = ply + 1


@kernel(hot=True, inline=True)
def key_after(bbs, state, tables, move):
    """The key after ``move`` as its pieces, the side to move and the en-passant square it clears change it:
    what the search prefetches the child's TT bucket with before it decides to play the move.  Castling
    (its rook), en passant (the pawn taken beside), lost castling rights and a new en-passant square are
    left out: a prefetch of the wrong bucket costs a fetch, not a result."""
    from_sq = move_from(move)
    to_sq = move_to(move)
    piece = state[L.MAILBOX + from_sq]
    promotion = move_promotion(move)
    placed = piece if promotion == 0 else state[L.SIDE_TO_MOVE] * 6 + promotion
    key = bbs[L.KEY] ^ tables[L.ZOBRIST_TURN] ^ tables[L.ZOBRIST_PIECE + piece * 64 + from_sq]
    key ^= tables[L.ZOBRIST_PIECE + placed * 64 + to_sq]
    captured = state[L.MAILBOX + to_sq]
    if captured != NO_PIECE:
        key ^= tables[L.ZOBRIST_PIECE + captured * 64 + to_sq]
    if state[L.EN_PASSANT] != NO_SQUARE:
        key ^= tables[L.ZOBRIST_EN_PASSANT + (state[L.EN_PASSANT] & 7)]
    return key


@kernel(hot=True, llvm_inline=True, cold_start=HELPER)
def unmake_move(bbs, state, undo, key_history, tables):
    """Take back the last move made with :func:`make_move`."""
    ply = state[L.GAME_PLY] - 1
    row = ply * L.UNDO_SIZE
    move = undo[row + L.UNDO_MOVE]
    captured = undo[row + L.UNDO_CAPTURED]
    them = state[L.SIDE_TO_MOVE]
    us = them ^ 1
    from_sq = move_from(move)
    to_sq = move_to(move)
    promotion = move_promotion(move)
    kind = move_kind(move)

    if kind == MOVE_CASTLING:
        king_to, rook_to = castling_squares(from_sq, to_sq)
        king = us * 6 + KING
        rook = us * 6 + ROOK
        _lift(bbs, state, king, us, king_to)
        _lift(bbs, state, rook, us, rook_to)
        _place(bbs, state, king, us, from_sq)
        _place(bbs, state, rook, us, to_sq)
    else:
        moved = state[L.MAILBOX + to_sq]
        _lift(bbs, state, moved, us, to_sq)
        if promotion:
            moved = us * 6 + PAWN
        _place(bbs, state, moved, us, from_sq)
        if captured != NO_PIECE:
            if kind == MOVE_EN_PASSANT:
                _place(bbs, state, captured, them, to_sq - 8 if us == WHITE else to_sq + 8)
            else:
                _place(bbs, state, captured, them, to_sq)

    state[L.CASTLING_RIGHTS] = undo[row + L.UNDO_CASTLING]
    state[L.EN_PASSANT] = undo[row + L.UNDO_EN_PASSANT]
    state[L.HALFMOVE_CLOCK] = undo[row + L.UNDO_HALFMOVE]
    state[L.SIDE_TO_MOVE] = us
    if us == BLACK:
        state[L.FULLMOVE_NUMBER] -= 1
    state[L.GAME_PLY] = ply
    bbs[L.KEY] = key_history[ply]


# Pasted into perft's loop (see ``inlined_copy``); the search calls the kernels above.
make_move_inlined = inlined_copy(make_move, "make_move_inlined")
unmake_move_inlined = inlined_copy(unmake_move, "unmake_move_inlined")


@kernel(hot=True, cold_start=WHILE_WAITING)
def make_null_move(bbs, state, undo, key_history, tables):
    """Pass the turn (for null-move pruning); undone by :func:`unmake_null_move`."""
    ply = state[L.GAME_PLY]
    row = ply * L.UNDO_SIZE
    key_history[ply] = bbs[L.KEY]
    undo[row + L.UNDO_MOVE] = 0
    undo[row + L.UNDO_CAPTURED] = NO_PIECE
    undo[row + L.UNDO_CASTLING] = state[L.CASTLING_RIGHTS]
    undo[row + L.UNDO_EN_PASSANT] = state[L.EN_PASSANT]
    undo[row + L.UNDO_HALFMOVE] = state[L.HALFMOVE_CLOCK]
    if state[L.EN_PASSANT] != NO_SQUARE:
        bbs[L.KEY] ^= tables[L.ZOBRIST_EN_PASSANT + (state[L.EN_PASSANT] & 7)]
        state[L.EN_PASSANT] = NO_SQUARE
    state[L.HALFMOVE_CLOCK] += 1
    state[L.SIDE_TO_MOVE] ^= 1
    bbs[L.KEY] ^= tables[L.ZOBRIST_TURN]
    state[L.GAME_PLY] = ply + 1


@kernel(hot=True, cold_start=WHILE_WAITING)
def unmake_null_move(bbs, state, undo, key_history, tables):
    ply = state[L.GAME_PLY] - 1
    row = ply * L.UNDO_SIZE
    state[L.EN_PASSANT] = undo[row + L.UNDO_EN_PASSANT]
    state[L.HALFMOVE_CLOCK] = undo[row + L.UNDO_HALFMOVE]
    state[L.SIDE_TO_MOVE] ^= 1
    state[L.GAME_PLY] = ply
    bbs[L.KEY] = key_history[ply]
