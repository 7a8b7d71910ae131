"""Evaluation: one weight array (:mod:`jitfish.eval.params`) and the terms that use it."""

from __future__ import annotations

import numpy as np

from jitfish.eval.params import (
    DANGER_INPUTS,
    DANGER_TRACE,
    FROZEN,
    OFFSETS,
    PHASE_TOTAL,
    TERMS,
    TRACE_SIZE,
    WEIGHT_PAIRS,
    default_weights,
    load_weights,
    save_weights,
    score_from_trace,
    weight_names,
)


def _read_only(weights: np.ndarray) -> np.ndarray:
    """A read-only view: the type the search passes, so the kernels compile once for both."""
    view = weights.view()
    view.flags.writeable = False
    return view


def evaluate(board, weights: np.ndarray | None = None) -> int:
    """Static evaluation of ``board`` in centipawns, from the side to move."""
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.evaluation import evaluate as _evaluate

    p = board.position
    w = default_weights() if weights is None else _read_only(weights)
    return int(_evaluate(p.bbs, p.state, lookup_tables(), w))


def trace(board, weights: np.ndarray | None = None) -> tuple[np.ndarray, int, np.ndarray]:
    """The coefficient of every weight pair in ``board``'s evaluation, the game phase, and the king-danger inputs.

    Coefficients are white's count minus black's (``int64``, one per pair in
    :func:`~jitfish.eval.params.weight_names` order); the king-danger inputs
    are counted per attacking side (shape (2, DANGER_INPUTS), white first),
    because that term is not linear.
    :func:`~jitfish.eval.params.score_from_trace` turns both into the
    evaluation's (mg, eg) from white's point of view, which :func:`taper`
    turns into the score.  ``weights`` only matter for the phase (the counts
    never depend on them).
    """
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.evaluation import trace_evaluation

    p = board.position
    w = default_weights() if weights is None else _read_only(weights)
    traced = np.zeros(TRACE_SIZE, dtype=np.int64)
    _, _, phase = trace_evaluation(p.bbs, p.state, lookup_tables(), w, traced)
    danger = traced[DANGER_TRACE:].reshape(2, DANGER_INPUTS)
    return traced[:WEIGHT_PAIRS], int(phase), danger


def taper(mg: int, eg: int, phase: int, white_to_move: bool, weights: np.ndarray | None = None) -> int:
    """The engine's score for the side to move from white's (mg, eg) and the phase, rounded as the engine rounds."""
    total = int((default_weights() if weights is None else weights)[PHASE_TOTAL])
    sign = 1 if white_to_move else -1
    return (sign * (mg * phase + eg * (total - phase))) // total


def evaluate_terms(board, weights: np.ndarray | None = None) -> dict[str, tuple[int, int]]:
    """Each term's (mg, eg) contribution from white's point of view, plus ``phase`` and ``total``.

    Read from the tracing build (coefficient × weight, summed per block; the
    king-danger score from its inputs), while ``total`` comes from the
    search's build: a test checks they agree.
    """
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.evaluation import evaluate_white

    p = board.position
    w = default_weights() if weights is None else _read_only(weights)
    coefficients, phase, danger = trace(board, w)
    contributions = coefficients[:, None] * w[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)
    result: dict[str, tuple[int, int]] = {}
    for name, count in TERMS:
        mg, eg = contributions[OFFSETS[name] : OFFSETS[name] + count].sum(axis=0)
        result[name] = (int(mg), int(eg))
    result["king_danger"] = score_from_trace(np.zeros(WEIGHT_PAIRS, dtype=np.int64), danger, w)
    mg, eg = evaluate_white(p.bbs, p.state, lookup_tables(), w)
    result["total"] = (int(mg), int(eg))
    result["phase"] = (phase, int(w[PHASE_TOTAL]))
    return result


__all__ = [
    "evaluate",
    "evaluate_terms",
    "trace",
    "taper",
    "default_weights",
    "load_weights",
    "save_weights",
    "weight_names",
    "TERMS",
    "FROZEN",
]
