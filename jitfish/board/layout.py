"""Where things live in the flat arrays that kernels take.

Kernels receive all precomputed data as one ``uint64`` lookup table (never as
module globals, which Numba would freeze into the machine code and which stop
caching above 1 MB), and a position as four preallocated arrays:

* ``bbs`` (``uint64``): the twelve piece bitboards, both colours' occupancy,
  all occupancy and the Zobrist key;
* ``state`` (``int64``): the mailbox and the scalar state;
* ``undo`` (``int64``): one row per move made, to unmake it;
* ``key_history`` (``uint64``): the key before each move made (repetitions).

This module names those offsets, and nothing else.
"""

from __future__ import annotations

KNIGHT_ATTACKS = 0          # [square]
KING_ATTACKS = 64           # [square]
PAWN_ATTACKS = 128          # [colour * 64 + square]
ROOK_MASK = 256             # relevant occupancy per square
ROOK_MAGIC = 320
ROOK_SHIFT = 384
ROOK_OFFSET = 448           # absolute index of the square's attack slice
BISHOP_MASK = 512
BISHOP_MAGIC = 576
BISHOP_SHIFT = 640
BISHOP_OFFSET = 704
BETWEEN = 768               # [a * 64 + b]: squares strictly between a and b
LINE = BETWEEN + 4096       # [a * 64 + b]: the whole line through a and b, or 0
ZOBRIST_PIECE = LINE + 4096            # [piece * 64 + square]
ZOBRIST_CASTLING = ZOBRIST_PIECE + 768  # [right]: white short, white long, black short, black long
ZOBRIST_EN_PASSANT = ZOBRIST_CASTLING + 4  # [file]
ZOBRIST_TURN = ZOBRIST_EN_PASSANT + 8   # xored in when white is to move (Polyglot)
ZOBRIST_CASTLING_SET = ZOBRIST_TURN + 1  # [rights bitmask]: xor of the keys of every right in it
ROOK_ATTACKS = ZOBRIST_CASTLING_SET + 16
ROOK_ATTACKS_SIZE = 102400
BISHOP_ATTACKS = ROOK_ATTACKS + ROOK_ATTACKS_SIZE
BISHOP_ATTACKS_SIZE = 5248
TABLE_SIZE = BISHOP_ATTACKS + BISHOP_ATTACKS_SIZE

# --- The position: ``bbs`` ---
OCCUPIED_WHITE = 12         # OCCUPIED_WHITE + colour
OCCUPIED_BLACK = 13
OCCUPIED = 14
KEY = 15
BBS_SIZE = 16

# --- The position: ``state`` ---
MAILBOX = 0                 # [square] -> piece or NO_PIECE
SIDE_TO_MOVE = 64
CASTLING_RIGHTS = 65        # bit 0 white short, 1 white long, 2 black short, 3 black long
EN_PASSANT = 66             # square behind a pawn that just moved two, if it can be captured
HALFMOVE_CLOCK = 67
FULLMOVE_NUMBER = 68
GAME_PLY = 69               # moves made since the position was set up (undo stack depth)
CASTLING_ROOK = 70          # [right] -> square of the rook that right castles with
CHESS960 = 74
CASTLING_MASK = 75          # [square] -> rights that survive a move from or to it
STATE_SIZE = CASTLING_MASK + 64

# --- The position: ``undo`` rows ---
UNDO_MOVE = 0
UNDO_CAPTURED = 1
UNDO_CASTLING = 2
UNDO_EN_PASSANT = 3
UNDO_HALFMOVE = 4
UNDO_SIZE = 5
MAX_GAME_PLY = 4096         # moves a game may hold before a search starts
SEARCH_HEADROOM = 256       # further rows for the plies perft and search add on top
HISTORY_ROWS = MAX_GAME_PLY + SEARCH_HEADROOM
