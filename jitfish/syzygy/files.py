"""Reading Syzygy WDL files: names, headers and compression data, into the ``tb`` array.

A WDL file (``.rtbw``) holds, after a 4-byte magic and a flags byte, the piece
order of each side (and, with pawns, of each leading-pawn file a-d), then one
"pairs" header per side and file: a canonical Huffman code over symbols that
expand, through a tree of symbol pairs, into runs of values.  Positions are
numbered by a perfect index (:mod:`jitfish.syzygy.probe` computes it); the
index table says in which 2^blocksize-byte block each run of 2^idxbits
positions starts, and the size table how many values each block holds.

Everything here runs once, in Python, when tables are loaded.  Every region a
header names is checked to lie inside its file, so a truncated or corrupt
file is refused with a ``ValueError`` naming it instead of being read past
its end by a kernel.
"""

from __future__ import annotations

import mmap
import os
import re
from dataclasses import dataclass, field

import numpy as np

from jitfish.syzygy import layout as T

WDL_SUFFIX = ".rtbw"
DTZ_SUFFIX = ".rtbz"
WDL_MAGIC = bytes((0x71, 0xE8, 0x23, 0x5D))
DTZ_MAGIC = bytes((0xD7, 0x66, 0x0C, 0xA5))
PIECE_LETTERS = "PNBRQK"  # Syzygy types 1..6
_NAME = re.compile(r"^K[QRBNP]*vK[QRBNP]*$")
# How many positions the two kings' placement leaves for a pivot: three
# unlike pieces (the kings and one more, 10 x 63 x 62 reduced by symmetry),
# or the two kings alone (their 462 legal placements).
PIVOT_FACTOR = {0: 31332, 2: 462}


def table_name(filename: str) -> str | None:
    """The material part of a Syzygy file name (``KQvKR``), or ``None`` when it is not one."""
    stem, suffix = os.path.splitext(filename)
    if suffix not in (WDL_SUFFIX, DTZ_SUFFIX) or not _NAME.match(stem) or len(stem) - 1 > T.MAX_TB_PIECES:
        return None
    return stem


def material_signature(white: str, black: str) -> int:
    """The material key the kernels compute: four bits per (colour, type) count, kings left out."""
    signature = 0
    for colour, letters in enumerate((white, black)):
        for kind in range(5):
            signature |= letters.count(PIECE_LETTERS[kind]) << (4 * (colour * 5 + kind))
    return signature


def _letters(codes: list[int], colour: int) -> str:
    return "".join(PIECE_LETTERS[(c & 7) - 1] for c in codes if c >> 3 == colour)


@dataclass
class _Pairs:
    row: np.ndarray
    base: list[int] = field(default_factory=list)
    symlen: list[int] = field(default_factory=list)
    sizes: tuple[int, int, int] = (0, 0, 0)  # index table, size table and data bytes


class _Reader:
    """Little-endian reads from a table file, refusing to read past its end."""

    def __init__(self, data: np.ndarray, path: str) -> None:
        self.data = data
        self.path = path

    def fail(self, what: str) -> ValueError:
        return ValueError(f"corrupt Syzygy table {self.path}: {what}")

    def u8(self, at: int) -> int:
        if not 0 <= at < len(self.data):
            raise self.fail(f"header reaches past the end of the file (byte {at})")
        return int(self.data[at])

    def u16(self, at: int) -> int:
        return self.u8(at) | self.u8(at + 1) << 8

    def u32(self, at: int) -> int:
        return self.u16(at) | self.u16(at + 2) << 16


def _subfactor(k: int, n: int) -> int:
    """Placements of ``k`` like pieces on ``n`` squares."""
    return T._binomial(n, k)


class WdlFile:
    """One parsed WDL file: its table row, its pairs rows, and the mapped bytes they point into."""

    def __init__(self, path: str) -> None:
        self.path = path
        name = table_name(os.path.basename(path))
        if name is None:
            raise ValueError(f"not a Syzygy table name: {path}")
        white, black = name.split("v")
        self.name = name
        self.num = len(name) - 1
        self.has_pawns = "P" in name
        self.symmetric = white == black
        # The Syzygy codes of the pieces the name spells, either side's view (the order's colours may be swapped).
        self.codes = [
            sorted(PIECE_LETTERS.index(c) + 1 + 8 * colour for colour, side in enumerate(sides) for c in side)
            for sides in ((white, black), (black, white))
        ]
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < 16 or size % 64 != 16:
                raise ValueError(f"corrupt Syzygy table {path}: size {size} is not 16 more than a multiple of 64")
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        self.bytes = np.frombuffer(self._map, dtype=np.uint8)
        self.address = self.bytes.ctypes.data
        reader = _Reader(self.bytes, path)
        if bytes(self.bytes[:4]) != WDL_MAGIC:
            raise reader.fail("wrong magic number (not a WDL table)")
        self.row = np.zeros(T.TABLE_ROW, dtype=np.int64)
        self.pairs: list[_Pairs] = []
        if self.has_pawns:
            self._parse_pawnful(reader, white, black)
        else:
            self._parse_pawnless(reader)
        self.row[T.T_NUM] = self.num
        self.row[T.T_HAS_PAWNS] = self.has_pawns
        self.row[T.T_SYMMETRIC] = self.symmetric

    # --- piece orders, groups and factors ---

    def _slot(self, slot: int) -> int:
        return T.TABLE_HEAD_SIZE + slot * T.SLOT_SIZE

    def _groups(self, pieces: list[int], norm: list[int], first: int) -> None:
        """Group runs of like pieces from ``first`` on: ``norm[i]`` is the size of the group starting at i."""
        i = first
        while i < self.num:
            j = i
            while j < self.num and pieces[j] == pieces[i]:
                norm[i] += 1
                j += 1
            i += norm[i]

    def _piece_slot(self, slot: int, order: int, pieces: list[int], enc_type: int) -> int:
        norm = [0] * T.MAX_TB_PIECES
        norm[0] = 3 if enc_type == 0 else 2
        self._groups(pieces, norm, norm[0])
        factor, size = self._factors(norm, norm[0], {order: (0, PIVOT_FACTOR[enc_type])})
        self._store_slot(slot, pieces, norm, factor)
        return size

    def _pawn_slot(
        self, slot: int, file: int, order: int, order2: int, pieces: list[int], pawns: tuple[int, int]
    ) -> int:
        norm = [0] * T.MAX_TB_PIECES
        norm[0] = pawns[0]
        if pawns[1]:
            norm[pawns[0]] = pawns[1]
        self._groups(pieces, norm, pawns[0] + pawns[1])
        blocks = {order: (0, int(T.constant_tables()[T.PFACTOR + (norm[0] - 1) * 4 + file]))}
        first = norm[0]
        if order2 < 0x0F:
            # The other colour's pawns: a block of their own, on the 48 squares pawns can stand on.
            blocks[order2] = (norm[0], _subfactor(norm[norm[0]], 48 - norm[0]))
            first += norm[norm[0]]
        factor, size = self._factors(norm, first, blocks)
        self._store_slot(slot, pieces, norm, factor)
        return size

    def _factors(self, norm: list[int], first: int, blocks: dict[int, tuple[int, int]]) -> tuple[list[int], int]:
        """The index factor of each group, and the table's size.

        The file orders the index's digits: at step ``k`` of that order comes
        either a block (``blocks[k]`` = where its factor goes, how many
        placements it has: the pivot pieces, or pawns) or the next group of
        like pieces from ``first`` on, placed on the squares still free.
        """
        factor = [0] * T.MAX_TB_PIECES
        free, size, i, k = 64 - first, 1, first, 0
        while i < self.num or k in blocks:
            if k in blocks:
                at, placements = blocks[k]
                factor[at] = size
                size *= placements
            elif i >= self.num:
                raise ValueError(f"corrupt Syzygy table {self.path}: its index order skips a block")
            else:
                factor[i] = size
                size *= _subfactor(norm[i], free)
                free -= norm[i]
                i += norm[i]
            k += 1
        return factor, size

    def _store_slot(self, slot: int, pieces: list[int], norm: list[int], factor: list[int]) -> None:
        if sorted(pieces) not in self.codes:
            raise ValueError(f"corrupt Syzygy table {self.path}: its piece order does not match its name")
        at = self._slot(slot)
        self.row[at + T.S_PIECES : at + T.S_PIECES + self.num] = pieces
        self.row[at + T.S_NORM : at + T.S_NORM + T.MAX_TB_PIECES] = norm
        self.row[at + T.S_FACTOR : at + T.S_FACTOR + T.MAX_TB_PIECES] = factor

    # --- the two layouts ---

    def _parse_pawnless(self, reader: _Reader) -> None:
        singles = sum(1 for side in self.name.split("v") for letter in set(side) if side.count(letter) == 1)
        enc_type = 0 if singles >= 3 else 2
        self.row[T.T_ENC_TYPE] = enc_type
        flags = reader.u8(4)
        split = flags & 1
        at = 5
        orders = reader.u8(at)
        codes = [reader.u8(at + 1 + i) for i in range(self.num)]
        sizes = []
        for side in range(2):
            pieces = [(c >> (4 * side)) & 0x0F for c in codes]
            sizes.append(self._piece_slot(side, (orders >> (4 * side)) & 0x0F, pieces, enc_type))
        # The material key is the one the side-0 piece order spells (white = colour bit clear).
        pieces0 = [c & 0x0F for c in codes]
        self.key = (_letters(pieces0, 0), _letters(pieces0, 1))
        at += self.num + 1
        at += at & 1
        sides = 2 if split else 1
        pairs = []
        for side in range(sides):
            pair, at = self._setup_pairs(reader, at, sizes[side])
            pairs.append(pair)
        self._place_blocks(reader, at, pairs)
        for side in range(2):
            self.row[self._slot(side) + T.S_PAIRS] = len(self.pairs) + min(side, sides - 1)
        self.pairs.extend(pairs)

    def _parse_pawnful(self, reader: _Reader, white: str, black: str) -> None:
        first, second = white.count("P"), black.count("P")
        # The leading pawns are the colour with fewer pawns (the file's first side on a tie).
        leading = (second, first) if first == 0 or (second and second < first) else (first, second)
        pawns = leading
        self.row[T.T_PAWNS] = pawns[0]
        self.row[T.T_PAWNS + 1] = pawns[1]
        self.key = (white, black)
        flags = reader.u8(4)
        split = flags & 1
        if not flags & 2:
            raise reader.fail("a pawn table without per-file data")
        at = 5
        step = 1 + (pawns[1] > 0)
        sizes = {}
        for file in range(4):
            order_byte = reader.u8(at)
            order2_byte = reader.u8(at + 1) if pawns[1] else 0xFF
            codes = [reader.u8(at + step + i) for i in range(self.num)]
            for side in range(2):
                shift = 4 * side
                pieces = [(c >> shift) & 0x0F for c in codes]
                order2 = (order2_byte >> shift) & 0x0F if pawns[1] else 0x0F
                sizes[file, side] = self._pawn_slot(
                    file * 2 + side, file, (order_byte >> shift) & 0x0F, order2, pieces, pawns
                )
            at += self.num + step
        at += at & 1
        sides = 2 if split else 1
        pairs = []
        for file in range(4):
            for side in range(sides):
                pair, at = self._setup_pairs(reader, at, sizes[file, side])
                pairs.append(pair)
        self._place_blocks(reader, at, pairs)
        for file in range(4):
            for side in range(2):
                pair = len(self.pairs) + file * sides + min(side, sides - 1)
                self.row[self._slot(file * 2 + side) + T.S_PAIRS] = pair
        self.pairs.extend(pairs)

    def _setup_pairs(self, reader: _Reader, at: int, positions: int) -> tuple[_Pairs, int]:
        """Read one pairs header at ``at``; return it and where the next one starts."""
        row = np.zeros(T.PAIRS_ROW, dtype=np.int64)
        pair = _Pairs(row)
        flags = reader.u8(at)
        if flags & 0x80:
            row[T.P_CONSTANT] = 1
            row[T.P_MIN_LEN] = reader.u8(at + 1)
            return pair, at + 2
        blocksize, idxbits = reader.u8(at + 1), reader.u8(at + 2)
        if not 1 <= idxbits <= 40 or blocksize > 24:
            raise reader.fail(f"impossible block parameters (block size 2^{blocksize}, index bits {idxbits})")
        real_blocks = reader.u32(at + 4)
        num_blocks = real_blocks + reader.u8(at + 3)
        max_len, min_len = reader.u8(at + 8), reader.u8(at + 9)
        if not 1 <= min_len <= max_len <= 64:
            raise reader.fail(f"impossible code lengths {min_len}..{max_len}")
        lengths = max_len - min_len + 1
        lowest = at + 10
        num_syms = reader.u16(lowest + 2 * lengths)
        sympat = at + 12 + 2 * lengths
        if num_syms:
            reader.u8(sympat + 3 * num_syms - 1)  # the last pattern must lie inside the file
        row[T.P_IDXBITS] = idxbits
        row[T.P_BLOCKSIZE] = blocksize
        row[T.P_MIN_LEN] = min_len
        row[T.P_MAX_LEN] = max_len
        row[T.P_NUM_BLOCKS] = num_blocks
        row[T.P_NUM_SYMS] = num_syms
        row[T.P_LOWEST_SYM] = self.address + lowest
        row[T.P_SYMPAT] = self.address + sympat
        # Canonical Huffman: the smallest code of each length, left-aligned in 64 bits.
        base = [0] * lengths
        for i in range(lengths - 2, -1, -1):
            base[i] = (base[i + 1] + reader.u16(lowest + 2 * i) - reader.u16(lowest + 2 * i + 2)) // 2
        pair.base = [(b << (64 - min_len - i)) & 0xFFFF_FFFF_FFFF_FFFF for i, b in enumerate(base)]
        pair.symlen = self._symbol_lengths(reader, sympat, num_syms)
        indices = (positions + (1 << idxbits) - 1) >> idxbits
        pair.sizes = (6 * indices, 2 * num_blocks, (1 << blocksize) * real_blocks)
        return pair, sympat + 3 * num_syms + (num_syms & 1)

    def _symbol_lengths(self, reader: _Reader, sympat: int, num_syms: int) -> list[int]:
        """How many values minus one each symbol expands to (a leaf expands to one)."""
        lengths = [-1] * num_syms
        for start in range(num_syms):
            stack = [start]
            while stack:
                sym = stack[-1]
                if lengths[sym] >= 0:
                    stack.pop()
                    continue
                left, right = self._children(reader, sympat, sym)
                if right == 0xFFF:
                    lengths[sym] = 0
                    stack.pop()
                    continue
                if not (left < num_syms and right < num_syms) or len(stack) > num_syms:
                    raise reader.fail("symbol tree refers outside itself")
                pending = [s for s in (left, right) if lengths[s] < 0]
                if pending:
                    stack.extend(pending)
                else:
                    lengths[sym] = lengths[left] + lengths[right] + 1
                    stack.pop()
        return lengths

    @staticmethod
    def _children(reader: _Reader, sympat: int, sym: int) -> tuple[int, int]:
        at = sympat + 3 * sym
        b0, b1, b2 = reader.u8(at), reader.u8(at + 1), reader.u8(at + 2)
        return b0 | (b1 & 0x0F) << 8, b2 << 4 | b1 >> 4

    def _place_blocks(self, reader: _Reader, at: int, pairs: list[_Pairs]) -> None:
        """Index tables, then size tables, then 64-byte-aligned data, in header order."""
        for pair in pairs:
            pair.row[T.P_INDEX_TABLE] = self.address + at
            at += pair.sizes[0]
        for pair in pairs:
            pair.row[T.P_SIZE_TABLE] = self.address + at
            at += pair.sizes[1]
        for pair in pairs:
            at = (at + 0x3F) & ~0x3F
            pair.row[T.P_DATA] = self.address + at
            at += pair.sizes[2]
            # The decoder reads ahead of the symbol it decodes, past its block's end (harmlessly, the
            # bits are never used): the limit that keeps reads safe is the file's end.
            pair.row[T.P_FILE_END] = self.address + len(self.bytes)
        if at > len(self.bytes):
            raise reader.fail(f"its blocks end at byte {at}, past the end of the file ({len(self.bytes)} bytes)")

    def close(self) -> None:
        self.bytes = None
        self._map.close()


def pack(files: list[WdlFile]) -> np.ndarray:
    """The ``tb`` array of the parsed ``files`` (see :mod:`jitfish.syzygy.layout`)."""
    constants = T.constant_tables()
    all_pairs = [pair for wdl in files for pair in wdl.pairs]
    base = [b for pair in all_pairs for b in pair.base]
    symlen = [s for pair in all_pairs for s in pair.symlen]
    hash_at = T.HEADER_END
    tables_at = hash_at + 2 * T.HASH_SIZE
    pairs_at = tables_at + T.TABLE_ROW * len(files)
    base_at = pairs_at + T.PAIRS_ROW * len(all_pairs)
    symlen_at = base_at + len(base)
    tb = np.zeros(symlen_at + len(symlen), dtype=np.int64)
    tb[: T.HEADER_END] = constants
    tb[T.HEADER + T.H_MAX_PIECES] = max((wdl.num for wdl in files), default=0)
    tb[T.HEADER + T.H_HASH] = hash_at
    tb[T.HEADER + T.H_TABLES] = tables_at
    tb[T.HEADER + T.H_PAIRS] = pairs_at
    tb[T.HEADER + T.H_BASE] = base_at
    tb[T.HEADER + T.H_SYMLEN] = symlen_at
    tb[base_at:symlen_at] = np.array(base, dtype=np.uint64).view(np.int64)
    tb[symlen_at:] = symlen
    pair_index = base_used = symlen_used = 0
    for number, wdl in enumerate(files):
        row = wdl.row.copy()
        for slot in range(T.SLOTS):
            row[T.TABLE_HEAD_SIZE + slot * T.SLOT_SIZE + T.S_PAIRS] += pair_index
        tb[tables_at + number * T.TABLE_ROW : tables_at + (number + 1) * T.TABLE_ROW] = row
        for pair in wdl.pairs:
            pair.row[T.P_BASE] = base_at + base_used
            pair.row[T.P_SYMLEN] = symlen_at + symlen_used
            base_used += len(pair.base)
            symlen_used += len(pair.symlen)
            tb[pairs_at + pair_index * T.PAIRS_ROW : pairs_at + (pair_index + 1) * T.PAIRS_ROW] = pair.row
            pair_index += 1
        white, black = wdl.key
        _hash_insert(tb, hash_at, material_signature(white, black), number * 2)
        if not wdl.symmetric:
            _hash_insert(tb, hash_at, material_signature(black, white), number * 2 + 1)
    return tb


def _hash_insert(tb: np.ndarray, hash_at: int, signature: int, value: int) -> None:
    slot = hash_slot(signature)
    while tb[hash_at + 2 * slot]:
        if tb[hash_at + 2 * slot] == signature + 1:
            return  # a second folder's copy of a table already loaded: the first one wins
        slot = (slot + 1) & (T.HASH_SIZE - 1)
    tb[hash_at + 2 * slot] = signature + 1
    tb[hash_at + 2 * slot + 1] = value


def hash_slot(signature: int) -> int:
    """The material hash's first slot for ``signature`` (the kernels use the same mixing)."""
    return ((signature * 0x9E3779B97F4A7C15) & 0xFFFF_FFFF_FFFF_FFFF) >> 52 & (T.HASH_SIZE - 1)
