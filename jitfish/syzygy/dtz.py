"""DTZ at the root: python-chess's prober, with its block decoding compiled.

python-chess (``chess.syzygy``) implements the whole DTZ probe: the capture
search, the pawn-move and threat rules, the one-ply search when a table
stores only the other side to move.  Its one slow part is decoding a block
in pure Python (a few milliseconds a probe, and a root probe makes a few
hundred).  The tables here replace that one method, ``decompress_pairs``,
by the compiled decoder the WDL prober uses
(:func:`jitfish.syzygy.probe.decode_symbol`), given a pairs row built from
python-chess's own parse; everything else is python-chess's.  A root probe
then costs a few milliseconds instead of a few hundred.

The rows hold addresses into a table's memory map, so they are rebuilt
whenever python-chess maps the file anew, and the prober never closes files
on its own (``max_fds=None``).
"""

from __future__ import annotations

import chess.syzygy
import numpy as np

from jitfish.syzygy import layout as T


def _pairs_row(table, pairs) -> np.ndarray:
    """A one-row ``tb`` array (row, bases, symbol lengths) for python-chess's ``PairsData``."""
    address = np.frombuffer(table.data, dtype=np.uint8).ctypes.data
    lengths = len(pairs.base)
    row = np.zeros(T.PAIRS_ROW + lengths + len(pairs.symlen), dtype=np.int64)
    row[T.P_IDXBITS] = pairs.idxbits
    row[T.P_BLOCKSIZE] = pairs.blocksize
    row[T.P_MIN_LEN] = pairs.min_len
    row[T.P_MAX_LEN] = pairs.min_len + lengths - 1
    row[T.P_NUM_BLOCKS] = (pairs.data - pairs.sizetable) // 2  # an upper bound: the size table ends before the data
    row[T.P_NUM_SYMS] = len(pairs.symlen)
    row[T.P_INDEX_TABLE] = address + pairs.indextable
    row[T.P_SIZE_TABLE] = address + pairs.sizetable
    row[T.P_DATA] = address + pairs.data
    row[T.P_FILE_END] = address + len(table.data)
    row[T.P_LOWEST_SYM] = address + pairs.offset + 2 * pairs.min_len  # python-chess keeps it shifted back
    row[T.P_SYMPAT] = address + pairs.sympat
    row[T.P_BASE] = T.PAIRS_ROW
    row[T.P_SYMLEN] = T.PAIRS_ROW + lengths
    row[T.PAIRS_ROW : T.PAIRS_ROW + lengths] = np.array(
        [b & 0xFFFF_FFFF_FFFF_FFFF for b in pairs.base], dtype=np.uint64
    ).view(np.int64)
    row[T.PAIRS_ROW + lengths :] = pairs.symlen
    return row


class _CompiledDecoding:
    """``decompress_pairs`` through the compiled decoder (mixed into python-chess's table classes)."""

    def decompress_pairs(self, d, idx: int) -> int:
        from jitfish.syzygy.probe import decode_symbol

        if not d.idxbits:
            return d.min_len
        cached = getattr(d, "jitfish_row", None)
        if cached is None or cached[0] is not self.data:
            cached = (self.data, _pairs_row(self, d))
            d.jitfish_row = cached
        sym = int(decode_symbol(cached[1], 0, idx))
        if sym < 0:
            raise OSError(f"corrupt Syzygy table {self.path}: a block does not decode")
        at = d.sympat + 3 * sym
        if isinstance(self, chess.syzygy.DtzTable):
            return ((self.data[at + 1] & 0x0F) << 8) | self.data[at]
        return self.data[at]


class _WdlTable(_CompiledDecoding, chess.syzygy.WdlTable):
    pass


class _DtzTable(_CompiledDecoding, chess.syzygy.DtzTable):
    pass


class DtzProber(chess.syzygy.Tablebase):
    """python-chess's ``Tablebase`` over ``folders``, decoding blocks with compiled code."""

    def __init__(self, folders: list[str]) -> None:
        super().__init__(max_fds=None)
        for folder in folders:
            self.add_directory(folder)

    def _open_table(self, hashtable, table_class, path: str) -> int:
        fast = {chess.syzygy.WdlTable: _WdlTable, chess.syzygy.DtzTable: _DtzTable}[table_class]
        return super()._open_table(hashtable, fast, path)
