"""Where things live in the flat arrays that kernels take.

Kernels receive all precomputed data as one ``uint64`` lookup table (never as
module globals, which Numba would freeze into the machine code and which stop
caching above 1 MB), and a position as four preallocated arrays:

* ``bbs`` (``uint64``): the twelve piece bitboards, both colours' occupancy,
  all occupancy and the Zobrist key;
* ``state`` (``int64``): the mailbox and the scalar state;
* ``undo`` (``int64``): one row per move made, to unmake it;
* ``key_history`` (``uint64``): the key before each move made (repetitions).

Each layout is a list of ``(name, size)`` fields laid end to end; the offsets
below are derived from it at import (by :func:`field_offsets`, which the
search's buffers use too), so adding a field means adding one line to its
list.  They stay plain module-level ints, which Numba compiles as constants.
"""

from __future__ import annotations


def field_offsets(fields: tuple[tuple[str, int], ...]) -> tuple[dict[str, int], int]:
    """The offset of each ``(name, size)`` field laid end to end from 0, and their total size."""
    offsets: dict[str, int] = {}
    at = 0
    for name, size in fields:
        offsets[name] = at
        at += size
    return offsets, at


# --- The lookup table ---
ROOK_ATTACKS_SIZE = 102400  # every rook attack set, indexed through the magics
BISHOP_ATTACKS_SIZE = 5248
TABLE_FIELDS = (
    ("knight_attacks", 64),  # [square]
    ("king_attacks", 64),  # [square]
    ("pawn_attacks", 2 * 64),  # [colour * 64 + square]
    ("rook_mask", 64),  # relevant occupancy per square
    ("rook_magic", 64),
    ("rook_shift", 64),
    ("rook_offset", 64),  # absolute index of the square's attack slice
    ("bishop_mask", 64),
    ("bishop_magic", 64),
    ("bishop_shift", 64),
    ("bishop_offset", 64),
    ("between", 64 * 64),  # [a * 64 + b]: squares strictly between a and b
    ("line", 64 * 64),  # [a * 64 + b]: the whole line through a and b, or 0
    ("zobrist_piece", 12 * 64),  # [piece * 64 + square]
    ("zobrist_castling", 4),  # [right]: white short, white long, black short, black long
    ("zobrist_en_passant", 8),  # [file]
    ("zobrist_turn", 1),  # xored in when white is to move (Polyglot)
    ("zobrist_castling_set", 16),  # [rights bitmask]: xor of the keys of every right in it
    ("rook_attacks", ROOK_ATTACKS_SIZE),
    ("bishop_attacks", BISHOP_ATTACKS_SIZE),
)
TABLE_OFFSETS, TABLE_SIZE = field_offsets(TABLE_FIELDS)
KNIGHT_ATTACKS = TABLE_OFFSETS["knight_attacks"]
KING_ATTACKS = TABLE_OFFSETS["king_attacks"]
PAWN_ATTACKS = TABLE_OFFSETS["pawn_attacks"]
ROOK_MASK = TABLE_OFFSETS["rook_mask"]
ROOK_MAGIC = TABLE_OFFSETS["rook_magic"]
ROOK_SHIFT = TABLE_OFFSETS["rook_shift"]
ROOK_OFFSET = TABLE_OFFSETS["rook_offset"]
BISHOP_MASK = TABLE_OFFSETS["bishop_mask"]
BISHOP_MAGIC = TABLE_OFFSETS["bishop_magic"]
BISHOP_SHIFT = TABLE_OFFSETS["bishop_shift"]
BISHOP_OFFSET = TABLE_OFFSETS["bishop_offset"]
BETWEEN = TABLE_OFFSETS["between"]
LINE = TABLE_OFFSETS["line"]
ZOBRIST_PIECE = TABLE_OFFSETS["zobrist_piece"]
ZOBRIST_CASTLING = TABLE_OFFSETS["zobrist_castling"]
ZOBRIST_EN_PASSANT = TABLE_OFFSETS["zobrist_en_passant"]
ZOBRIST_TURN = TABLE_OFFSETS["zobrist_turn"]
ZOBRIST_CASTLING_SET = TABLE_OFFSETS["zobrist_castling_set"]
ROOK_ATTACKS = TABLE_OFFSETS["rook_attacks"]
BISHOP_ATTACKS = TABLE_OFFSETS["bishop_attacks"]

# --- The position: ``bbs`` ---
BBS_FIELDS = (
    ("pieces", 12),  # [piece]: white's six types, then black's (bbs[colour * 6 + type])
    ("occupied_white", 1),  # OCCUPIED_WHITE + colour
    ("occupied_black", 1),
    ("occupied", 1),
    ("key", 1),  # Zobrist key
)
BBS_OFFSETS, BBS_SIZE = field_offsets(BBS_FIELDS)
OCCUPIED_WHITE = BBS_OFFSETS["occupied_white"]
OCCUPIED_BLACK = BBS_OFFSETS["occupied_black"]
OCCUPIED = BBS_OFFSETS["occupied"]
KEY = BBS_OFFSETS["key"]

# --- The position: ``state`` ---
STATE_FIELDS = (
    ("mailbox", 64),  # [square] -> piece or NO_PIECE
    ("side_to_move", 1),
    ("castling_rights", 1),  # bit 0 white short, 1 white long, 2 black short, 3 black long
    ("en_passant", 1),  # square behind a pawn that just moved two, if it can be captured
    ("halfmove_clock", 1),
    ("fullmove_number", 1),
    ("game_ply", 1),  # moves made since the position was set up (undo stack depth)
    ("castling_rook", 4),  # [right] -> square of the rook that right castles with
    ("chess960", 1),
    ("castling_mask", 64),  # [square] -> rights that survive a move from or to it
)
STATE_OFFSETS, STATE_SIZE = field_offsets(STATE_FIELDS)
MAILBOX = STATE_OFFSETS["mailbox"]
SIDE_TO_MOVE = STATE_OFFSETS["side_to_move"]
CASTLING_RIGHTS = STATE_OFFSETS["castling_rights"]
EN_PASSANT = STATE_OFFSETS["en_passant"]
HALFMOVE_CLOCK = STATE_OFFSETS["halfmove_clock"]
FULLMOVE_NUMBER = STATE_OFFSETS["fullmove_number"]
GAME_PLY = STATE_OFFSETS["game_ply"]
CASTLING_ROOK = STATE_OFFSETS["castling_rook"]
CHESS960 = STATE_OFFSETS["chess960"]
CASTLING_MASK = STATE_OFFSETS["castling_mask"]

# --- The position: ``undo`` rows ---
UNDO_FIELDS = (
    ("move", 1),
    ("captured", 1),  # the piece captured, or NO_PIECE
    ("castling", 1),  # castling rights before the move
    ("en_passant", 1),  # en-passant square before the move
    ("halfmove", 1),  # halfmove clock before the move
)
UNDO_OFFSETS, UNDO_SIZE = field_offsets(UNDO_FIELDS)
UNDO_MOVE = UNDO_OFFSETS["move"]
UNDO_CAPTURED = UNDO_OFFSETS["captured"]
UNDO_CASTLING = UNDO_OFFSETS["castling"]
UNDO_EN_PASSANT = UNDO_OFFSETS["en_passant"]
UNDO_HALFMOVE = UNDO_OFFSETS["halfmove"]
MAX_GAME_PLY = 4096  # moves a game may hold before a search starts
SEARCH_HEADROOM = 256  # further rows for the plies perft and search add on top
HISTORY_ROWS = MAX_GAME_PLY + SEARCH_HEADROOM
