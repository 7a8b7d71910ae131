"""The transposition table: what earlier searches learnt about a position, by Zobrist key.

The table is one ``uint64`` array of buckets of ``BUCKET_ENTRIES`` entries;
an entry is two words, ``key ^ data`` and ``data``, so a torn write by
another thread (Lazy SMP) reads as a miss instead of as wrong data.
``data`` packs, from bit 0 (``ENTRY_FIELDS`` lists the fields; every shift and
mask is derived from it):

====== ===== =========================================
bits   field meaning
====== ===== =========================================
0-17   move  best (or refuting) move, 0 if none
18-19  bound BOUND_UPPER / BOUND_LOWER / BOUND_EXACT
20-27  depth draft searched (0 for quiescence)
28-33  age   search generation (mod 64) that wrote it
34-49  score + 32768; mate and tablebase scores relative to this node
50-63  eval  static evaluation + 8192 (clamped)
====== ===== =========================================

A bucket is found by scaling the key's low 32 bits to the bucket count.
Replacement keeps the entry with the lowest ``depth - AGE_WEIGHT * age
distance``: deep entries of the current search survive, stale ones go first.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from jitfish.runtime.jit import WHILE_WAITING, kernel
from jitfish.types import BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, TB_WIN_BOUND

BUCKET_ENTRIES = 4
ENTRY_WORDS = 2
BUCKET_WORDS = BUCKET_ENTRIES * ENTRY_WORDS
BUCKET_BYTES = BUCKET_WORDS * 8
AGE_WEIGHT = 8  # one search of age costs as much as this much depth

# The fields of ``data``, from bit 0: (name, bits, bias added when stored so the field is unsigned).
# The table in the module docstring, the shifts and masks below, the kernel accessors and
# :func:`decode` all follow this list.
ENTRY_FIELDS = (
    ("move", 18, 0),
    ("bound", 2, 0),
    ("depth", 8, 0),
    ("age", 6, 0),
    ("score", 16, 32768),
    ("eval", 14, 8192),
)


def _field_layout() -> dict[str, tuple[np.uint64, np.uint64, int]]:
    """Each field's (shift, mask, bias), its shift the sum of the widths before it."""
    layout, shift = {}, 0
    for name, bits, bias in ENTRY_FIELDS:
        layout[name] = (np.uint64(shift), np.uint64((1 << bits) - 1), bias)
        shift += bits
    assert shift <= 64
    return layout


FIELD_LAYOUT = _field_layout()
# Kernels read module constants, one name per number.
_MOVE_SHIFT, _MOVE_MASK = FIELD_LAYOUT["move"][:2]
_BOUND_SHIFT, _BOUND_MASK = FIELD_LAYOUT["bound"][:2]
_DEPTH_SHIFT, _DEPTH_MASK = FIELD_LAYOUT["depth"][:2]
_AGE_SHIFT, _AGE_MASK = FIELD_LAYOUT["age"][:2]
_SCORE_SHIFT, _SCORE_MASK, SCORE_BIAS = FIELD_LAYOUT["score"]
_EVAL_SHIFT, _EVAL_MASK, EVAL_BIAS = FIELD_LAYOUT["eval"]
_KEY_LOW_MASK = np.uint64(0xFFFF_FFFF)
_S32 = np.uint64(32)
AGE_MASK = int(_AGE_MASK)  # search generations wrap at the width of the age field
MAX_STORED_DEPTH = int(_DEPTH_MASK)
MAX_STORED_EVAL = EVAL_BIAS - 1


CACHE_LINE_BYTES = 64


def new_table(hash_mb: int) -> np.ndarray:
    """A zeroed table of (about) ``hash_mb`` MiB, at least one bucket, starting on a cache line.

    A bucket is one 64-byte cache line only if the table starts on one; numpy's
    large allocations start 16 bytes past a page, which would split every
    bucket over two lines and cost a second memory access per probe.
    """
    buckets = max(1, (int(hash_mb) << 20) // BUCKET_BYTES)
    words = buckets * BUCKET_WORDS
    spare = CACHE_LINE_BYTES // 8
    raw = np.zeros(words + spare, dtype=np.uint64)
    skip = (-raw.ctypes.data % CACHE_LINE_BYTES) // 8
    return raw[skip : skip + words]


class TTEntry(NamedTuple):
    """An entry's fields as Python ints; ``score`` as stored (mate scores relative to the entry's node)."""

    move: int
    bound: int
    depth: int
    age: int
    score: int
    eval: int


def field(data, name: str):
    """Field ``name`` of one data word (``np.uint64``) or of an array of them, bias removed."""
    shift, mask, bias = FIELD_LAYOUT[name]
    value = (data >> shift) & mask
    return value.astype(np.int64) - bias if isinstance(value, np.ndarray) else int(value) - bias


class Probe(NamedTuple):
    """What a search node learns from the table (:func:`tt_read`): ``score`` relative to the node's ply."""

    found: bool
    move: int
    score: int
    bound: int
    depth: int  # -1 when nothing was found
    eval: int


def decode(data) -> TTEntry:
    """The fields of one data word, for Python code (kernels use :func:`tt_read`)."""
    data = np.uint64(data)
    return TTEntry(*(field(data, name) for name, _, _ in ENTRY_FIELDS))


def probe(table: np.ndarray, key) -> TTEntry | None:
    """The entry stored for ``key``, decoded, or ``None``."""
    found, data = tt_probe(table, np.uint64(key))
    return decode(data) if found else None


HASHFULL_SAMPLE = 1000  # entries, from the table's start (UCI's hashfull is per mille)


def hashfull(table: np.ndarray, age: int) -> int:
    """Per mille of the first 1000 entries written by the current search."""
    entries = min(len(table) // ENTRY_WORDS, HASHFULL_SAMPLE)
    return int(_entries_of_age(table, age & AGE_MASK, entries)) * 1000 // max(1, entries)


@kernel(hot=True)
def _entries_of_age(table, age, entries):
    """How many of the first ``entries`` entries are in use and of search generation ``age`` (a kernel: the
    report asks once an iteration, and the same in numpy took about 30 µs)."""
    used = 0
    for i in range(entries):
        data = table[ENTRY_WORDS * i + 1]
        if data != np.uint64(0) and tt_age(data) == age:
            used += 1
    return used


@kernel(hot=True)
def score_to_tt(score, ply):
    """Mate and tablebase scores are stored as distance from this node, not from the root."""
    if score >= TB_WIN_BOUND:
        return score + ply
    if score <= -TB_WIN_BOUND:
        return score - ply
    return score


@kernel(hot=True)
def score_from_tt(score, ply):
    if score >= TB_WIN_BOUND:
        return score - ply
    if score <= -TB_WIN_BOUND:
        return score + ply
    return score


@kernel(hot=True)
def tt_bucket(table, key):
    """The bucket of ``key``: its low 32 bits scaled to the bucket count (a multiply, not a division)."""
    buckets = np.uint64(table.shape[0] // BUCKET_WORDS)
    return np.int64(((key & _KEY_LOW_MASK) * buckets) >> _S32) * BUCKET_WORDS


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to start loading ``array[index]`` into the cache (LLVM's prefetch; no effect on results)."""
    signature = types.void(array, types.int64)

    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        prefetch_type = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        prefetch = cgutils.get_or_insert_function(builder.module, prefetch_type, "llvm.prefetch.p0")
        builder.call(prefetch, [address, i32(0), i32(3), i32(1)])  # read, keep in all levels, data cache
        return context.get_dummy_value()

    return signature, codegen


@kernel(hot=True, inline=True)
def tt_prefetch(table, key):
    """Start fetching ``key``'s bucket: called right after a move, it overlaps the memory latency of the
    child's probe with the work the child does before probing."""
    prefetch(table, tt_bucket(table, key))


@kernel(hot=True)
def tt_probe(table, key):
    """``(found, data)`` for ``key``."""
    base = tt_bucket(table, key)
    for i in range(BUCKET_ENTRIES):
        data = table[base + 2 * i + 1]
        if data != np.uint64(0) and (table[base + 2 * i] ^ data) == key:
            return True, data
    return False, np.uint64(0)


@kernel(hot=True)
def tt_move(data):
    return np.int64((data >> _MOVE_SHIFT) & _MOVE_MASK)


@kernel(hot=True)
def tt_bound(data):
    return np.int64((data >> _BOUND_SHIFT) & _BOUND_MASK)


@kernel(hot=True, cold_start=WHILE_WAITING)
def tt_depth(data):
    return np.int64((data >> _DEPTH_SHIFT) & _DEPTH_MASK)


@kernel(hot=True)
def tt_age(data):
    return np.int64((data >> _AGE_SHIFT) & _AGE_MASK)


@kernel(hot=True)
def tt_score(data, ply):
    return score_from_tt(np.int64((data >> _SCORE_SHIFT) & _SCORE_MASK) - SCORE_BIAS, ply)


@kernel(hot=True)
def tt_eval(data):
    return np.int64((data >> _EVAL_SHIFT) & _EVAL_MASK) - EVAL_BIAS


@kernel(hot=True, inline=True)
def tt_read(table, key, ply):
    """The entry stored for ``key``, decoded for a node at ``ply``: the one place kernels unpack an entry."""
    found, data = tt_probe(table, key)
    if not found:
        return Probe(False, np.int64(0), np.int64(0), np.int64(0), np.int64(-1), np.int64(0))
    return Probe(True, tt_move(data), tt_score(data, ply), tt_bound(data), tt_depth(data), tt_eval(data))


@kernel(hot=True, inline=True)
def bound_settles(bound, score, alpha, beta):
    """Whether a stored score with this bound decides the node for the window (alpha, beta)."""
    return (bound == BOUND_LOWER and score >= beta) or (bound == BOUND_UPPER and score <= alpha) or bound == BOUND_EXACT


@kernel(hot=True, llvm_inline=True)
def tt_store(table, key, move, score, static_eval, depth, bound, ply, age):
    """Write an entry, replacing by depth and age (see module docstring)."""
    base = tt_bucket(table, key)
    depth = max(0, min(depth, MAX_STORED_DEPTH))
    static_eval = max(-MAX_STORED_EVAL, min(static_eval, MAX_STORED_EVAL))
    target = -1
    worst = 1 << 30
    for i in range(BUCKET_ENTRIES):
        slot = base + 2 * i
        old = table[slot + 1]
        if old == np.uint64(0):
            if target < 0 or worst > -(1 << 20):
                target = slot
                worst = -(1 << 20)
            continue
        if (table[slot] ^ old) == key:
            # Same position: keep a deeper entry of this search unless this one is exact.
            if bound != BOUND_EXACT and depth + 3 < tt_depth(old) and tt_age(old) == (age & AGE_MASK):
                return
            if move == 0:
                move = tt_move(old)
            target = slot
            break
        value = tt_depth(old) - AGE_WEIGHT * ((age - tt_age(old)) & AGE_MASK)
        if value < worst:
            worst = value
            target = slot
    data = (
        ((np.uint64(move) & _MOVE_MASK) << _MOVE_SHIFT)
        | (np.uint64(bound) << _BOUND_SHIFT)
        | (np.uint64(depth) << _DEPTH_SHIFT)
        | (np.uint64(age & AGE_MASK) << _AGE_SHIFT)
        | (np.uint64(score_to_tt(score, ply) + SCORE_BIAS) << _SCORE_SHIFT)
        | (np.uint64(static_eval + EVAL_BIAS) << _EVAL_SHIFT)
    )
    table[target] = key ^ data
    table[target + 1] = data
