"""Move encoding and UCI notation.

A move is an int: ``from | to << 6 | promotion << 12 | kind << 15``, where
``promotion`` is a piece type (0 for none) and ``kind`` says whether it is en
passant or castling.  Castling is always encoded king-takes-rook (``to`` is
the rook's square), which serves standard chess and Chess960 alike; UCI text
shows castling as the king's two-square step unless Chess960 is on (or the
king does not travel two squares, where that text would be ambiguous).
"""

from __future__ import annotations

import functools

from jitfish.board import layout as L
from jitfish.board.squares import (
    FILE_NAMES,
    KING,
    NO_PIECE,
    PAWN,
    PIECE_TYPE_COUNT,
    ROOK,
    SQUARE_NAMES,
    parse_square,
)
from jitfish.runtime.jit import kernel

NULL_MOVE = 0
MOVE_NORMAL = 0
MOVE_EN_PASSANT = 1
MOVE_CASTLING = 2
PROMOTION_LETTERS = " nbrq"
MAX_MOVES = 256


@kernel(hot=True, inline=True)
def encode_move(from_sq, to_sq, promotion, kind):
    return from_sq | (to_sq << 6) | (promotion << 12) | (kind << 15)


# The accessors below are the one place that decodes a move; they are inlined
# into the hot paths, so they cost no more than the bit operations they name.
@kernel(hot=True, inline=True)
def move_from(move):
    return move & 63


@kernel(hot=True, inline=True)
def move_to(move):
    return (move >> 6) & 63


@kernel(hot=True, inline=True)
def move_from_to(move):
    """``from + 64 * to``: the index of a move in ``[from, to]`` tables."""
    return move & 4095


@kernel(hot=True, inline=True)
def move_promotion(move):
    return (move >> 12) & 7


@kernel(hot=True, inline=True)
def move_kind(move):
    return move >> 15


@kernel(hot=True, inline=True)
def is_special_move(move):
    """Whether ``move`` promotes, captures en passant or castles."""
    return move >> 12 != 0


@kernel(hot=True, inline=True)
def castling_squares(king_sq, rook_sq):
    """King and rook destinations when castling with the rook on ``rook_sq``."""
    back_rank = king_sq & 56
    if rook_sq > king_sq:
        return back_rank | 6, back_rank | 5
    return back_rank | 2, back_rank | 3


# A piece placed on a square, as :func:`move_changes` gives it: ``piece << SQUARE_BITS | square``.
NO_CHANGE = -1
SQUARE_BITS = 6
SQUARE_MASK = (1 << SQUARE_BITS) - 1


@kernel(hot=True, inline=True)
def placed(piece, square):
    """``piece`` (``colour * 6 + piece_type``, as in the mailbox) on ``square``, as one int."""
    return (piece << SQUARE_BITS) | square


@kernel(hot=True, inline=True)
def piece_type(piece):
    """The type (PAWN ... KING) of ``piece`` (0 ... 11; not NO_PIECE): a compare, where ``piece % 6`` on a
    signed integer costs a multiply and Python's sign rule."""
    return piece - PIECE_TYPE_COUNT if piece >= PIECE_TYPE_COUNT else piece


@kernel(hot=True, inline=True)
def piece_colour(piece):
    """The colour (WHITE, BLACK) of ``piece`` (0 ... 11; not NO_PIECE), without a signed division."""
    return 1 if piece >= PIECE_TYPE_COUNT else 0


@kernel(hot=True, inline=True)
def move_changes(state, move):
    """The pieces ``move`` (not yet made) takes off and puts on the board:
    ``(removed_1, removed_2, added_1, added_2)``, each :func:`placed` or ``NO_CHANGE``.

    The one place that spells out what a move does to the pieces (castling, en passant, promotions,
    captures) for the incremental scores: the piece-square score and the NNUE accumulators.
    """
    from_sq = move_from(move)
    to_sq = move_to(move)
    kind = move_kind(move)
    piece = state[L.MAILBOX + from_sq]
    if kind == MOVE_CASTLING:
        # Encoded king-takes-rook: the king and the rook both move.
        king_to, rook_to = castling_squares(from_sq, to_sq)
        rook = piece - KING + ROOK
        return placed(piece, from_sq), placed(rook, to_sq), placed(piece, king_to), placed(rook, rook_to)
    promotion = move_promotion(move)
    landing = piece - PAWN + promotion if promotion else piece
    if kind == MOVE_EN_PASSANT:
        captured_sq = to_sq - 8 if piece < PIECE_TYPE_COUNT else to_sq + 8
    else:
        captured_sq = to_sq
    victim = state[L.MAILBOX + captured_sq]
    removed_2 = NO_CHANGE if victim == NO_PIECE else placed(victim, captured_sq)
    return placed(piece, from_sq), removed_2, placed(landing, to_sq), NO_CHANGE


def castling_king_destination(king_sq: int, rook_sq: int) -> int:
    """The king's square after castling with the rook on ``rook_sq``."""
    return (king_sq & 56) | (6 if rook_sq > king_sq else 2)


@functools.cache  # a search spells its PV after every iteration; there are at most 2**18 texts to keep
def move_to_uci(move: int, chess960: bool = False) -> str:
    """UCI text of an encoded move (``0000`` for the null move)."""
    if move == NULL_MOVE:
        return "0000"
    from_sq, to_sq = move_from(move), move_to(move)
    promotion, kind = move_promotion(move), move_kind(move)
    if kind == MOVE_CASTLING and not chess960:
        # The king's destination names castling only when the king travels
        # two files, as in standard chess; otherwise (a rook off its corner)
        # it would read like a plain king step, so king-takes-rook is kept.
        king_to = castling_king_destination(from_sq, to_sq)
        if abs(king_to - from_sq) == 2:
            to_sq = king_to
    text = SQUARE_NAMES[from_sq] + SQUARE_NAMES[to_sq]
    if promotion:
        text += PROMOTION_LETTERS[promotion]
    return text


def check_uci_syntax(text: str) -> None:
    """Raise ``ValueError`` unless ``text`` looks like a UCI move."""
    if text == "0000":
        return
    if len(text) not in (4, 5) or (len(text) == 5 and text[4] not in PROMOTION_LETTERS[1:]):
        raise ValueError(f"invalid UCI move: {text!r}")
    parse_square(text[0:2])
    parse_square(text[2:4])


__all__ = [
    "NULL_MOVE",
    "MOVE_NORMAL",
    "MOVE_EN_PASSANT",
    "MOVE_CASTLING",
    "MAX_MOVES",
    "encode_move",
    "move_from",
    "move_to",
    "move_from_to",
    "move_promotion",
    "move_kind",
    "is_special_move",
    "move_to_uci",
    "check_uci_syntax",
    "castling_king_destination",
    "FILE_NAMES",
]
