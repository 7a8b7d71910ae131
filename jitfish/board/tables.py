"""The flat lookup table shared by every kernel, built once and kept beside the kernel cache.

Building it needs a compiled kernel and python-chess's Polyglot numbers;
loading the saved copy is a 1 MB read, which keeps start-up fast.  The copy
lives in the source-keyed cache directory, so a change to how tables are
built also gets a fresh copy.
"""

from __future__ import annotations

import functools
import os
import tempfile

import numpy as np

from jitfish.board import layout as L
from jitfish.board.attacks import fill_attack_tables
from jitfish.board.zobrist import fill_zobrist_keys
from jitfish.runtime.jit import CACHE_DIR

TABLES_FILE = CACHE_DIR / "lookup_tables.npy"


def build_tables() -> np.ndarray:
    """Compute the table of attacks, lines and Zobrist keys from scratch."""
    tables = np.zeros(L.TABLE_SIZE, dtype=np.uint64)
    fill_attack_tables(tables)
    fill_zobrist_keys(tables)
    return tables


def _save(tables: np.ndarray) -> None:
    try:
        TABLES_FILE.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=TABLES_FILE.parent, suffix=".npy")
        with os.fdopen(handle, "wb") as stream:
            np.save(stream, tables)
        os.replace(temporary, TABLES_FILE)  # atomic: concurrent starts never see half a file
    except OSError:
        pass  # a read-only cache only costs the rebuild next time


@functools.cache
def lookup_tables() -> np.ndarray:
    """The process-wide table (never written after it is built)."""
    try:
        tables = np.load(TABLES_FILE)
        if tables.shape == (L.TABLE_SIZE,) and tables.dtype == np.uint64:
            return tables
    except (OSError, ValueError):
        pass
    tables = build_tables()
    _save(tables)
    return tables
