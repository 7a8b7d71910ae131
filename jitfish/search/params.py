"""The search's tunable parameters: one flat ``int64`` array and the names of its slots.

Every pruning margin, reduction, extension threshold, the aspiration window
and the time-management factors are named once, as a row of :class:`Param`
below, with the range a tuner may move them in and their SPSA steps.  The
member is also the parameter's slot of the array (``params[Param.RFP_MARGIN]``),
numbered by its place in the list: no index is typed, and a kernel imports
``Param`` alone, so a new parameter is one row here, its value in
``search_params.json`` next to this file (``{name: value}``, which
``python -m tuning.spsa`` rewrites) and its use.

Why an array: Numba freezes module globals at compile time, so a margin
written as a global could only change by recompiling the search.  The
kernels receive this array as an argument (``params``), so ``setoption``
in ``--tune`` mode, or a tuner, changes a margin for the next search at no
compile cost.

Every value is an integer (UCI ``spin`` options are).  A factor that is a
fraction is stored in hundredths, its name ending in ``_PCT``; the Python
code that reads it divides by 100 (``75 / 100 == 0.75`` exactly, so the
shipped values give bit-for-bit the results of the old float constants).
Values that shape buffers (array sizes, the deepest ply) are not here:
they stay constants of the modules that own them.

Who reads what: ``negamax`` and its steps, the move picker and the history
tables read the search slots in compiled code; :mod:`jitfish.search.worker`
reads ``ASPIRATION_DELTA`` and builds the late-move reduction table from
``LMR_BASE_PCT`` and ``LMR_DIVISOR_PCT`` (in Python: for each worker, and
again when :meth:`Searcher.set_param <jitfish.search.searcher.Searcher.set_param>`
changes one); :mod:`jitfish.search.timeman` reads the ``TM_*`` slots.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import IntEnum
from pathlib import Path

import numpy as np

from jitfish.runtime.shipped import read_once

PARAMS_FILE = Path(__file__).resolve().parent / "search_params.json"


class Param(IntEnum):
    """A search parameter, named once: its slot of the array, the range it may take, its SPSA steps and
    what it means.

    Each member is one row below, ``NAME = low, high, c_end, r_end, meaning``; its value, the slot of
    the parameter array that holds it, is its place in the list (rows are in array order).  Kernels read
    ``params[Param.RFP_MARGIN]``: Numba types an ``IntEnum`` member as a constant, so the index is folded
    into the machine code as a plain integer's would be.  ``c_end`` is SPSA's perturbation at the last
    iteration (in the parameter's units) and ``r_end`` its learning rate there (``a_end / c_end**2``), as
    Fishtest names them.  Depths are in plies, margins in centipawns.
    """

    low: int
    high: int
    c_end: float
    r_end: float
    meaning: str

    def __new__(cls, low: int, high: int, c_end: float, r_end: float, meaning: str) -> Param:
        index = len(cls.__members__)  # the rows before this one
        member = int.__new__(cls, index)
        member._value_ = index
        member.low, member.high, member.c_end, member.r_end, member.meaning = low, high, c_end, r_end, meaning
        return member

    RFP_MAX_DEPTH = 2, 16, 1, 0.002, "reverse futility pruning: only at this depth or less"
    RFP_MARGIN = 20, 250, 8, 0.002, "... the static eval must beat beta by this per ply"
    NMP_MIN_DEPTH = 1, 8, 1, 0.002, "null move pruning: from this depth"
    NMP_MIN_PIECES = 1, 4, 1, 0.002, "... with at least this many pieces besides king and pawns (zugzwang)"
    NMP_BASE_REDUCTION = 1, 6, 1, 0.002, "... reduce by this"
    NMP_DEPTH_DIVISOR = 2, 10, 1, 0.002, "... plus depth / this"
    NMP_EVAL_DIVISOR = 50, 600, 20, 0.002, "... plus (eval - beta) / this"
    NMP_EVAL_MAX = 0, 6, 1, 0.002, "... (that last part at most this)"
    NMP_VERIFY_DEPTH = 6, 24, 1, 0.002, "... from this depth a cut-off is verified (zugzwang)"
    NMP_VERIFY_PLIES_PCT = 25, 100, 5, 0.002, "... with no null move for this share of the reduced depth (hundredths)"
    IIR_MIN_DEPTH = 2, 10, 1, 0.002, "internal iterative reduction without a TT move: from this depth"
    RAZOR_MAX_DEPTH = 1, 8, 1, 0.002, "razoring: at this depth or less, quiescence decides a node ..."
    RAZOR_BASE = 0, 800, 25, 0.002, "... whose eval + base + margin * depth^2 is below alpha"
    RAZOR_MARGIN = 20, 600, 15, 0.002, "... (the margin)"
    PROBCUT_MIN_DEPTH = 3, 12, 1, 0.002, "ProbCut: from this depth, a capture beating beta + margin ..."
    PROBCUT_MARGIN = 40, 500, 15, 0.002, "... (the margin) ..."
    PROBCUT_REDUCTION = 2, 6, 1, 0.002, "... in a search this much shallower cuts the node off"
    FUTILITY_MAX_DEPTH = 1, 12, 1, 0.002, "futility pruning of quiet moves: at this depth or less"
    FUTILITY_BASE = 0, 300, 10, 0.002, "... when eval + base + margin * depth <= alpha"
    FUTILITY_MARGIN = 20, 250, 8, 0.002, "... (the margin)"
    LMP_MAX_DEPTH = 1, 16, 1, 0.002, "late move pruning: at this depth or less, quiet moves past base + depth^2"
    LMP_BASE = 0, 12, 1, 0.002, "... (the base; the limit is halved when not improving)"
    SEE_QUIET_MARGIN = 10, 200, 6, 0.002, "prune quiets losing more than this per ply^2 by SEE"
    SEE_CAPTURE_MARGIN = 10, 300, 8, 0.002, "prune captures losing more than this per ply by SEE"
    SEE_MAX_DEPTH = 1, 16, 1, 0.002, "... both at this depth or less"
    LMR_MIN_DEPTH = 1, 8, 1, 0.002, "late move reductions: from this depth"
    LMR_BASE_PCT = 0, 250, 10, 0.002, "... r = base + ln(depth) * ln(move number) / divisor (hundredths)"
    LMR_DIVISOR_PCT = 100, 600, 15, 0.002, "... (the divisor, hundredths)"
    LMR_HISTORY_DIVISOR = 1024, 32768, 600, 0.002, "... one ply less per this much history score"
    LMR_HISTORY_MAX = 1, 4, 1, 0.002, "... (at most this many plies more or less)"
    LMR_NOISY_OFFSET = 0, 4, 1, 0.002, "... a losing capture is reduced this much less than a quiet"
    HISTORY_PRUNE_MAX_DEPTH = 1, 8, 1, 0.002, "history pruning of late quiet moves: at this depth or less"
    HISTORY_PRUNE_MARGIN = 1000, 16000, 400, 0.002, "... when their history is below -this * depth"
    CAPTURE_MVV_LVA_WEIGHT = 64, 1024, 30, 0.002, "captures are ordered by MVV-LVA * this + capture history"
    SEE_CAPTURE_HISTORY_DIVISOR = (
        8,
        256,
        8,
        0.002,
        "SEE pruning of captures: the threshold falls by capture history / this (at most the margin)",
    )
    HISTORY_BONUS_DEPTH2 = 0, 64, 2, 0.002, "history bonus of a cut-off: this * depth^2 ..."
    HISTORY_BONUS_DEPTH = 0, 128, 4, 0.002, "... + this * depth ..."
    HISTORY_BONUS_MAX = 400, 4000, 100, 0.002, "... at most this"
    HISTORY_MALUS_PCT = 50, 200, 6, 0.002, "history malus of the moves tried before it: this share of the bonus"
    SE_MIN_DEPTH = 4, 16, 1, 0.002, "singular extension: from this depth"
    SE_TT_DEPTH_SLACK = 1, 8, 1, 0.002, "... when the TT entry's draft is at least depth - this"
    SE_MARGIN = 1, 8, 1, 0.002, "... singular beta = TT score - this * depth"
    CORRECTION_PAWN_CP = 0, 200, 6, 0.002, "eval correction history: a full pawn-structure entry adds this"
    CORRECTION_NON_PAWN_CP = 0, 200, 6, 0.002, "... a full entry of one colour's other pieces adds this"
    CORRECTION_CONTINUATION_CP = 0, 200, 6, 0.002, "... a full entry of the last two moves adds this"
    CORRECTION_BONUS_DIVISOR = 2, 32, 1, 0.002, "... a result moves an entry by its error * depth / this"
    ASPIRATION_DELTA = 5, 150, 4, 0.002, "first aspiration half-window (doubled on each failure)"
    TM_MOVES_TO_GO = 10, 80, 3, 0.002, "time management: moves the game is assumed to last without movestogo"
    TM_HARD_TO_SOFT_PCT = 150, 1000, 30, 0.002, "... the hard limit is at most this many ideal times (hundredths)"
    TM_MAX_CLOCK_PCT = 10, 90, 3, 0.002, "... and at most this share of the clock (hundredths)"
    TM_LAST_MOVE_CLOCK_PCT = 20, 95, 3, 0.002, "... or this share on the last move before the time control (hundredths)"
    TM_UNSTABLE_PCT = (
        80,
        250,
        6,
        0.002,
        "... after each iteration, no new one once past the soft limit times: a best move that just "
        "changed, this (hundredths)",
    )
    TM_STABLE_STEP_PCT = 0, 40, 2, 0.002, "... less this for each iteration it stayed the same"
    TM_STABLE_FLOOR_PCT = 20, 100, 4, 0.002, "... down to this"
    TM_EFFORT_BASE_PCT = (
        100,
        300,
        8,
        0.002,
        "... times this, less the share of the root's nodes spent under the best move times",
    )
    TM_EFFORT_SLOPE_PCT = 0, 250, 8, 0.002, "... this (hundredths)"
    TM_SCORE_DROP_CP = (
        20,
        400,
        10,
        0.002,
        "... times 1 + the fall of the score over two iterations divided by this (centipawns)",
    )
    TM_MAX_SCALE_PCT = 100, 400, 10, 0.002, "... all of it at most this (hundredths)"


FIELDS: tuple[Param, ...] = tuple(Param)  # in array order
PARAMS_SIZE = len(FIELDS)
INDEX: dict[str, int] = {field.name: int(field) for field in FIELDS}
BY_NAME: dict[str, Param] = {field.name: field for field in FIELDS}


def check_value(name: str, value: object) -> int:
    """``value`` as the integer parameter ``name`` takes; ``ValueError`` naming the problem."""
    field = BY_NAME.get(name)
    if field is None:
        raise ValueError(f"search params: unknown parameter {name!r}")
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"search params: {name} must be an integer, got {value!r}")
    if not field.low <= value <= field.high:
        raise ValueError(f"search params: {name} = {value} is out of range [{field.low}, {field.high}]")
    return int(value)


def params_from_dict(values: Mapping[str, object], base: np.ndarray | None = None) -> np.ndarray:
    """The array from ``{name: value}``; ``ValueError`` on an unknown name or a value out of range.

    Without ``base`` every parameter must be given; with it, the names given replace its values.
    """
    params = np.zeros(PARAMS_SIZE, dtype=np.int64) if base is None else np.array(base, dtype=np.int64)
    unknown = sorted(set(values) - set(INDEX))
    if unknown:
        raise ValueError(f"search params: unknown parameter(s) {', '.join(unknown)}")
    missing = [field.name for field in FIELDS if field.name not in values]
    if base is None and missing:
        raise ValueError(f"search params: missing {', '.join(missing)}")
    for name, value in values.items():
        params[INDEX[name]] = check_value(name, value)
    return params


def params_to_dict(params: np.ndarray) -> dict[str, int]:
    return {field.name: int(params[index]) for index, field in enumerate(FIELDS)}


def checked_params(params: np.ndarray) -> np.ndarray:
    """A fresh ``int64`` copy of a parameter array; ``ValueError`` if its length or a value is wrong."""
    params = np.asarray(params)
    if params.shape != (PARAMS_SIZE,):
        raise ValueError(f"search params: expected {PARAMS_SIZE} values, got an array of shape {params.shape}")
    return params_from_dict({field.name: params[index].item() for index, field in enumerate(FIELDS)})


def load_params(path: str | Path = PARAMS_FILE) -> np.ndarray:
    """The parameter array from a ``{name: value}`` JSON file (every parameter, checked)."""
    with open(path) as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise ValueError(f"search params: {path} must hold a JSON object of name: value")
    return params_from_dict(data)


def save_params(params: np.ndarray, path: str | Path = PARAMS_FILE) -> None:
    """Write ``params`` as :func:`load_params` reads it, one parameter per line, in array order."""
    data = params_to_dict(checked_params(params))  # checked before anything is written
    lines = [f'  "{name}": {value}' for name, value in data.items()]
    with open(path, "w") as handle:
        handle.write("{\n" + ",\n".join(lines) + "\n}\n")


default_params = read_once(load_params, PARAMS_FILE, "search parameters")
