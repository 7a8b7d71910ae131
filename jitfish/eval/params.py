"""The evaluation's weights: one flat ``int64`` array and the names of its parts.

Two kinds of entry, each laid out from a list so that offsets are derived,
never typed:

* ``TERMS``: weight pairs (middlegame, endgame).  Pair ``i`` lives at
  ``weights[2 * i]`` (mg) and ``weights[2 * i + 1]`` (eg).  Every term of the
  evaluation adds ``count × pair`` through one helper, so the score is
  linear in these weights and the tuner owns all of them.
* ``CONSTANTS``: single values after the pairs (the game-phase weights and
  the phase of a full board, the king-danger divisors), which decide the
  score but not linearly; the tuner keeps them as they are.

One block of pairs is not linear: ``king_danger``'s pairs weigh the inputs
of an attack-unit sum per attacking side, and the score is a function of
that sum (squared in the middlegame; see
:func:`jitfish.eval.evaluation._king_danger`).  The tracing build records
those inputs' counts per side in ``TRACE_SIZE``'s last ``2 * DANGER_INPUTS``
slots (``DANGER_TRACE``: white attacking first) instead of as coefficients,
and :func:`score_from_trace` puts the two parts together.

Only weights that can fire have a slot: a king attack by a pawn or a king,
or a passed pawn on the first or last rank, has none.  Slots that exist but
never carry information (the king's material, which cancels; pawn squares on
the back ranks) are listed by name in ``FROZEN`` and the tuner leaves them.

The values live in ``weights.json`` next to this file (``{name: [[mg, eg], ...]}``
for pairs, ``{name: [value, ...]}`` for constants; white's point of view,
squares a1 = 0 ... h8 = 63), which the tuner rewrites.  Kernels receive the
array as an argument, never as a global.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from jitfish.board.squares import SQUARE_NAMES
from jitfish.runtime.shipped import read_once

WEIGHTS_FILE = Path(__file__).resolve().parent / "weights.json"

PIECE_LETTERS = "PNBRQK"
SLIDER_AND_KNIGHT_LETTERS = "NBRQ"

# The inputs of the king-danger sum, in block order: squares next to the enemy
# king attacked by each piece type, safe checking moves by each piece type, a
# side without its queen, and a constant (so a little attack adds nothing).
DANGER_LABELS = ("zone_N", "zone_B", "zone_R", "zone_Q", "check_N", "check_B", "check_R", "check_Q", "no_queen", "bias")
DANGER_ZONE = DANGER_LABELS.index("zone_N")  # then B R Q
DANGER_CHECK = DANGER_LABELS.index("check_N")  # then B R Q
DANGER_NO_QUEEN = DANGER_LABELS.index("no_queen")
DANGER_BIAS = DANGER_LABELS.index("bias")
DANGER_INPUTS = len(DANGER_LABELS)

# (name, number of (mg, eg) pairs), in array order.
TERMS = (
    ("material", 6),  # by piece type P N B R Q K
    ("pst", 6 * 64),  # [piece_type * 64 + square], white's view
    ("knight_mobility", 9),  # by number of safe squares attacked
    ("bishop_mobility", 14),
    ("rook_mobility", 15),
    ("queen_mobility", 28),
    ("doubled_pawn", 1),  # per pawn beyond the first on a file
    ("isolated_pawn", 1),  # per pawn with no friendly pawn on a neighbouring file
    ("passed_pawn", 6),  # by relative rank 2 ... 7
    ("passed_blocked", 6),  # by relative rank, when any piece stands on the square in front of it
    ("passed_own_king", 6),  # by relative rank, per square of our king's distance to the square in front
    ("passed_enemy_king", 6),  # by relative rank, per square of the enemy king's distance to it
    ("king_shelter", 1),  # per own pawn in the three files before the king
    ("king_attack", 4),  # by attacker N B R Q, per attacked square next to the enemy king
    ("bishop_pair", 1),
    ("rook_open_file", 1),
    ("rook_semi_open_file", 1),
    ("threat_by_pawn", 4),  # per enemy N B R Q a pawn of ours attacks
    ("threat_by_minor", 2),  # per enemy R Q a knight or bishop of ours attacks
    ("threat_by_rook", 1),  # per enemy queen a rook of ours attacks
    ("king_danger", DANGER_INPUTS),  # attack units per input (DANGER_LABELS), not linear: see the docstring
    ("tempo", 1),  # for the side to move
)

# (name, number of values), after the pairs.
CONSTANTS = (
    ("phase", 4),  # game-phase weight of a knight, bishop, rook, queen
    ("phase_total", 1),  # the phase of a full board: the phase is capped at it, the taper divides by it
    ("king_danger_scale", 2),  # the king-danger score is units ** 2 // mg divisor, units // eg divisor
)


OFFSETS: dict[str, int] = {}
_at = 0
for _name, _count in TERMS:
    OFFSETS[_name] = _at
    _at += _count
WEIGHT_PAIRS = _at

# Constants are indexed in the flat array directly (not in pairs).
CONSTANT_OFFSETS: dict[str, int] = {}
_at = 2 * WEIGHT_PAIRS
for _name, _count in CONSTANTS:
    CONSTANT_OFFSETS[_name] = _at
    _at += _count
WEIGHTS_SIZE = _at

# The tracing build's array: a coefficient per pair, then the king-danger input counts by attacking side.
DANGER_TRACE = WEIGHT_PAIRS
TRACE_SIZE = WEIGHT_PAIRS + 2 * DANGER_INPUTS

MATERIAL = OFFSETS["material"]
PST = OFFSETS["pst"]
KNIGHT_MOBILITY = OFFSETS["knight_mobility"]
BISHOP_MOBILITY = OFFSETS["bishop_mobility"]
ROOK_MOBILITY = OFFSETS["rook_mobility"]
QUEEN_MOBILITY = OFFSETS["queen_mobility"]
DOUBLED_PAWN = OFFSETS["doubled_pawn"]
ISOLATED_PAWN = OFFSETS["isolated_pawn"]
PASSED_PAWN = OFFSETS["passed_pawn"]
PASSED_BLOCKED = OFFSETS["passed_blocked"]
PASSED_OWN_KING = OFFSETS["passed_own_king"]
PASSED_ENEMY_KING = OFFSETS["passed_enemy_king"]
KING_SHELTER = OFFSETS["king_shelter"]
KING_ATTACK = OFFSETS["king_attack"]
BISHOP_PAIR = OFFSETS["bishop_pair"]
ROOK_OPEN_FILE = OFFSETS["rook_open_file"]
ROOK_SEMI_OPEN_FILE = OFFSETS["rook_semi_open_file"]
THREAT_BY_PAWN = OFFSETS["threat_by_pawn"]
THREAT_BY_MINOR = OFFSETS["threat_by_minor"]
THREAT_BY_ROOK = OFFSETS["threat_by_rook"]
TEMPO = OFFSETS["tempo"]
KING_DANGER = OFFSETS["king_danger"]
PHASE = CONSTANT_OFFSETS["phase"]
PHASE_TOTAL = CONSTANT_OFFSETS["phase_total"]
KING_DANGER_SCALE = CONSTANT_OFFSETS["king_danger_scale"]

# How the i-th pair of a block is named, where a plain index would not say enough.
_LABELS = {
    "material": lambda i: PIECE_LETTERS[i],
    "pst": lambda i: f"{PIECE_LETTERS[i // 64]},{SQUARE_NAMES[i % 64]}",
    "passed_pawn": lambda i: f"rank{i + 2}",
    "passed_blocked": lambda i: f"rank{i + 2}",
    "passed_own_king": lambda i: f"rank{i + 2}",
    "passed_enemy_king": lambda i: f"rank{i + 2}",
    "king_attack": lambda i: SLIDER_AND_KNIGHT_LETTERS[i],
    "king_danger": lambda i: DANGER_LABELS[i],
}


@functools.cache
def weight_names() -> tuple[str, ...]:
    """The name of each weight pair, in array order: ``tempo``, ``material[Q]``, ``pst[N,f3]``, ``rook_mobility[7]``."""
    names = []
    for name, count in TERMS:
        if count == 1:
            names.append(name)
        else:
            label = _LABELS.get(name, str)
            names.extend(f"{name}[{label(i)}]" for i in range(count))
    return tuple(names)


# Pairs the tuner never changes: the king's material (one king a side, so it
# always cancels) and pawn squares on the first and last ranks (no pawn stands there).
FROZEN = ("material[K]",) + tuple(f"pst[P,{SQUARE_NAMES[sq]}]" for sq in (*range(8), *range(56, 64)))


def pair_index(name: str) -> int:
    """The index of the weight pair called ``name`` (see :func:`weight_names`)."""
    try:
        return weight_names().index(name)
    except ValueError:
        raise ValueError(f"weights: no weight pair named {name!r}") from None


def frozen_mask(names=FROZEN) -> np.ndarray:
    """A boolean array over the weight pairs, true for those named in ``names``."""
    mask = np.zeros(WEIGHT_PAIRS, dtype=bool)
    for name in names:
        mask[pair_index(name)] = True
    return mask


def score_from_trace(coefficients: np.ndarray, danger: np.ndarray, weights: np.ndarray) -> tuple[int, int]:
    """(mg, eg) from white's point of view, as the evaluation computes it, from a trace and the weights.

    ``coefficients`` (one per pair) times the pairs is the linear part;
    ``danger`` (the king-danger input counts, white attacking first, shape
    (2, DANGER_INPUTS)) adds each side's king-danger score: its attack units
    per half, clamped at 0, squared and divided in the middlegame, divided in
    the endgame (floor division, as the kernel does).
    """
    pairs = np.asarray(weights[: 2 * WEIGHT_PAIRS], dtype=np.int64).reshape(WEIGHT_PAIRS, 2)
    mg, eg = (int(x) for x in np.asarray(coefficients, dtype=np.int64) @ pairs)
    scale_mg, scale_eg = (int(x) for x in weights[KING_DANGER_SCALE : KING_DANGER_SCALE + 2])
    block = pairs[KING_DANGER : KING_DANGER + DANGER_INPUTS]
    for side, sign in ((0, 1), (1, -1)):
        units_mg, units_eg = (max(int(x), 0) for x in np.asarray(danger[side], dtype=np.int64) @ block)
        mg += sign * (units_mg * units_mg // scale_mg)
        eg += sign * (units_eg // scale_eg)
    return mg, eg


def weights_from_dict(data: dict[str, list]) -> np.ndarray:
    """The flat array from the weight file's dictionary; ``ValueError`` if a block is missing or wrong."""
    weights = np.zeros(WEIGHTS_SIZE, dtype=np.int64)
    for name, count in TERMS:
        pairs = data.get(name)
        if pairs is None or len(pairs) != count or any(len(pair) != 2 for pair in pairs):
            raise ValueError(f"weights: {name!r} needs {count} (mg, eg) pairs")
        weights[2 * OFFSETS[name] : 2 * (OFFSETS[name] + count)] = np.asarray(pairs, dtype=np.int64).ravel()
    for name, count in CONSTANTS:
        values = data.get(name)
        if values is None or len(values) != count:
            raise ValueError(f"weights: {name!r} needs {count} values")
        weights[CONSTANT_OFFSETS[name] : CONSTANT_OFFSETS[name] + count] = values
    phase = weights[PHASE : PHASE + CONSTANTS[0][1]]
    if (phase < 0).any() or weights[PHASE_TOTAL] <= 0:
        raise ValueError("weights: phase weights must be >= 0 and phase_total > 0")
    if (weights[KING_DANGER_SCALE : KING_DANGER_SCALE + 2] <= 0).any():
        raise ValueError("weights: king_danger_scale values must be > 0")
    return weights


def weights_to_dict(weights: np.ndarray) -> dict[str, list]:
    data: dict[str, list] = {}
    for name, count in TERMS:
        data[name] = weights[2 * OFFSETS[name] : 2 * (OFFSETS[name] + count)].reshape(count, 2).tolist()
    for name, count in CONSTANTS:
        data[name] = weights[CONSTANT_OFFSETS[name] : CONSTANT_OFFSETS[name] + count].tolist()
    return data


def load_weights(path: str | Path) -> np.ndarray:
    """The weight array of a file written by :func:`save_weights`."""
    with open(path) as handle:
        return weights_from_dict(json.load(handle))


default_weights = read_once(load_weights, WEIGHTS_FILE, "evaluation weights")


def save_weights(weights: np.ndarray, path: str | Path = WEIGHTS_FILE) -> None:
    """Write ``weights`` in the file format :func:`load_weights` reads (one block per line)."""
    data = weights_to_dict(np.asarray(weights, dtype=np.int64))
    lines = [f'  "{name}": {json.dumps(values)}' for name, values in data.items()]
    with open(path, "w") as handle:
        handle.write("{\n" + ",\n".join(lines) + "\n}\n")
