"""Attack tables and attack queries: leapers, magic sliders, lines between squares.

``build_attack_tables`` fills the attack part of the flat lookup table once
at start-up (a compiled loop, a few milliseconds); the query kernels read it.
Sliding attacks use "fancy" magic bitboards with the multipliers shipped in
:mod:`jitfish.board.magics`.
"""

from __future__ import annotations

import numpy as np

from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.board.magics import BISHOP_MAGICS, ROOK_MAGICS
from jitfish.board.squares import BISHOP, EMPTY, KING, KNIGHT, ONE, PAWN, QUEEN, ROOK
from jitfish.runtime.jit import kernel

ROOK_MAGICS_ARRAY = np.array(ROOK_MAGICS, dtype=np.uint64)
BISHOP_MAGICS_ARRAY = np.array(BISHOP_MAGICS, dtype=np.uint64)

# Directions as (file step, rank step); the builder walks rays with them.
_DIRECTIONS = np.array(
    [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),  # rook
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),  # bishop
    ],
    dtype=np.int64,
)
_KNIGHT_STEPS = np.array([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)], dtype=np.int64)
_KING_STEPS = np.array([(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)], dtype=np.int64)


# Typed arguments of the table builders: a literal argument makes Numba compile the callee once more for
# each literal value (see jitfish.search.context, "Typed constants"), here five times over.
ROOK_FIRST, ROOK_LAST = np.int64(0), np.int64(4)  # the rook's directions[0:4] ...
BISHOP_FIRST, BISHOP_LAST = np.int64(4), np.int64(8)  # ... and the bishop's [4:8]
RELEVANT_ONLY, WHOLE_RAY = np.bool_(True), np.bool_(False)


@kernel
def _ray_attacks(sq, occupied, directions, first, last, relevant_only):
    """Attacks of a slider on ``sq`` along ``directions[first:last]``.

    With ``relevant_only`` the last square of each ray is left out: it is the
    occupancy mask a magic index is computed from.
    """
    attacks = EMPTY
    file0 = sq & 7
    rank0 = sq >> 3
    for d in range(first, last):
        df = directions[d, 0]
        dr = directions[d, 1]
        f = file0 + df
        r = rank0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            if relevant_only and not (0 <= f + df < 8 and 0 <= r + dr < 8):
                break
            bit = ONE << np.uint64(r * 8 + f)
            attacks |= bit
            if occupied & bit:
                break
            f += df
            r += dr
    return attacks


@kernel
def _step_attacks(sq, steps):
    attacks = EMPTY
    for i in range(steps.shape[0]):
        f = (sq & 7) + steps[i, 0]
        r = (sq >> 3) + steps[i, 1]
        if 0 <= f < 8 and 0 <= r < 8:
            attacks |= ONE << np.uint64(r * 8 + f)
    return attacks


@kernel
def _fill_magic(tables, mask_at, magic_at, shift_at, offset_at, attacks_at, magics, directions, first, last):
    offset = attacks_at
    for sq in range(64):
        mask = _ray_attacks(sq, EMPTY, directions, first, last, RELEVANT_ONLY)
        bits = popcount(mask)
        tables[mask_at + sq] = mask
        tables[magic_at + sq] = magics[sq]
        tables[shift_at + sq] = np.uint64(64 - bits)
        tables[offset_at + sq] = np.uint64(offset)
        # Enumerate every subset of the mask (Carry-Rippler).
        subset = EMPTY
        while True:
            index = (subset * magics[sq]) >> np.uint64(64 - bits)
            tables[np.uint64(offset) + index] = _ray_attacks(sq, subset, directions, first, last, WHOLE_RAY)
            subset = (subset - mask) & mask
            if subset == EMPTY:
                break
        offset += 1 << bits


@kernel
def build_attack_tables(tables, rook_magics, bishop_magics, directions, knight_steps, king_steps):
    """Fill leaper, pawn, magic-slider, between and line tables into ``tables``."""
    for sq in range(64):
        tables[L.KNIGHT_ATTACKS + sq] = _step_attacks(sq, knight_steps)
        tables[L.KING_ATTACKS + sq] = _step_attacks(sq, king_steps)
        bit = ONE << np.uint64(sq)
        file = sq & 7
        white = EMPTY
        black = EMPTY
        if file > 0:
            white |= bit << np.uint64(7)
            black |= bit >> np.uint64(9)
        if file < 7:
            white |= bit << np.uint64(9)
            black |= bit >> np.uint64(7)
        tables[L.PAWN_ATTACKS + sq] = white
        tables[L.PAWN_ATTACKS + 64 + sq] = black
    _fill_magic(
        tables,
        L.ROOK_MASK,
        L.ROOK_MAGIC,
        L.ROOK_SHIFT,
        L.ROOK_OFFSET,
        L.ROOK_ATTACKS,
        rook_magics,
        directions,
        ROOK_FIRST,
        ROOK_LAST,
    )
    _fill_magic(
        tables,
        L.BISHOP_MASK,
        L.BISHOP_MAGIC,
        L.BISHOP_SHIFT,
        L.BISHOP_OFFSET,
        L.BISHOP_ATTACKS,
        bishop_magics,
        directions,
        BISHOP_FIRST,
        BISHOP_LAST,
    )
    for a in range(64):
        a_bit = ONE << np.uint64(a)
        for b in range(64):
            between = EMPTY
            line = EMPTY
            if a != b:
                b_bit = ONE << np.uint64(b)
                for first in (ROOK_FIRST, BISHOP_FIRST):
                    if _ray_attacks(a, EMPTY, directions, first, first + 4, WHOLE_RAY) & b_bit:
                        between = _ray_attacks(a, b_bit, directions, first, first + 4, WHOLE_RAY) & _ray_attacks(
                            b, a_bit, directions, first, first + 4, WHOLE_RAY
                        )
                        line = (
                            (
                                _ray_attacks(a, EMPTY, directions, first, first + 4, WHOLE_RAY)
                                & _ray_attacks(b, EMPTY, directions, first, first + 4, WHOLE_RAY)
                            )
                            | a_bit
                            | b_bit
                        )
            tables[L.BETWEEN + a * 64 + b] = between
            tables[L.LINE + a * 64 + b] = line


def fill_attack_tables(tables: np.ndarray) -> None:
    """Python entry: fill the attack part of a flat table."""
    build_attack_tables(tables, ROOK_MAGICS_ARRAY, BISHOP_MAGICS_ARRAY, _DIRECTIONS, _KNIGHT_STEPS, _KING_STEPS)


@kernel(hot=True, inline=True)
def rook_attacks(sq, occupied, tables):
    index = ((occupied & tables[L.ROOK_MASK + sq]) * tables[L.ROOK_MAGIC + sq]) >> tables[L.ROOK_SHIFT + sq]
    return tables[tables[L.ROOK_OFFSET + sq] + index]


@kernel(hot=True, inline=True)
def bishop_attacks(sq, occupied, tables):
    index = ((occupied & tables[L.BISHOP_MASK + sq]) * tables[L.BISHOP_MAGIC + sq]) >> tables[L.BISHOP_SHIFT + sq]
    return tables[tables[L.BISHOP_OFFSET + sq] + index]


@kernel(hot=True, inline=True)
def between(a, b, tables):
    """Squares strictly between ``a`` and ``b`` on a line, else empty."""
    return tables[L.BETWEEN + a * 64 + b]


@kernel(hot=True)
def attackers_to(sq, occupied, bbs, tables):
    """All pieces of both colours attacking ``sq`` given ``occupied``.

    ``bbs`` holds the piece bitboards at ``colour * 6 + piece_type``.
    """
    diagonal = bbs[BISHOP] | bbs[QUEEN] | bbs[6 + BISHOP] | bbs[6 + QUEEN]
    straight = bbs[ROOK] | bbs[QUEEN] | bbs[6 + ROOK] | bbs[6 + QUEEN]
    return (
        (tables[L.PAWN_ATTACKS + 64 + sq] & bbs[PAWN])
        | (tables[L.PAWN_ATTACKS + sq] & bbs[6 + PAWN])
        | (tables[L.KNIGHT_ATTACKS + sq] & (bbs[KNIGHT] | bbs[6 + KNIGHT]))
        | (tables[L.KING_ATTACKS + sq] & (bbs[KING] | bbs[6 + KING]))
        | (bishop_attacks(sq, occupied, tables) & diagonal)
        | (rook_attacks(sq, occupied, tables) & straight)
    )


@kernel(hot=True)
def is_square_attacked(sq, by_color, occupied, bbs, tables):
    """Whether a piece of ``by_color`` attacks ``sq`` given ``occupied``."""
    base = by_color * 6
    if tables[L.PAWN_ATTACKS + (1 - by_color) * 64 + sq] & bbs[base + PAWN]:
        return True
    if tables[L.KNIGHT_ATTACKS + sq] & bbs[base + KNIGHT]:
        return True
    if tables[L.KING_ATTACKS + sq] & bbs[base + KING]:
        return True
    if bishop_attacks(sq, occupied, tables) & (bbs[base + BISHOP] | bbs[base + QUEEN]):
        return True
    if rook_attacks(sq, occupied, tables) & (bbs[base + ROOK] | bbs[base + QUEEN]):
        return True
    return False
