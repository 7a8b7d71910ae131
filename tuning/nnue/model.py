"""The float network in PyTorch, and its quantisation to the file format (:mod:`jitfish.nnue.format`).

One feature transformer (an ``EmbeddingBag`` summing the rows of the active features, plus a bias) is
shared by both perspectives; the two accumulators are clipped to [0, 1] (and squared for screlu),
concatenated side to move first, and a linear output gives ``y``: with ``K`` output buckets, ``K``
outputs of which the position's bucket (its piece count, :func:`jitfish.nnue.format.output_bucket`) is
taken, so each bucket's weights learn from its own positions only.  The score is ``y * scale``
centipawns for the side to move.  This is the float network that :func:`jitfish.nnue.reference.
evaluate_float` describes, so quantising is a rounding of every value to the file's integer units:
feature weights and biases times QA, output weights times QB, the output bias times QA * QB.

``WEIGHT_CLIP`` bounds every weight and bias but the output bias after each optimiser step, so that
the quantised values fit int16 with room to spare (1.98 * 255 = 505) and an accumulator of 32 pieces
and the bias stays within int16 too (33 * 505 = 16,665).
"""

from __future__ import annotations

import numpy as np
import torch

from jitfish.nnue.features import FEATURE_COUNT
from jitfish.nnue.format import (
    ACTIVATION_NAMES,
    DEFAULT_QA,
    DEFAULT_QB,
    DEFAULT_SCALE,
    MAX_BUCKETS,
    Network,
    output_bucket,
)
from tuning.nnue.data import Batch

WEIGHT_CLIP = 1.98
MAX_ACTIVE_FEATURES = 32  # pieces on a legal board: sets the scale of the first layer's initial weights


class NnueModel(torch.nn.Module):
    def __init__(self, hidden: int, activation: str = "crelu", buckets: int = 1) -> None:
        super().__init__()
        if activation not in ACTIVATION_NAMES:
            raise ValueError(f"activation must be one of {ACTIVATION_NAMES}, not {activation!r}")
        if not 1 <= buckets <= MAX_BUCKETS:
            raise ValueError(f"output buckets must be in 1..{MAX_BUCKETS}, not {buckets}")
        self.hidden = hidden
        self.activation = activation
        self.buckets = buckets
        self.feature_weights = torch.nn.EmbeddingBag(FEATURE_COUNT, hidden, mode="sum")
        self.feature_bias = torch.nn.Parameter(torch.zeros(hidden))
        self.output = torch.nn.Linear(2 * hidden, buckets)
        bound = 1.0 / MAX_ACTIVE_FEATURES**0.5
        torch.nn.init.uniform_(self.feature_weights.weight, -bound, bound)

    def accumulator(self, features: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return self.feature_weights(features, offsets) + self.feature_bias

    def forward(
        self, us_features: torch.Tensor, them_features: torch.Tensor, offsets: torch.Tensor, buckets: torch.Tensor
    ) -> torch.Tensor:
        """``y`` of each position (the score is ``y * scale`` centipawns for the side to move), read from
        output ``buckets[i]`` for position ``i``."""
        hidden = torch.cat((self.accumulator(us_features, offsets), self.accumulator(them_features, offsets)), 1)
        hidden = torch.clamp(hidden, 0.0, 1.0)
        if self.activation == "screlu":
            hidden = hidden * hidden
        return self.output(hidden).gather(1, buckets.reshape(-1, 1)).squeeze(1)

    @torch.no_grad()
    def clip_weights(self) -> None:
        for parameter in (self.feature_weights.weight, self.feature_bias, self.output.weight):
            parameter.clamp_(-WEIGHT_CLIP, WEIGHT_CLIP)


def model_inputs(model: NnueModel, inputs: Batch, device: torch.device | str | None = None) -> tuple[torch.Tensor, ...]:
    """The arguments of ``model(...)`` for a batch, on ``device``: both views' features, where each
    position's list starts, and each position's output bucket."""
    buckets = output_bucket(inputs.pieces, model.buckets)
    return tuple(
        torch.from_numpy(array).to(device)
        for array in (inputs.us_features, inputs.them_features, inputs.offsets, buckets)
    )


def _rounded(values: torch.Tensor, factor: float) -> np.ndarray:
    return np.rint(values.detach().cpu().double().numpy() * factor).astype(np.int64)


def quantise(model: NnueModel, qa: int = DEFAULT_QA, qb: int = DEFAULT_QB, scale: int = DEFAULT_SCALE) -> Network:
    """The file's integer network nearest to ``model`` (``ValueError`` if a value does not fit its type)."""
    return Network(
        feature_weights=_rounded(model.feature_weights.weight, qa),
        feature_bias=_rounded(model.feature_bias, qa),
        output_weights=_rounded(model.output.weight, qb),
        output_bias=_rounded(model.output.bias, qa * qb),
        activation=ACTIVATION_NAMES.index(model.activation),
        qa=qa,
        qb=qb,
        scale=scale,
    )


def dequantised(net: Network) -> NnueModel:
    """The float model whose values are exactly ``net``'s integers over their scales."""
    model = NnueModel(net.hidden, net.activation_name, net.buckets)
    with torch.no_grad():
        model.feature_weights.weight.copy_(torch.from_numpy(net.feature_weights / net.qa))
        model.feature_bias.copy_(torch.from_numpy(net.feature_bias / net.qa))
        model.output.weight.copy_(torch.from_numpy(net.output_weights / net.qb))
        model.output.bias.copy_(torch.from_numpy(net.output_bias / (net.qa * net.qb)))
    return model
