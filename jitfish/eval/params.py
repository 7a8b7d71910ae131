"""The evaluation's weights: one flat ``int64`` array and the names of its parts.

Every weight is a pair (middlegame, endgame): weight ``i`` lives at
``weights[2 * i]`` (mg) and ``weights[2 * i + 1]`` (eg).  ``TERMS`` lists the
named blocks in order; the offsets below are derived from it, so adding a
term means adding one line here and one helper in :mod:`jitfish.eval.evaluation`.

The values live in ``weights.json`` next to this file (``{name: [[mg, eg], ...]}``,
white's point of view, squares a1 = 0 ... h8 = 63), which a tuner may rewrite.
Kernels receive the array as an argument, never as a global.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

WEIGHTS_FILE = Path(__file__).resolve().parent / "weights.json"

# (name, number of (mg, eg) pairs), in array order.
TERMS = (
    ("material", 6),             # by piece type P N B R Q K
    ("pst", 6 * 64),             # [piece_type * 64 + square], white's view
    ("knight_mobility", 9),      # by number of safe squares attacked
    ("bishop_mobility", 14),
    ("rook_mobility", 15),
    ("queen_mobility", 28),
    ("doubled_pawn", 1),         # per pawn beyond the first on a file
    ("isolated_pawn", 1),        # per pawn with no friendly pawn on a neighbouring file
    ("passed_pawn", 8),          # by relative rank
    ("king_shelter", 1),         # per own pawn in the three files before the king
    ("king_attack", 6),          # by attacker type, per attacked square next to the enemy king
    ("bishop_pair", 1),
    ("rook_open_file", 1),
    ("rook_semi_open_file", 1),
    ("tempo", 1),                # for the side to move
)

OFFSETS: dict[str, int] = {}
_at = 0
for _name, _count in TERMS:
    OFFSETS[_name] = _at
    _at += _count
WEIGHT_PAIRS = _at
WEIGHTS_SIZE = 2 * WEIGHT_PAIRS

MATERIAL = OFFSETS["material"]
PST = OFFSETS["pst"]
KNIGHT_MOBILITY = OFFSETS["knight_mobility"]
BISHOP_MOBILITY = OFFSETS["bishop_mobility"]
ROOK_MOBILITY = OFFSETS["rook_mobility"]
QUEEN_MOBILITY = OFFSETS["queen_mobility"]
DOUBLED_PAWN = OFFSETS["doubled_pawn"]
ISOLATED_PAWN = OFFSETS["isolated_pawn"]
PASSED_PAWN = OFFSETS["passed_pawn"]
KING_SHELTER = OFFSETS["king_shelter"]
KING_ATTACK = OFFSETS["king_attack"]
BISHOP_PAIR = OFFSETS["bishop_pair"]
ROOK_OPEN_FILE = OFFSETS["rook_open_file"]
ROOK_SEMI_OPEN_FILE = OFFSETS["rook_semi_open_file"]
TEMPO = OFFSETS["tempo"]


def weights_from_dict(data: dict[str, list[list[int]]]) -> np.ndarray:
    """The flat array from ``{name: [[mg, eg], ...]}``; ``ValueError`` if a block is missing or mis-sized."""
    weights = np.zeros(WEIGHTS_SIZE, dtype=np.int64)
    for name, count in TERMS:
        pairs = data.get(name)
        if pairs is None or len(pairs) != count:
            raise ValueError(f"weights: {name!r} needs {count} (mg, eg) pairs")
        block = np.asarray(pairs, dtype=np.int64).reshape(count, 2)
        weights[2 * OFFSETS[name]:2 * (OFFSETS[name] + count)] = block.ravel()
    return weights


def weights_to_dict(weights: np.ndarray) -> dict[str, list[list[int]]]:
    return {name: weights[2 * OFFSETS[name]:2 * (OFFSETS[name] + count)].reshape(count, 2).tolist()
            for name, count in TERMS}


@functools.cache
def _default_weights() -> np.ndarray:
    weights = load_weights(WEIGHTS_FILE)
    weights.setflags(write=False)
    return weights


def default_weights() -> np.ndarray:
    """The shipped weights (read once per process; read-only)."""
    return _default_weights()


def load_weights(path: str | Path) -> np.ndarray:
    with open(path) as handle:
        return weights_from_dict(json.load(handle))


def save_weights(weights: np.ndarray, path: str | Path = WEIGHTS_FILE) -> None:
    data = weights_to_dict(np.asarray(weights))
    with open(path, "w") as handle:
        handle.write("{\n")
        items = list(data.items())
        for i, (name, pairs) in enumerate(items):
            handle.write(f'  "{name}": {json.dumps(pairs)}' + (",\n" if i < len(items) - 1 else "\n"))
        handle.write("}\n")
