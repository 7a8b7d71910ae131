"""Bit tricks on ``uint64`` bitboards, usable inside kernels.

Numba has no fast popcount or trailing-zero count for ``uint64``, so both are
small LLVM intrinsics that compile to single ``popcnt`` / ``tzcnt``
instructions.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from jitfish.board.squares import ONE
from jitfish.runtime.jit import kernel


@intrinsic
def popcount(typingctx, bitboard):
    """Number of set bits of a ``uint64``, as ``int64``."""
    signature = types.int64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return signature, codegen


@intrinsic
def lsb(typingctx, bitboard):
    """Index of the lowest set bit of a non-empty ``uint64``, as ``int64``."""
    signature = types.int64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return signature, codegen


@kernel(hot=True, inline=True)
def pop_lsb(bitboard):
    """``bitboard`` with its lowest set bit cleared."""
    return bitboard & (bitboard - ONE)
