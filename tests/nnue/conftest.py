"""The NNUE tests' sample positions (NumPy only: nothing here compiles a kernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuning.datagen.lines import read_data

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "datagen_sample.gz"


@pytest.fixture(scope="session")
def sample_fens() -> list[str]:
    """Every 30th position of the shipped self-play sample (100 positions)."""
    return [fen for fen, _, _ in read_data(SAMPLE, check_position=False)][::30]
