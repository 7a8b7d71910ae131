"""Training positions as evaluation traces: the sparse coefficient matrix the Texel tuner fits.

The data are gzip text lines ``FEN | score | result`` (score in centipawns and
result 1.0 / 0.5 / 0.0, both from white's point of view; ``1-0``, ``1/2-1/2``
and ``0-1`` are read too), read by :func:`tuning.datagen.lines.read_data`.  Each position is run once through the
evaluation's tracing build (:func:`jitfish.eval.evaluation.trace_evaluation`),
which gives white-minus-black counts of every weight pair and the game phase.
The evaluation is then linear in the weights::

    eval = sum_k coefficient_k * (rho * mg_k + (1 - rho) * eg_k),  rho = phase / phase_total

(white's view, before the engine's final rounding), which is all the tuner
needs: the board is never looked at again.

The matrix is kept as compact CSR in numpy (row pointers, pair indices,
``int16`` coefficients, about 60 non-zeros a position) and cached next to the
data in a ``.npz`` keyed by the data file's digest and the evaluation's
layout (weight names, phase constants, kernel sources), so a changed
evaluation never reuses stale traces.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.eval.evaluation import trace_evaluation
from jitfish.eval.params import CONSTANT_OFFSETS, PHASE_TOTAL, WEIGHT_PAIRS, default_weights, weight_names
from jitfish.jit import kernel, source_digest
from tuning.datagen.lines import read_data

CACHE_VERSION = 1


@dataclass
class Traces:
    """Positions as rows of a sparse coefficient matrix, with their labels.

    Row ``i`` holds ``coefficient[indptr[i]:indptr[i + 1]]`` for the pairs
    ``index[indptr[i]:indptr[i + 1]]``; ``phase`` is rho in [0, 1] (the
    middlegame share), ``result`` and ``score`` are white's.
    """

    indptr: np.ndarray        # int64, rows + 1
    index: np.ndarray         # int16 pair index per non-zero
    coefficient: np.ndarray   # int16
    phase: np.ndarray         # float64 rho per row
    result: np.ndarray        # float64 per row: 1 white won, 0.5 draw, 0 black won
    score: np.ndarray         # float64 per row: the search's score (cp, white's view)

    def __len__(self) -> int:
        return len(self.phase)

    def evaluations(self, pairs: np.ndarray) -> np.ndarray:
        """Every row's evaluation (white's view, unrounded) for ``pairs`` of shape (WEIGHT_PAIRS, 2)."""
        out = np.empty(len(self), dtype=np.float64)
        _evaluations(self.indptr, self.index, self.coefficient, self.phase,
                     np.ascontiguousarray(pairs, dtype=np.float64), out)
        return out

    def save(self, path: Path) -> None:
        np.savez(path, **{name: getattr(self, name) for name in self.__dataclass_fields__})

    @classmethod
    def load(cls, path: Path) -> "Traces":
        with np.load(path) as data:
            return cls(**{name: data[name] for name in cls.__dataclass_fields__})


@kernel
def _evaluations(indptr, index, coefficient, phase, pairs, out):
    for row in range(len(out)):
        mg = 0.0
        eg = 0.0
        for k in range(indptr[row], indptr[row + 1]):
            mg += coefficient[k] * pairs[index[k], 0]
            eg += coefficient[k] * pairs[index[k], 1]
        out[row] = phase[row] * mg + (1.0 - phase[row]) * eg


@kernel
def _append_trace(bbs, state, tables, weights, scratch, index, coefficient, at):
    """Trace one position into ``scratch`` and append its non-zeros at ``at``; returns (new end, phase)."""
    scratch[:] = 0
    _, _, phase = trace_evaluation(bbs, state, tables, weights, scratch)
    for pair in range(len(scratch)):
        if scratch[pair] != 0:
            index[at] = pair
            coefficient[at] = scratch[pair]
            at += 1
    return at, phase


def build_traces(lines, weights: np.ndarray | None = None) -> Traces:
    """Trace every ``(fen, score, result)`` of ``lines``."""
    weights = default_weights() if weights is None else weights
    tables = lookup_tables()
    scratch = np.zeros(WEIGHT_PAIRS, dtype=np.int64)
    index = np.empty(1 << 16, dtype=np.int16)
    coefficient = np.empty(1 << 16, dtype=np.int16)
    indptr, phase, result, score = [0], [], [], []
    end = 0
    for fen, position_score, position_result in lines:
        if len(index) - end < WEIGHT_PAIRS:
            index = np.resize(index, 2 * len(index))
            coefficient = np.resize(coefficient, 2 * len(coefficient))
        position = Position.from_fen(fen)
        end, row_phase = _append_trace(position.bbs, position.state, tables, weights, scratch, index,
                                       coefficient, end)
        indptr.append(end)
        phase.append(row_phase)
        score.append(position_score)
        result.append(position_result)
    return Traces(indptr=np.asarray(indptr, dtype=np.int64), index=index[:end].copy(),
                  coefficient=coefficient[:end].copy(),
                  phase=np.asarray(phase, dtype=np.float64) / weights[PHASE_TOTAL],
                  result=np.asarray(result, dtype=np.float64), score=np.asarray(score, dtype=np.float64))


def layout_key(weights: np.ndarray) -> str:
    """What the traces depend on besides the data: weight names, phase constants, kernel sources."""
    digest = hashlib.sha1()
    digest.update("\n".join(weight_names()).encode())
    digest.update(weights[min(CONSTANT_OFFSETS.values()):].tobytes())
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
