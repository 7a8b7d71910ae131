"""Syzygy endgame tablebases: a compiled WDL prober, and DTZ at the root through python-chess.

:class:`Tablebase` finds the ``.rtbw``/``.rtbz`` files in one or more folders,
parses and memory-maps the WDL files once (:mod:`jitfish.syzygy.files`) and
packs what the kernels need into one ``int64`` array, :attr:`Tablebase.tb`
(:mod:`jitfish.syzygy.layout`).  The search hands that array and a scratch
array to :func:`jitfish.syzygy.probe.probe_wdl`; this class is the Python
face of the same prober.  DTZ is probed only at the root, one probe per root
move, so python-chess's prober (``chess.syzygy``) serves it, with its block
decoding compiled (:mod:`jitfish.syzygy.dtz`).

A folder that does not exist or holds no tables, and a file that is not a
valid table, are reported in :attr:`Tablebase.problems` and skipped: loading
never raises for them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

import numpy as np

from jitfish.syzygy import layout
from jitfish.syzygy.files import DTZ_SUFFIX, WdlFile, pack, table_name

__all__ = ["Tablebase", "new_scratch", "new_settings", "no_tables", "probe_arrays", "split_paths"]


def split_paths(text: str) -> list[str]:
    """The folders of a ``SyzygyPath`` value (``os.pathsep``-separated; ``<empty>`` or blank: none)."""
    if text.strip() in ("", "<empty>"):
        return []
    return [part.strip() for part in text.split(os.pathsep) if part.strip()]


@functools.cache
def no_tables() -> np.ndarray:
    """The table array of an empty tablebase (the search's argument when no tables are loaded).

    Shared, and never written: a read-only flag would give the kernels a second argument type to compile.
    """
    return pack([])


def new_scratch() -> np.ndarray:
    """The scratch array one probing thread needs."""
    return np.zeros(layout.SCRATCH_SIZE, dtype=np.int32)


def new_settings() -> np.ndarray:
    """One search thread's probe settings and hit counter (``layout.PROBE_*``), probing off."""
    return np.zeros(layout.PROBE_SETTINGS_SIZE, dtype=np.int64)


def probe_arrays(tablebase: Tablebase | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``syzygy`` field of one search thread's context (:mod:`jitfish.search.context`): the table array
    of ``tablebase`` (:func:`no_tables` for None), and a probe scratch and settings of the thread's own."""
    return (no_tables() if tablebase is None else tablebase.tb), new_scratch(), new_settings()


class Tablebase:
    """The tables found in ``paths`` (a list of folders, or one ``os.pathsep``-separated string)."""

    def __init__(self, paths: str | Iterable[str] = ()) -> None:
        folders = split_paths(paths) if isinstance(paths, str) else list(paths)
        self.folders: list[str] = []
        self.problems: list[str] = []
        self.wdl_files: list[WdlFile] = []
        self.dtz_paths: dict[str, str] = {}
        seen_wdl: set[str] = set()
        for folder in folders:
            if not os.path.isdir(folder):
                self.problems.append(f"Syzygy folder {folder} does not exist")
                continue
            found = 0
            for filename in sorted(os.listdir(folder)):
                name = table_name(filename)
                if name is None:
                    continue
                path = os.path.join(folder, filename)
                found += 1
                if filename.endswith(DTZ_SUFFIX):
                    self.dtz_paths.setdefault(name, path)
                elif name not in seen_wdl:
                    try:
                        self.wdl_files.append(WdlFile(path))
                        seen_wdl.add(name)
                    except (OSError, ValueError) as error:
                        self.problems.append(str(error))
            if found:
                self.folders.append(folder)
            else:
                self.problems.append(f"Syzygy folder {folder} holds no tables")
        self.tb = pack(self.wdl_files)
        self.scratch = new_scratch()
        self._dtz_prober = None

    @property
    def wdl_count(self) -> int:
        return len(self.wdl_files)

    @property
    def dtz_count(self) -> int:
        return len(self.dtz_paths)

    @property
    def max_pieces(self) -> int:
        """The most pieces any loaded WDL table holds (0 without tables)."""
        return int(self.tb[layout.HEADER + layout.H_MAX_PIECES])

    def summary(self) -> str:
        """One line for ``info string``: how many tables were found where."""
        return (
            f"Syzygy: found {self.wdl_count} WDL and {self.dtz_count} DTZ tables "
            f"(up to {self.max_pieces} pieces) in {os.pathsep.join(self.folders) or 'no folder'}"
        )

    def probe_wdl(self, board) -> int | None:
        """WDL for the side to move (2 win, 1 cursed win, 0 draw, -1 blessed loss, -2 loss), or ``None``.

        ``board`` is a :class:`jitfish.board.position.Position`, a FEN, or
        anything with a ``fen()`` method (a ``chess.Board``).  As in
        python-chess, the result assumes the rule-50 counter is zero.
        """
        value = self.probe_wdl_many([board])[0]
        return None if value == layout.TB_FAILED else int(value)

    def probe_wdl_many(self, boards) -> np.ndarray:
        """:meth:`probe_wdl` of each board in one compiled call, ``TB_FAILED`` where it cannot answer."""
        from jitfish.board.position import Position
        from jitfish.board.tables import lookup_tables
        from jitfish.syzygy.probe import probe_batch

        positions = [
            board
            if isinstance(board, Position)
            else Position.from_fen(board if isinstance(board, str) else board.fen())
            for board in boards
        ]
        bbs = np.array([position.bbs for position in positions], dtype=np.uint64)
        state = np.array([position.state for position in positions], dtype=np.int64)
        spare = Position()  # the undo rows and key history the capture search pushes onto
        out = np.zeros(len(positions), dtype=np.int64)
        probe_batch(bbs, state, spare.undo, spare.key_history, lookup_tables(), self.tb, self.scratch, out)
        return out

    def dtz_prober(self):
        """python-chess's prober over the same folders, with compiled block decoding
        (:class:`jitfish.syzygy.dtz.DtzProber`), for DTZ at the root; opened on first use."""
        if self._dtz_prober is None:
            from jitfish.syzygy.dtz import DtzProber

            self._dtz_prober = DtzProber(self.folders)
        return self._dtz_prober

    def close(self) -> None:
        """Release the mapped files; :attr:`tb` must no longer be probed."""
        if self._dtz_prober is not None:
            self._dtz_prober.close()
        self.tb = no_tables()
        for wdl in self.wdl_files:
            wdl.close()
        self.wdl_files = []
