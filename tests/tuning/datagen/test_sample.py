"""The shipped sample (``tests/data/datagen_sample.gz``, made by the command in the README) is valid data."""

from __future__ import annotations

from pathlib import Path

import chess

from tuning.datagen.lines import read_data

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "datagen_sample.gz"


def test_the_sample_is_well_formed_quiet_data():
    data = list(read_data(SAMPLE))  # every line parses to a legal position, an int score and a result
    assert len(data) == 3000
    assert {result for _, _, result in data} == {0.0, 0.5, 1.0}
    assert not any(chess.Board(fen).is_check() for fen, _, _ in data)
    assert len({fen for fen, _, _ in data}) > 0.95 * len(data)  # games differ, openings are random
