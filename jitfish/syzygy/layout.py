"""Where things live in the one ``int64`` array (``tb``) that the Syzygy kernels read.

The array starts with the format's fixed index tables (computed here from
their definitions, not typed in), then a header, then regions whose size
depends on the tables loaded: the material hash, one row per table, one row
per compressed block set ("pairs"), the Huffman bases and the symbol lengths.
The fixed part's offsets are plain module ints (Numba compiles them as
constants); the variable regions' offsets are read from the header.

The file bytes themselves are not copied: each table file is memory-mapped
and the pairs rows hold absolute addresses into those maps, so the array is
only valid while the :class:`jitfish.syzygy.Tablebase` that built it is alive.

Syzygy piece codes are ``type | colour << 3`` with types 1 (pawn) to 6 (king);
the engine's piece is ``colour * 6 + type - 1``.
"""

from __future__ import annotations

import functools

import numpy as np

from jitfish.board.layout import field_offsets

MAX_TB_PIECES = 7
MAX_FRAMES = 8  # capture plies a probe can stack: 7 pieces, 5 captures, plus en passant
MOVES_PER_FRAME = 256  # jitfish.board.moves.MAX_MOVES
SCRATCH_FRAME = MOVES_PER_FRAME + 4  # the moves, then count, next index, alpha, beta
SCRATCH_SIZE = MAX_FRAMES * SCRATCH_FRAME

# The search's probe settings, one small int64 array per thread (jitfish.syzygy.search).
PROBE_PIECES = 0  # probe positions with at most this many pieces (0: never)
PROBE_DEPTH = 1  # ... at this depth or deeper
PROBE_RULE50 = 2  # 1: cursed wins and blessed losses count as draws
PROBE_HITS = 3  # probes answered (counted by the search)
PROBE_SETTINGS_SIZE = 4

# A probe's result when it cannot answer (no table, castling rights, corrupt data).
TB_FAILED = 100

CONST_FIELDS = (
    ("triangle", 64),  # [sq]: the a1-d1-d4 triangle index (0..9) of the square's symmetric image
    ("diag", 64),  # [sq]: index of a square on the a1-h8 (0..7) or h1-a8 (8..15) diagonal
    ("lower", 64),  # [sq]: index below the a1-h8 diagonal (0..27), diagonal squares 28..35
    ("flap", 64),  # [sq]: index of a leading pawn's square in files a-d (0..23)
    ("ptwist", 64),  # [sq]: the order in which further pawns of the leading colour are ranked
    ("kk_idx", 10 * 64),  # [triangle * 64 + sq]: index of the two kings, -1 when illegal
    ("binom", 64 * 8),  # [n * 8 + k]: n choose k
    ("pawnidx", 5 * 24),  # [(pawns - 1) * 24 + flap]: first index of a leading pawn placement
    ("pfactor", 5 * 4),  # [(pawns - 1) * 4 + file]: placements of the leading pawns on that file
    ("header", 8),
)
CONST_OFFSETS, HEADER_END = field_offsets(CONST_FIELDS)
TRIANGLE = CONST_OFFSETS["triangle"]
DIAG = CONST_OFFSETS["diag"]
LOWER = CONST_OFFSETS["lower"]
FLAP = CONST_OFFSETS["flap"]
PTWIST = CONST_OFFSETS["ptwist"]
KK_IDX = CONST_OFFSETS["kk_idx"]
BINOM = CONST_OFFSETS["binom"]
PAWNIDX = CONST_OFFSETS["pawnidx"]
PFACTOR = CONST_OFFSETS["pfactor"]
HEADER = CONST_OFFSETS["header"]

# Header slots (tb[HEADER + slot]).
H_MAX_PIECES = 0  # the most pieces of any table loaded (0: no tables)
H_HASH = 1  # offset of the material hash: HASH_SIZE rows of (signature + 1, table * 2 + mirrored)
H_TABLES = 2  # offset of the table rows
H_PAIRS = 3  # offset of the pairs rows
H_BASE = 4  # offset of the Huffman bases (uint64 bit patterns)
H_SYMLEN = 5  # offset of the symbol lengths
HASH_SIZE = 4096  # power of two, well above twice the 7-piece set's table count

# A table row: its shape, then one slot per (pawn file, side to move) holding
# the pairs row, the piece order, the grouping and the index factors.
TABLE_FIELDS = (
    ("num", 1),
    ("has_pawns", 1),
    ("enc_type", 1),
    ("symmetric", 1),
    ("pawns", 2),
)
TABLE_HEAD_OFFSETS, TABLE_HEAD_SIZE = field_offsets(TABLE_FIELDS)
T_NUM = TABLE_HEAD_OFFSETS["num"]
T_HAS_PAWNS = TABLE_HEAD_OFFSETS["has_pawns"]
T_ENC_TYPE = TABLE_HEAD_OFFSETS["enc_type"]
T_SYMMETRIC = TABLE_HEAD_OFFSETS["symmetric"]
T_PAWNS = TABLE_HEAD_OFFSETS["pawns"]
SLOT_FIELDS = (("pairs", 1), ("pieces", MAX_TB_PIECES), ("norm", MAX_TB_PIECES), ("factor", MAX_TB_PIECES))
SLOT_OFFSETS, SLOT_SIZE = field_offsets(SLOT_FIELDS)
S_PAIRS = SLOT_OFFSETS["pairs"]
S_PIECES = SLOT_OFFSETS["pieces"]
S_NORM = SLOT_OFFSETS["norm"]
S_FACTOR = SLOT_OFFSETS["factor"]
SLOTS = 8  # slot = file * 2 + side (pawnless tables use file 0)
TABLE_ROW = TABLE_HEAD_SIZE + SLOTS * SLOT_SIZE

# A pairs row: how one side's (and pawn file's) values are compressed.
PAIRS_FIELDS = (
    ("constant", 1),  # 1: every position has the value ``min_len``
    ("idxbits", 1),
    ("blocksize", 1),
    ("min_len", 1),
    ("max_len", 1),
    ("num_blocks", 1),
    ("num_syms", 1),
    ("index_table", 1),  # addresses into the mapped file
    ("size_table", 1),
    ("data", 1),
    ("file_end", 1),  # the end of the mapped file: no read may pass it
    ("lowest_sym", 1),  # address of the lowest symbol of each code length (min_len first)
    ("sympat", 1),  # address of the symbol patterns, three bytes each
    ("base", 1),  # offset of this row's bases in the base region
    ("symlen", 1),  # offset of this row's symbol lengths in the symlen region
)
PAIRS_OFFSETS, PAIRS_ROW = field_offsets(PAIRS_FIELDS)
P_CONSTANT = PAIRS_OFFSETS["constant"]
P_IDXBITS = PAIRS_OFFSETS["idxbits"]
P_BLOCKSIZE = PAIRS_OFFSETS["blocksize"]
P_MIN_LEN = PAIRS_OFFSETS["min_len"]
P_MAX_LEN = PAIRS_OFFSETS["max_len"]
P_NUM_BLOCKS = PAIRS_OFFSETS["num_blocks"]
P_NUM_SYMS = PAIRS_OFFSETS["num_syms"]
P_INDEX_TABLE = PAIRS_OFFSETS["index_table"]
P_SIZE_TABLE = PAIRS_OFFSETS["size_table"]
P_DATA = PAIRS_OFFSETS["data"]
P_FILE_END = PAIRS_OFFSETS["file_end"]
P_LOWEST_SYM = PAIRS_OFFSETS["lowest_sym"]
P_SYMPAT = PAIRS_OFFSETS["sympat"]
P_BASE = PAIRS_OFFSETS["base"]
P_SYMLEN = PAIRS_OFFSETS["symlen"]


def _offdiag(sq: int) -> int:
    """Rank minus file: positive above the a1-h8 diagonal, zero on it."""
    return (sq >> 3) - (sq & 7)


def _symmetries(sq: int):
    """The eight images of ``sq`` under the board's mirrors and the diagonal flip."""
    for flip_file in (0, 7):
        for flip_rank in (0, 56):
            image = sq ^ flip_file ^ flip_rank
            yield image
            yield ((image >> 3) | (image << 3)) & 63


# The triangle's ten squares in index order: b1 c1 d1 c2 d2 d3 a1 b2 c3 d4
# (off-diagonal squares first, so that the diagonal cases come last).
TRIANGLE_SQUARES = (1, 2, 3, 10, 11, 19, 0, 9, 18, 27)


def _binomial(n: int, k: int) -> int:
    if k < 0 or n < k:
        return 0
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result


def _flap_square(index: int) -> int:
    """The square (files a-d, ranks 2-7) whose leading-pawn index is ``index``."""
    return (index % 6 + 1) * 8 + index // 6


@functools.cache
def constant_tables() -> np.ndarray:
    """The fixed part of ``tb``, every table derived from its definition (read-only)."""
    out = np.zeros(HEADER_END, dtype=np.int64)
    for sq in range(64):
        out[TRIANGLE + sq] = next(TRIANGLE_SQUARES.index(s) for s in _symmetries(sq) if s in TRIANGLE_SQUARES)
        rank, file = sq >> 3, sq & 7
        if rank == file:
            out[DIAG + sq] = rank
        elif rank + file == 7:
            out[DIAG + sq] = 8 + rank
        low, high = min(rank, file), max(rank, file)
        # Below the diagonal, counted rank by rank; the flipped square shares the index.
        out[LOWER + sq] = 28 + rank if rank == file else sum(7 - r for r in range(low)) + high - low - 1
        if 1 <= rank <= 6:
            centre = min(file, 7 - file)
            out[FLAP + sq] = centre * 6 + rank - 1
            # Outer files rank later; within a file the pawn further up ranks first.
            out[PTWIST + sq] = 12 * (3 - centre) + (13 if file < 4 else 12) - 2 * rank
    # Two kings: the first on a triangle square, the second anywhere not next
    # to it and, when the first is on the diagonal, not above the diagonal.
    # Placements with both kings on the diagonal are numbered last.
    out[KK_IDX : KK_IDX + 640] = -1
    code, both_diagonal = 0, []
    for index, s1 in enumerate(TRIANGLE_SQUARES):
        for s2 in range(64):
            if max(abs((s1 >> 3) - (s2 >> 3)), abs((s1 & 7) - (s2 & 7))) <= 1:
                continue
            if _offdiag(s1) == 0 and _offdiag(s2) > 0:
                continue
            if _offdiag(s1) == 0 and _offdiag(s2) == 0:
                both_diagonal.append((index, s2))
                continue
            out[KK_IDX + index * 64 + s2] = code
            code += 1
    for index, s2 in both_diagonal:
        out[KK_IDX + index * 64 + s2] = code
        code += 1
    for n in range(64):
        for k in range(8):
            out[BINOM + n * 8 + k] = _binomial(n, k)
    # Leading pawns: per file (a-d), the placements of ``pawns`` pawns whose
    # lowest-flap member stands on each flap square of that file.
    for pawns in range(1, 6):
        for file in range(4):
            total = 0
            for index in range(file * 6, file * 6 + 6):
                out[PAWNIDX + (pawns - 1) * 24 + index] = total
                total += 1 if pawns == 1 else _binomial(out[PTWIST + _flap_square(index)], pawns - 1)
            out[PFACTOR + (pawns - 1) * 4 + file] = total
    out.flags.writeable = False
    return out
