"""Random quantised networks for the NNUE tests."""

from __future__ import annotations

import numpy as np

from jitfish.nnue.features import FEATURE_COUNT
from jitfish.nnue.format import CRELU, Network


def random_network(
    seed: int, hidden: int = 16, activation: int = CRELU, weight_limit: int = 505, buckets: int = 1
) -> Network:
    """A network with uniform random weights within the trainer's clipping (|weight| <= 1.98 after scaling),
    and ``buckets`` output buckets."""
    rng = np.random.default_rng(seed)
    return Network(
        feature_weights=rng.integers(-weight_limit, weight_limit + 1, (FEATURE_COUNT, hidden)),
        feature_bias=rng.integers(-weight_limit, weight_limit + 1, hidden),
        output_weights=rng.integers(-127, 128, (buckets, 2 * hidden)),
        output_bias=rng.integers(-50_000, 50_000, buckets),
        activation=activation,
    )
