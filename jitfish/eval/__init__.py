"""Evaluation: one weight array (:mod:`jitfish.eval.params`) and the terms that use it."""

from __future__ import annotations

import numpy as np

from jitfish.eval.params import TERMS, OFFSETS, default_weights, load_weights, save_weights


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


def evaluate_terms(board, weights: np.ndarray | None = None) -> dict[str, tuple[int, int]]:
    """Each term's (mg, eg) contribution from white's point of view, plus ``phase`` and ``total``.

    Computed by evaluating with every other block of weights set to zero, so
    the terms always add up to what the search sees.
    """
    from jitfish.board.tables import lookup_tables
    from jitfish.eval.evaluation import evaluate_white, game_phase

    p = board.position
    tables = lookup_tables()
    w = default_weights() if weights is None else _read_only(weights)
    result: dict[str, tuple[int, int]] = {}
    for name, count in TERMS:
        masked = np.zeros_like(w)
        lo, hi = 2 * OFFSETS[name], 2 * (OFFSETS[name] + count)
        masked[lo:hi] = w[lo:hi]
        if name == "pst":  # the PST helper also adds material: keep it in its own term
            masked[2 * OFFSETS["material"]:2 * (OFFSETS["material"] + 6)] = 0
        mg, eg = evaluate_white(p.bbs, p.state, tables, _read_only(masked))
        result[name] = (int(mg), int(eg))
    mg, eg = evaluate_white(p.bbs, p.state, tables, w)
    result["total"] = (int(mg), int(eg))
    result["phase"] = (int(game_phase(p.bbs)), 24)
    return result


__all__ = ["evaluate", "evaluate_terms", "default_weights", "load_weights", "save_weights", "TERMS"]
