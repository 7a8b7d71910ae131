"""The flat lookup table shared by every kernel, built once per process."""

from __future__ import annotations

import functools

import numpy as np

from jitfish.board import layout as L
from jitfish.board.attacks import fill_attack_tables
from jitfish.board.zobrist import fill_zobrist_keys


@functools.cache
def lookup_tables() -> np.ndarray:
    """The process-wide table of attacks, lines and Zobrist keys (never written after it is built)."""
    tables = np.zeros(L.TABLE_SIZE, dtype=np.uint64)
    fill_attack_tables(tables)
    fill_zobrist_keys(tables)
    return tables
