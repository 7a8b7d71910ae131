"""Training data to traces: parsing, the cache, evaluations equal to the engine's, and the whole command."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import jitfish
from jitfish.eval import evaluate
from jitfish.eval.params import (
    CONSTANT_OFFSETS,
    DANGER_INPUTS,
    FROZEN,
    OFFSETS,
    WEIGHT_PAIRS,
    default_weights,
    frozen_mask,
    load_weights,
)
from tests.eval.test_trace import random_games
from tests.extras import needs
from tuning import trace as T
from tuning.datagen.lines import read_data
from tuning.texel import main

RESULTS = ("1.0", "0.5", "0.0", "1-0", "1/2-1/2", "0-1")


@pytest.fixture(scope="module")
def data_file(tmp_path_factory):
    """400 positions from seeded random games, with made-up scores and results."""
    path = tmp_path_factory.mktemp("texel") / "positions.txt.gz"
    rng = np.random.default_rng(9)
    with gzip.open(path, "wt") as handle:
        for board, _ in random_games(seed=9, wanted=400):
            handle.write(f"{board.fen()} | {int(rng.integers(-300, 300))} | {RESULTS[rng.integers(6)]}\n")
    return path


def test_traced_evaluations_equal_the_engine_within_rounding(data_file):
    traces = T.load_traces(data_file, use_cache=False)
    assert len(traces) == 400 and traces.indptr[-1] == len(traces.index)
    shipped = default_weights()[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)
    evaluations = traces.evaluations(shipped)
    for row, (fen, _, result) in enumerate(read_data(data_file)):
        board = jitfish.Board(fen)
        white_score = evaluate(board) * (1 if board.turn else -1)
        # The taper rounds once; each side's king-danger score rounds down once per half.
        assert abs(evaluations[row] - white_score) < 3, fen
        assert traces.result[row] == result


def test_traces_are_cached_next_to_the_data(data_file, monkeypatch):
    first = T.load_traces(data_file)
    cached = list(data_file.parent.glob(data_file.name + ".traces-*.npz"))
    assert len(cached) == 1

    def no_rebuild(*args):
        raise AssertionError("traces rebuilt although cached")

    monkeypatch.setattr(T, "build_traces", no_rebuild)
    again = T.load_traces(data_file)
    for name in T.Traces.__dataclass_fields__:
        assert np.array_equal(getattr(first, name), getattr(again, name)), name


def test_a_bad_line_is_named(tmp_path):
    path = tmp_path / "bad.txt.gz"
    with gzip.open(path, "wt") as handle:
        handle.write(f"{jitfish.STARTING_FEN} | 10 | 1.0\n{jitfish.STARTING_FEN} | 10 | 2.0\n")
    with pytest.raises(ValueError, match="bad.txt.gz:2"):
        T.load_traces(path)


@needs("matplotlib")
def test_the_command_writes_loadable_weights_and_a_plot(data_file, tmp_path, capsys):
    output, plot = tmp_path / "weights.json", tmp_path / "loss.png"
    assert (
        main(
            [
                str(data_file),
                "--epochs",
                "3",
                "--batch-size",
                "64",
                "--validation",
                "0.2",
                "--output",
                str(output),
                "--plot",
                str(plot),
                "--freeze",
                "tempo",
            ]
        )
        == 0
    )
    assert "epoch   3" in capsys.readouterr().out
    tuned, shipped = load_weights(output), default_weights()
    frozen = frozen_mask(FROZEN + ("tempo",))

    def pairs(w):
        return w[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)

    assert np.array_equal(pairs(tuned)[frozen], pairs(shipped)[frozen])
    assert not np.array_equal(pairs(tuned), pairs(shipped))
    first_constant = min(CONSTANT_OFFSETS.values())
    assert np.array_equal(tuned[first_constant:], shipped[first_constant:])
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs("matplotlib")
def test_the_command_tunes_only_the_blocks_asked_for(data_file, tmp_path, capsys):
    output = tmp_path / "weights.json"
    assert (
        main(
            [
                str(data_file),
                "--epochs",
                "2",
                "--batch-size",
                "64",
                "--output",
                str(output),
                "--plot",
                str(tmp_path / "loss.png"),
                "--only",
                "king_danger",
                "tempo",
            ]
        )
        == 0
    )
    changed = np.flatnonzero((load_weights(output) != default_weights())[: 2 * WEIGHT_PAIRS].reshape(-1, 2).any(axis=1))
    allowed = set(range(OFFSETS["king_danger"], OFFSETS["king_danger"] + DANGER_INPUTS)) | {OFFSETS["tempo"]}
    assert len(changed) and set(changed) <= allowed
    assert main([str(data_file), "--only", "no_such_block"]) == 2
    assert "no_such_block" in capsys.readouterr().err


def test_the_command_reports_a_missing_file(tmp_path, capsys):
    assert main([str(tmp_path / "none.txt.gz")]) == 2
    assert "error:" in capsys.readouterr().err
