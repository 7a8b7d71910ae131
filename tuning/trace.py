"""Training positions as evaluation traces: the sparse coefficient matrix the Texel tuner fits.

The data are gzip text lines ``FEN | score | result`` (score in centipawns and
result 1.0 / 0.5 / 0.0, both from white's point of view; ``1-0``, ``1/2-1/2``
and ``0-1`` are read too), read by :func:`tuning.datagen.lines.read_data`.  Each position is run once through the
evaluation's tracing build (:func:`jitfish.eval.evaluation.trace_evaluation`),
which gives white-minus-black counts of every weight pair, each side's
king-danger input counts, and the game phase.  The evaluation is then::

    eval = sum_k coefficient_k * (rho * mg_k + (1 - rho) * eg_k)
           + sum_side sign_side * (rho * units_mg(side) ** 2 / scale_mg + (1 - rho) * units_eg(side) / scale_eg)

with ``rho = phase / phase_total`` and ``units(side) = max(0, sum_j danger_j(side)
* king_danger_j)`` (white's view, before the engine's roundings), which is
all the tuner needs: the board is never looked at again.  The first sum is
linear in the weights; the second is not, and :mod:`tuning.texel` follows
its gradient.

The matrix is kept as compact CSR in numpy (row pointers, pair indices,
``int16`` coefficients, about 60 non-zeros a position), the danger inputs as
a dense ``int16`` array (two rows of ten a position), and cached next to the
data in a ``.npz`` keyed by the data file's digest and the evaluation's
layout (weight names, phase constants, kernel sources), so a changed
evaluation never reuses stale traces.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.eval.evaluation import trace_evaluation
from jitfish.eval.params import (
    CONSTANT_OFFSETS,
    DANGER_INPUTS,
    DANGER_TRACE,
    KING_DANGER,
    KING_DANGER_SCALE,
    PHASE_TOTAL,
    TRACE_SIZE,
    WEIGHT_PAIRS,
    default_weights,
    weight_names,
)
from jitfish.runtime.jit import kernel, source_digest
from tuning.datagen.lines import read_data

CACHE_VERSION = 2


@dataclass
class Traces:
    """Positions as rows of a sparse coefficient matrix, with their king-danger inputs and labels.

    Row ``i`` holds ``coefficient[indptr[i]:indptr[i + 1]]`` for the pairs
    ``index[indptr[i]:indptr[i + 1]]``; ``phase`` is rho in [0, 1] (the
    middlegame share), ``result`` and ``score`` are white's.  ``danger[i, side]``
    counts the inputs of the pairs from ``danger_first`` on for the side
    attacking (white first), scored with the divisors ``danger_scale``; data
    without such a term (the tests' synthetic sets) have zero inputs.
    """

    indptr: np.ndarray  # int64, rows + 1
    index: np.ndarray  # int16 pair index per non-zero
    coefficient: np.ndarray  # int16
    phase: np.ndarray  # float64 rho per row
    result: np.ndarray  # float64 per row: 1 white won, 0.5 draw, 0 black won
    score: np.ndarray  # float64 per row: the search's score (cp, white's view)
    danger: np.ndarray | None = None  # int16 (rows, 2, inputs)
    danger_first: int = 0  # the pair of the first input
    danger_scale: np.ndarray = field(default_factory=lambda: np.ones(2))  # float64 (mg, eg) divisors

    def __post_init__(self) -> None:
        if self.danger is None:
            self.danger = np.zeros((len(self.phase), 2, 0), dtype=np.int16)
        self.danger_first = int(self.danger_first)
        self.danger_scale = np.asarray(self.danger_scale, dtype=np.float64)

    def __len__(self) -> int:
        return len(self.phase)

    def evaluations(self, pairs: np.ndarray) -> np.ndarray:
        """Every row's evaluation (white's view, unrounded) for ``pairs`` of shape (pairs, 2)."""
        out = np.empty(len(self), dtype=np.float64)
        _evaluations(
            self.indptr,
            self.index,
            self.coefficient,
            self.phase,
            self.danger,
            self.danger_first,
            self.danger_scale,
            np.ascontiguousarray(pairs, dtype=np.float64),
            out,
        )
        return out

    def rows(self, rows: np.ndarray) -> Traces:
        """The labels, phases and danger inputs of ``rows`` only, without the sparse matrix."""
        return Traces(
            np.zeros(1, np.int64),
            self.index[:0],
            self.coefficient[:0],
            self.phase[rows],
            self.result[rows],
            self.score[rows],
            self.danger[rows],
            self.danger_first,
            self.danger_scale,
        )

    def save(self, path: Path) -> None:
        np.savez(path, **{name: getattr(self, name) for name in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: Path) -> Traces:
        with np.load(path) as data:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__})


@kernel(inline=True)
def danger_units(danger, row, side, pairs, first):
    """One side's king-danger attack units (mg, eg) in a row, clamped at 0 as the evaluation clamps them."""
    units_mg = 0.0
    units_eg = 0.0
    for j in range(danger.shape[2]):
        units_mg += danger[row, side, j] * pairs[first + j, 0]
        units_eg += danger[row, side, j] * pairs[first + j, 1]
    return max(units_mg, 0.0), max(units_eg, 0.0)


@kernel(inline=True)
def row_halves(indptr, index, coefficient, danger, first, scale, pairs, row):
    """A row's (mg, eg) from white's view, unrounded: the sparse coefficients times the pairs, plus king danger
    (white's attack score minus black's)."""
    mg = 0.0
    eg = 0.0
    for side in range(2):
        sign = 1.0 - 2.0 * side
        units_mg, units_eg = danger_units(danger, row, side, pairs, first)
        mg += sign * units_mg * units_mg / scale[0]
        eg += sign * units_eg / scale[1]
    for k in range(indptr[row], indptr[row + 1]):
        mg += coefficient[k] * pairs[index[k], 0]
        eg += coefficient[k] * pairs[index[k], 1]
    return mg, eg


@kernel
def _evaluations(indptr, index, coefficient, phase, danger, first, scale, pairs, out):
    for row in range(len(out)):
        mg, eg = row_halves(indptr, index, coefficient, danger, first, scale, pairs, row)
        out[row] = phase[row] * mg + (1.0 - phase[row]) * eg


@kernel
def _append_trace(bbs, state, tables, weights, scratch, index, coefficient, at, danger_row):
    """Trace one position into ``scratch``, append its non-zeros at ``at`` and its danger inputs to ``danger_row``.

    Returns (new end, phase).
    """
    scratch[:] = 0
    _, _, phase = trace_evaluation(bbs, state, tables, weights, scratch)
    for pair in range(WEIGHT_PAIRS):
        if scratch[pair] != 0:
            index[at] = pair
            coefficient[at] = scratch[pair]
            at += 1
    for j in range(2 * DANGER_INPUTS):
        danger_row[j] = scratch[DANGER_TRACE + j]
    return at, phase


def build_traces(lines, weights: np.ndarray | None = None) -> Traces:
    """Trace every ``(fen, score, result)`` of ``lines``."""
    weights = default_weights() if weights is None else weights
    tables = lookup_tables()
    scratch = np.zeros(TRACE_SIZE, dtype=np.int64)
    index = np.empty(1 << 16, dtype=np.int16)
    coefficient = np.empty(1 << 16, dtype=np.int16)
    danger = np.empty((1 << 10, 2 * DANGER_INPUTS), dtype=np.int16)
    indptr, phase, result, score = [0], [], [], []
    end = 0
    for fen, position_score, position_result in lines:
        if len(index) - end < WEIGHT_PAIRS:
            index = np.resize(index, 2 * len(index))
            coefficient = np.resize(coefficient, 2 * len(coefficient))
        if len(phase) == len(danger):
            danger = np.resize(danger, (2 * len(danger), 2 * DANGER_INPUTS))
        position = Position.from_fen(fen)
        end, row_phase = _append_trace(
            position.bbs, position.state, tables, weights, scratch, index, coefficient, end, danger[len(phase)]
        )
        indptr.append(end)
        phase.append(row_phase)
        score.append(position_score)
        result.append(position_result)
    return Traces(
        indptr=np.asarray(indptr, dtype=np.int64),
        index=index[:end].copy(),
        coefficient=coefficient[:end].copy(),
        phase=np.asarray(phase, dtype=np.float64) / weights[PHASE_TOTAL],
        result=np.asarray(result, dtype=np.float64),
        score=np.asarray(score, dtype=np.float64),
        danger=danger[: len(phase)].reshape(-1, 2, DANGER_INPUTS).copy(),
        danger_first=KING_DANGER,
        danger_scale=weights[KING_DANGER_SCALE : KING_DANGER_SCALE + 2],
    )


def layout_key(weights: np.ndarray) -> str:
    """What the traces depend on besides the data: weight names, phase constants, kernel sources."""
    digest = hashlib.sha1()
    digest.update("\n".join(weight_names()).encode())
    digest.update(weights[min(CONSTANT_OFFSETS.values()) :].tobytes())
    digest.update(source_digest().encode())
    digest.update(str(CACHE_VERSION).encode())
    return digest.hexdigest()[:12]


def file_digest(path: Path) -> str:
    digest = hashlib.sha1()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:12]


def load_traces(path: str | Path, weights: np.ndarray | None = None, use_cache: bool = True) -> Traces:
    """The traces of the data file ``path``, from the cache next to it when it matches, else built and cached."""
    path = Path(path)
    weights = default_weights() if weights is None else weights
    cache = path.with_name(f"{path.name}.traces-{file_digest(path)}-{layout_key(weights)}.npz")
    if use_cache and cache.exists():
        return Traces.load(cache)
    traces = build_traces(read_data(path, check_position=False), weights)
    if use_cache:
        traces.save(cache)
    return traces
