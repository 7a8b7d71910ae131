"""Find magic multipliers for rook and bishop attacks and write jitfish/board/magics.py.

Run once by a developer; the engine ships the numbers so that start-up never
searches for them.  Usage: ``python -m scripts.generate.find_magics [SEED]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOK_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1))
BISHOP_DIRECTIONS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def ray_attacks(sq: int, occupied: int, directions) -> int:
    attacks = 0
    file, rank = sq & 7, sq >> 3
    for df, dr in directions:
        f, r = file + df, rank + dr
        while 0 <= f < 8 and 0 <= r < 8:
            attacks |= 1 << (r * 8 + f)
            if occupied >> (r * 8 + f) & 1:
                break
            f, r = f + df, r + dr
    return attacks


def relevant_mask(sq: int, directions) -> int:
    mask = 0
    file, rank = sq & 7, sq >> 3
    for df, dr in directions:
        f, r = file + df, rank + dr
        while 0 <= f + df < 8 and 0 <= r + dr < 8:
            mask |= 1 << (r * 8 + f)
            f, r = f + df, r + dr
    return mask


def subsets(mask: int) -> list[int]:
    result, subset = [], 0
    while True:
        result.append(subset)
        subset = (subset - mask) & mask
        if subset == 0:
            return result


def find_magic(sq: int, directions, rng: np.random.Generator) -> int:
    mask = relevant_mask(sq, directions)
    bits = bin(mask).count("1")
    occupancies = np.array(subsets(mask), dtype=np.uint64)
    attacks = np.array([ray_attacks(sq, int(o), directions) for o in occupancies], dtype=np.uint64)
    shift = np.uint64(64 - bits)
    while True:
        # Sparse candidates (and of three randoms) succeed far more often.
        magic = (
            rng.integers(0, 2**64, dtype=np.uint64)
            & rng.integers(0, 2**64, dtype=np.uint64)
            & rng.integers(0, 2**64, dtype=np.uint64)
        )
        if bin((mask * int(magic)) & 0xFF00000000000000).count("1") < 6:
            continue
        with np.errstate(over="ignore"):
            index = (occupancies * magic) >> shift
        order = np.argsort(index, kind="stable")
        sorted_index, sorted_attacks = index[order], attacks[order]
        same = sorted_index[1:] == sorted_index[:-1]
        if np.any(same & (sorted_attacks[1:] != sorted_attacks[:-1])):
            continue
        return int(magic)


def main() -> None:
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 2026
    rng = np.random.default_rng(seed)
    rook = [find_magic(sq, ROOK_DIRECTIONS, rng) for sq in range(64)]
    bishop = [find_magic(sq, BISHOP_DIRECTIONS, rng) for sq in range(64)]
    out = Path(__file__).resolve().parents[2] / "jitfish" / "board" / "magics.py"

    def block(name: str, values: list[int]) -> str:
        rows = [", ".join(f"0x{v:016X}" for v in values[i : i + 4]) for i in range(0, 64, 4)]
        return f"{name} = (\n" + "".join(f"    {row},\n" for row in rows) + ")\n"

    out.write_text(
        '"""Magic multipliers for sliding attacks, found by scripts/generate/find_magics.py '
        f'(seed {seed}).\n\nGenerated file: rerun the script rather than editing it.\n"""\n\n'
        + block("ROOK_MAGICS", rook)
        + "\n"
        + block("BISHOP_MAGICS", bishop)
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
