"""The Texel tuner: K fitting, recovery of known weights (king danger's through its square), determinism,
frozen weights (the command is tested in test_trace_data.py)."""

from __future__ import annotations

import numpy as np
import pytest

from tuning.texel import TuneSettings, fit_k, sigmoid, tune
from tuning.trace import Traces

TRUE_K = 0.0123


def synthetic_traces(rng: np.random.Generator, rows: int, pairs: int, per_row: int) -> Traces:
    """Random sparse rows: ``per_row`` distinct pairs each, coefficients -2 ... 2 (never 0), phase uniform."""
    index = np.concatenate([rng.choice(pairs, per_row, replace=False) for _ in range(rows)]).astype(np.int16)
    coefficient = rng.choice([-2, -1, 1, 2], rows * per_row).astype(np.int16)
    return Traces(
        indptr=np.arange(0, rows * per_row + 1, per_row, dtype=np.int64),
        index=index,
        coefficient=coefficient,
        phase=rng.random(rows),
        result=np.zeros(rows),
        score=np.zeros(rows),
    )


def labelled(rng: np.random.Generator, traces: Traces, true_pairs: np.ndarray) -> Traces:
    """Results drawn as games would end if ``sigmoid(TRUE_K * eval)`` were the expected score."""
    expected = sigmoid(TRUE_K * traces.evaluations(true_pairs))
    traces.result = (rng.random(len(traces)) < expected).astype(np.float64)
    traces.score = traces.evaluations(true_pairs)
    return traces


def test_fit_k_finds_a_constructed_minimum():
    """With targets exactly sigmoid(K0 * eval), the error is 0 at K0 and larger elsewhere."""
    rng = np.random.default_rng(1)
    evaluations = rng.uniform(-800, 800, 5000)
    traces = Traces(
        np.zeros(1, np.int64),
        np.zeros(0, np.int16),
        np.zeros(0, np.int16),
        np.zeros(5000),
        result=sigmoid(TRUE_K * evaluations),
        score=np.zeros(5000),
    )
    assert fit_k(evaluations, traces) == pytest.approx(TRUE_K, rel=1e-4)


def test_a_blended_tune_fits_k_to_the_results_alone():
    """A target blended with sigmoid(K * score) would pull K to 0 (both sides 1/2); K comes from the results."""
    rng = np.random.default_rng(2)
    true_pairs = rng.uniform(-150, 150, (10, 2))
    traces = labelled(rng, synthetic_traces(rng, rows=50_000, pairs=10, per_row=6), true_pairs)
    traces.result = sigmoid(TRUE_K * traces.score)
    traces.score = 2 * traces.score
    result = tune(
        traces, true_pairs, np.zeros(10, dtype=bool), TuneSettings(epochs=1, lr=1e-6, lr_final=1e-6, blend=1.0)
    )
    assert result.k == pytest.approx(TRUE_K, rel=1e-3)
    assert result.initial_loss > 1e-3  # the scores say twice the evaluation: a real error to fit


def test_tuner_recovers_known_weights():
    rng = np.random.default_rng(7)
    true_pairs = rng.uniform(-150, 150, (30, 2))
    traces = labelled(rng, synthetic_traces(rng, rows=150_000, pairs=30, per_row=8), true_pairs)
    free = np.zeros(30, dtype=bool)
    settings = TuneSettings(epochs=40, batch_size=4096, lr=4.0, lr_final=0.05, k=TRUE_K, seed=3)
    result = tune(traces, np.zeros((30, 2)), free, settings)
    error = np.abs(result.pairs - true_pairs)
    assert error.max() < 10, error.max()  # what 150,000 game results allow (about 4 here)
    assert error.mean() < 3, error.mean()
    assert result.train_loss[-1] < result.initial_loss
    # With noise-free targets (the expected score itself) the weights come back almost exactly.
    traces.result = sigmoid(TRUE_K * traces.score)
    exact = tune(traces, np.zeros((30, 2)), free, settings)
    assert np.abs(exact.pairs - true_pairs).max() < 0.5
    # And K is found from the results alone.
    fitted = tune(traces, true_pairs, free, TuneSettings(epochs=1, lr=1e-6, lr_final=1e-6)).k
    assert fitted == pytest.approx(TRUE_K, rel=1e-3)


def test_tuner_recovers_king_danger_weights_through_the_square():
    """Three danger inputs (the last always 1, a bias) score ``max(units, 0) ** 2 / 16`` in the middlegame and
    ``max(units, 0) / 4`` in the endgame for each side; from a start 40 % off, the tuner finds them again."""
    rng = np.random.default_rng(9)
    linear = 6
    true_pairs = np.vstack([rng.uniform(-150, 150, (linear, 2)), [[12.0, 30.0], [18.0, 20.0], [-30.0, -40.0]]])
    traces = synthetic_traces(rng, rows=100_000, pairs=linear, per_row=3)
    danger = rng.integers(0, 5, (len(traces), 2, 3)).astype(np.int16)
    danger[:, :, 2] = 1
    traces = Traces(
        traces.indptr,
        traces.index,
        traces.coefficient,
        traces.phase,
        traces.result,
        traces.score,
        danger=danger,
        danger_first=linear,
        danger_scale=np.array([16.0, 4.0]),
    )
    traces = labelled(rng, traces, true_pairs)
    traces.result = sigmoid(TRUE_K * traces.score)  # noise-free: the expected score itself
    start = true_pairs.copy()
    start[linear:] *= 0.6
    settings = TuneSettings(epochs=30, batch_size=2048, lr=2.0, lr_final=0.05, k=TRUE_K, seed=1)
    result = tune(traces, start, np.zeros(len(true_pairs), dtype=bool), settings)
    assert np.abs(result.pairs - true_pairs).max() < 1.0, result.pairs - true_pairs
    # The gradient is real: without it the danger weights would stay where they started.
    assert np.abs(start - true_pairs)[linear:].min() > 4


def test_frozen_weights_keep_their_values():
    rng = np.random.default_rng(4)
    true_pairs = rng.uniform(-100, 100, (12, 2))
    traces = labelled(rng, synthetic_traces(rng, rows=20_000, pairs=12, per_row=4), true_pairs)
    start = true_pairs + 30
    frozen = np.zeros(12, dtype=bool)
    frozen[[2, 7]] = True
    settings = TuneSettings(epochs=5, batch_size=1000, lr=4.0, k=TRUE_K)
    result = tune(traces, start, frozen, settings)
    assert np.array_equal(result.pairs[frozen], start[frozen])
    assert np.abs(result.pairs - start)[~frozen].min() > 1
    unfrozen = tune(traces, start, np.zeros(12, dtype=bool), settings)
    assert np.abs(unfrozen.pairs - start)[frozen].min() > 1


def test_tuning_is_deterministic_for_a_seed():
    rng = np.random.default_rng(2)
    traces = labelled(rng, synthetic_traces(rng, rows=20_000, pairs=12, per_row=4), rng.uniform(-100, 100, (12, 2)))
    frozen = np.zeros(12, dtype=bool)
    runs = [
        tune(traces, np.zeros((12, 2)), frozen, TuneSettings(epochs=3, batch_size=1000, seed=seed, validation=0.1))
        for seed in (5, 5, 6)
    ]
    assert np.array_equal(runs[0].pairs, runs[1].pairs)
    assert runs[0].train_loss == runs[1].train_loss and runs[0].validation_loss == runs[1].validation_loss
    assert not np.array_equal(runs[0].pairs, runs[2].pairs)
