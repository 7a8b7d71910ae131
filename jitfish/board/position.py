"""A position as preallocated numpy arrays, and FEN in and out.

The arrays are laid out as :mod:`jitfish.board.layout` describes.  FEN is
parsed and validated here, in plain Python, so that a bad FEN raises
``ValueError`` saying what is wrong before any kernel sees it.  Castling
fields may be standard (``KQkq``), X-FEN (``K``/``Q`` for the outermost rook,
a file letter otherwise) or Shredder-FEN (file letters only).
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.attacks import is_square_attacked
from jitfish.board.movegen import GEN_ALL, generate_moves
from jitfish.board.moves import MAX_MOVES, MOVE_EN_PASSANT, move_kind
from jitfish.board.squares import (
    BLACK,
    FILE_NAMES,
    KING,
    NO_PIECE,
    NO_SQUARE,
    PAWN,
    PIECE_SYMBOLS,
    ROOK,
    SQUARE_NAMES,
    WHITE,
)
from jitfish.board.tables import lookup_tables
from jitfish.board.zobrist import compute_key

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

WHITE_SHORT, WHITE_LONG, BLACK_SHORT, BLACK_LONG = range(4)


class Position:
    """The four arrays of a position, plus whether it is Chess960."""

    __slots__ = ("bbs", "state", "undo", "key_history")

    def __init__(self) -> None:
        self.bbs = np.zeros(L.BBS_SIZE, dtype=np.uint64)
        self.state = np.zeros(L.STATE_SIZE, dtype=np.int64)
        self.undo = np.zeros(L.HISTORY_ROWS * L.UNDO_SIZE, dtype=np.int64)
        self.key_history = np.zeros(L.HISTORY_ROWS, dtype=np.uint64)

    @classmethod
    def from_fen(cls, fen: str, chess960: bool = False) -> Position:
        """Parse and validate ``fen``; raises ``ValueError`` naming the problem."""
        return _parse_fen(fen, chess960)

    def copy(self) -> Position:
        other = Position()
        self.copy_into(other)
        return other

    def copy_into(self, other: Position) -> None:
        """Make ``other`` this position in place, its arrays kept: a search's root is set up each move
        without allocating (fresh arrays of this size are fresh pages, faulted in at the first touch)."""
        other.bbs[:] = self.bbs
        other.state[:] = self.state
        other.undo[:] = self.undo
        other.key_history[:] = self.key_history

    @property
    def chess960(self) -> bool:
        return bool(self.state[L.CHESS960])

    @property
    def turn(self) -> int:
        return int(self.state[L.SIDE_TO_MOVE])

    def piece_at(self, sq: int) -> int:
        return int(self.state[L.MAILBOX + sq])

    def king_square(self, color: int) -> int:
        return int(self.bbs[color * 6 + KING]).bit_length() - 1

    def castling_rooks(self) -> list[tuple[int, int]]:
        """``(right, rook square)`` for each castling right still held."""
        rights = int(self.state[L.CASTLING_RIGHTS])
        return [(right, int(self.state[L.CASTLING_ROOK + right])) for right in range(4) if rights >> right & 1]

    def legal_moves(self) -> np.ndarray:
        """The legal moves, encoded (:mod:`jitfish.board.moves`), in generation order."""
        moves = np.zeros(MAX_MOVES, dtype=np.int32)
        count = generate_moves(self.bbs, self.state, lookup_tables(), moves, 0, GEN_ALL)
        return moves[:count]

    def has_legal_en_passant(self) -> bool:
        if self.state[L.EN_PASSANT] == NO_SQUARE:
            return False
        return any(move_kind(int(m)) == MOVE_EN_PASSANT for m in self.legal_moves())

    def fen(self, *, shredder: bool = False) -> str:
        """The FEN; castling as X-FEN (``KQkq`` unless a right needs a file letter), or Shredder-FEN with ``shredder``.

        The en-passant square is shown only when an en-passant capture is
        legal, as python-chess does.
        """
        rows = []
        mailbox = self.state[L.MAILBOX : L.MAILBOX + 64].tolist()  # one conversion, not 64
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for file in range(8):
                piece = mailbox[rank * 8 + file]
                if piece == NO_PIECE:
                    empty += 1
                    continue
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_SYMBOLS[piece]
            rows.append(row + (str(empty) if empty else ""))
        side = "w" if self.turn == WHITE else "b"
        ep = SQUARE_NAMES[int(self.state[L.EN_PASSANT])] if self.has_legal_en_passant() else "-"
        return (
            f"{'/'.join(rows)} {side} {self._castling_field(shredder)} {ep} "
            f"{int(self.state[L.HALFMOVE_CLOCK])} {int(self.state[L.FULLMOVE_NUMBER])}"
        )

    def _castling_field(self, shredder: bool) -> str:
        if not self.state[L.CASTLING_RIGHTS]:
            return "-"
        text = ""
        for color in (WHITE, BLACK):
            king_file = self.king_square(color) & 7
            rooks = sorted((sq for right, sq in self.castling_rooks() if right // 2 == color), reverse=True)
            back_rank = 0 if color == WHITE else 56
            own_rooks = [sq for sq in range(back_rank, back_rank + 8) if self.piece_at(sq) == color * 6 + ROOK]
            for rook_sq in rooks:
                rook_file = rook_sq & 7
                short = rook_file > king_file
                outermost = not any((sq & 7) > rook_file if short else (sq & 7) < rook_file for sq in own_rooks)
                if shredder or not outermost:
                    letter = FILE_NAMES[rook_file]
                else:
                    letter = "k" if short else "q"
                text += letter.upper() if color == WHITE else letter
        return text or "-"


def _parse_board_field(field: str) -> list[int]:
    ranks = field.split("/")
    if len(ranks) != 8:
        raise ValueError(f"invalid FEN: expected 8 ranks separated by '/', got {len(ranks)}")
    mailbox = [NO_PIECE] * 64
    for index, text in enumerate(ranks):
        rank = 7 - index
        file = 0
        previous_digit = False
        for char in text:
            if char in "12345678":
                if previous_digit:
                    raise ValueError(f"invalid FEN: two digits in a row in rank {rank + 1}")
                file += int(char)
                previous_digit = True
            elif char in PIECE_SYMBOLS:
                if file < 8:
                    mailbox[rank * 8 + file] = PIECE_SYMBOLS.index(char)
                file += 1
                previous_digit = False
            else:
                raise ValueError(f"invalid FEN: bad piece letter {char!r} in rank {rank + 1}")
        if file != 8:
            raise ValueError(f"invalid FEN: rank {rank + 1} has {file} squares, expected 8")
    return mailbox


def _check_material(mailbox: list[int]) -> None:
    for color in (WHITE, BLACK):
        name = "white" if color == WHITE else "black"
        kings = mailbox.count(color * 6 + KING)
        if kings != 1:
            raise ValueError(f"invalid FEN: {name} has {kings} kings, expected exactly one")
        if sum(1 for p in mailbox if p != NO_PIECE and p // 6 == color) > 16:
            raise ValueError(f"invalid FEN: {name} has more than 16 pieces")
        if mailbox.count(color * 6 + PAWN) > 8:
            raise ValueError(f"invalid FEN: {name} has more than 8 pawns")
    for sq in list(range(8)) + list(range(56, 64)):
        if mailbox[sq] in (PAWN, 6 + PAWN):
            raise ValueError(f"invalid FEN: pawn on the first or last rank ({SQUARE_NAMES[sq]})")


def _parse_castling(field: str, mailbox: list[int]) -> dict[int, int]:
    """Map each castling right to its rook square.

    As in Stockfish, a right is accepted whenever its king stands on the back
    rank with a rook on that side, even on a standard board: the variant only
    decides how castling moves are written.
    """
    rooks: dict[int, int] = {}
    if field == "-":
        return rooks
    for char in field:
        color = WHITE if char.isupper() else BLACK
        back_rank = 0 if color == WHITE else 56
        king_sq = mailbox.index(color * 6 + KING)
        if king_sq // 8 != back_rank // 8:
            raise ValueError(f"invalid FEN: impossible castling rights {field!r}: king not on its back rank")
        own_rooks = [sq for sq in range(back_rank, back_rank + 8) if mailbox[sq] == color * 6 + ROOK]
        letter = char.lower()
        if letter == "k":
            candidates = [sq for sq in own_rooks if sq > king_sq]
            rook_sq = max(candidates) if candidates else None
        elif letter == "q":
            candidates = [sq for sq in own_rooks if sq < king_sq]
            rook_sq = min(candidates) if candidates else None
        elif letter in FILE_NAMES:
            rook_sq = back_rank + FILE_NAMES.index(letter)
            if rook_sq not in own_rooks:
                rook_sq = None
        else:
            raise ValueError(f"invalid FEN: bad castling letter {char!r}")
        if rook_sq is None:
            raise ValueError(f"invalid FEN: impossible castling rights {field!r}: no rook for {char!r}")
        right = 2 * color + (0 if rook_sq > king_sq else 1)
        if right in rooks:
            raise ValueError(f"invalid FEN: castling field {field!r} names one right twice")
        rooks[right] = rook_sq
    return rooks


def _parse_en_passant(field: str, mailbox: list[int], side: int) -> int:
    if field == "-":
        return NO_SQUARE
    if field not in SQUARE_NAMES:
        raise ValueError(f"invalid FEN: bad en-passant field {field!r}")
    ep_sq = SQUARE_NAMES.index(field)
    up = 8 if side == WHITE else -8
    expected_rank = 5 if side == WHITE else 2
    them = side ^ 1
    if (
        ep_sq // 8 != expected_rank
        or mailbox[ep_sq - up] != them * 6 + PAWN
        or mailbox[ep_sq] != NO_PIECE
        or mailbox[ep_sq + up] != NO_PIECE
    ):
        raise ValueError(f"invalid FEN: impossible en-passant square {field!r}")
    return ep_sq


def _parse_counter(text: str, name: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"invalid FEN: {name} {text!r} is not a number") from None
    if value < 0:
        raise ValueError(f"invalid FEN: {name} {text!r} is negative")
    return value


def _parse_fen(fen: str, chess960: bool) -> Position:
    if not isinstance(fen, str):
        raise ValueError(f"invalid FEN: expected a string, got {type(fen).__name__}")
    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise ValueError(f"invalid FEN: expected 6 fields (4 to 6 accepted), got {len(fields)}: {fen!r}")
    mailbox = _parse_board_field(fields[0])
    _check_material(mailbox)
    if fields[1] not in ("w", "b"):
        raise ValueError(f"invalid FEN: side to move must be 'w' or 'b', got {fields[1]!r}")
    side = WHITE if fields[1] == "w" else BLACK
    castling_rooks = _parse_castling(fields[2], mailbox)
    ep_sq = _parse_en_passant(fields[3], mailbox, side)
    halfmove = _parse_counter(fields[4], "halfmove clock") if len(fields) > 4 else 0
    fullmove = max(1, _parse_counter(fields[5], "fullmove number")) if len(fields) > 5 else 1

    position = Position()
    bbs, state = position.bbs, position.state
    tables = lookup_tables()
    for sq, piece in enumerate(mailbox):
        state[L.MAILBOX + sq] = piece
        if piece != NO_PIECE:
            bit = np.uint64(1 << sq)
            bbs[piece] |= bit
            bbs[L.OCCUPIED_WHITE + piece // 6] |= bit
            bbs[L.OCCUPIED] |= bit
    state[L.SIDE_TO_MOVE] = side
    state[L.HALFMOVE_CLOCK] = halfmove
    state[L.FULLMOVE_NUMBER] = fullmove
    state[L.CHESS960] = int(chess960)
    state[L.CASTLING_MASK : L.CASTLING_MASK + 64] = 15
    rights = 0
    for right, rook_sq in castling_rooks.items():
        rights |= 1 << right
        state[L.CASTLING_ROOK + right] = rook_sq
        state[L.CASTLING_MASK + rook_sq] &= ~(1 << right)
        king_sq = mailbox.index((right // 2) * 6 + KING)
        state[L.CASTLING_MASK + king_sq] &= ~(3 << (2 * (right // 2)))
    state[L.CASTLING_RIGHTS] = rights
    # Keep the en-passant square only when a pawn could take (the Polyglot rule).
    if ep_sq != NO_SQUARE and tables[L.PAWN_ATTACKS + (side ^ 1) * 64 + ep_sq] & bbs[side * 6 + PAWN]:
        state[L.EN_PASSANT] = ep_sq
    else:
        state[L.EN_PASSANT] = NO_SQUARE
    them = side ^ 1
    if is_square_attacked(position.king_square(them), side, bbs[L.OCCUPIED], bbs, tables):
        raise ValueError("invalid FEN: the side not to move is in check")
    bbs[L.KEY] = compute_key(bbs, state, tables)
    return position
