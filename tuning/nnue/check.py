"""``--check``: the exported file against the float model, through the NumPy integer reference.

Two comparisons on the same positions, in centipawns for the side to move:

1. **Arithmetic.** The float model rebuilt from the file's integers (:func:`tuning.nnue.model.dequantised`)
   against :func:`jitfish.nnue.reference.evaluate`.  Their difference is only the reference's floor
   divisions: it must lie in ``[0, 1)`` for crelu and ``[0, 1 + scale / (QA * QB))`` for screlu, give or
   take ``FLOAT_SLACK`` for float32.  This catches any disagreement in features, perspective order or
   formula between the trainer and the reference.
2. **Quantisation.** The trained float model against the same integers.  Every value was rounded to a
   multiple of 1/QA, 1/QB or 1/(QA QB), an error uniform in half a step (variance ``step^2 / 12``), so to
   first order a position's float score moves by a sum of independent errors of standard deviation::

       sigma = scale * sqrt(sum_j (V_j f'(a_j))^2 (k + 1) / (12 QA^2) + sum_j h_j^2 / (12 QB^2)
                            + 1 / (12 (QA QB)^2))

   over the 2N hidden neurons (``V`` the output weights of the position's bucket), with ``k`` the
   position's pieces (``k + 1`` rounded terms per accumulator), ``a_j`` the accumulator, ``h_j`` the
   activation and ``f'`` its slope (0 where clipped; 1 for crelu, ``2 a`` for screlu, inside).  The
   check fails if a position differs by more than ``sigmas * sigma`` plus comparison 1's bound (the
   floors) (``DEFAULT_SIGMAS`` standard deviations unless told): the error is a sum of hundreds of small
   independent terms, so a bigger one means the export lost more than its rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from jitfish.nnue.format import SCRELU, Network, output_bucket
from jitfish.nnue.reference import evaluate
from tuning.datagen.records import unpack_fen
from tuning.nnue.data import Batch, DataSet, batch, load_positions
from tuning.nnue.model import NnueModel, dequantised, model_inputs

CHECK_POSITIONS = 300
DEFAULT_SIGMAS = 5.0  # standard deviations of the rounding error a position may differ by
FLOAT_SLACK = 0.01  # centipawns of float32 error allowed around the exact bounds of comparison 1


@dataclass(frozen=True)
class CheckReport:
    positions: int
    rounding: tuple[float, float]  # min and max of (dequantised float - integer)
    rounding_bound: float  # comparison 1 needs 0 <= difference < this
    quantisation_mean: float  # mean |trained float - integer|, centipawns
    quantisation_max: float
    sigma_mean: float  # mean standard deviation of the rounding error, centipawns
    worst_ratio: float  # max of (|trained float - integer| - rounding_bound) / sigma
    sigmas: float

    @property
    def passed(self) -> bool:
        low, high = self.rounding
        return low >= -FLOAT_SLACK and high < self.rounding_bound + FLOAT_SLACK and self.worst_ratio <= self.sigmas

    def summary(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        return (
            f"check {verdict} on {self.positions} positions: dequantised float - integer in "
            f"[{self.rounding[0]:.3f}, {self.rounding[1]:.3f}] (must be in [0, {self.rounding_bound:.3f})); "
            f"|trained float - integer| mean {self.quantisation_mean:.2f} cp, max {self.quantisation_max:.2f} cp; "
            f"rounding sigma mean {self.sigma_mean:.2f} cp, worst position {self.worst_ratio:.2f} sigma "
            f"(at most {self.sigmas:g})"
        )


def integer_scores(net: Network, inputs: Batch) -> np.ndarray:
    """The integer network's scores (int64 centipawns, side to move) of a batch's positions: the
    reference's four steps (:mod:`jitfish.nnue.reference`) on the trainer's feature lists, all positions
    at once, so that held-out errors of the file's integers can be measured on many positions."""

    def accumulators(features: np.ndarray) -> np.ndarray:
        rows = net.feature_weights[features].astype(np.int32)
        return net.feature_bias.astype(np.int32) + np.add.reduceat(rows, inputs.offsets, axis=0)

    activated = np.clip(
        np.concatenate((accumulators(inputs.us_features), accumulators(inputs.them_features)), 1), 0, net.qa
    ).astype(np.int64)
    bucket = output_bucket(inputs.pieces, net.buckets)
    weights = net.output_weights.astype(np.int64)[bucket]  # each position's bucket: [b, 2N]
    if net.activation == SCRELU:
        activated = activated * activated
    total = np.einsum("ij,ij->i", activated, weights)
    if net.activation == SCRELU:
        total //= net.qa
    return (total + net.output_bias.astype(np.int64)[bucket]) * net.scale // (net.qa * net.qb)


@torch.no_grad()
def scores_and_sigmas(model: NnueModel, inputs: Batch, net: Network) -> tuple[np.ndarray, np.ndarray]:
    """The model's scores of the positions in ``inputs`` and the standard deviations of their rounding
    errors (see the module docstring), both in float64 centipawns."""
    model.eval()
    us, them, offsets, buckets = model_inputs(model, inputs)
    accumulators = torch.cat((model.accumulator(us, offsets), model.accumulator(them, offsets)), 1).double()
    inside = (accumulators > 0.0) & (accumulators < 1.0)
    activated = torch.clamp(accumulators, 0.0, 1.0)
    slope = inside * (2.0 * accumulators if net.activation == SCRELU else 1.0)
    if net.activation == SCRELU:
        activated = activated * activated
    weights = model.output.weight.double()[buckets]  # each position's bucket: [b, 2N]
    rounded_terms = torch.from_numpy(inputs.pieces + 1.0)
    variance = (
        ((slope * weights) ** 2).sum(1) * rounded_terms / (12.0 * net.qa**2)
        + (activated**2).sum(1) / (12.0 * net.qb**2)
        + 1.0 / (12.0 * (net.qa * net.qb) ** 2)
    )
    scores = model(us, them, offsets, buckets).double() * net.scale
    return scores.numpy(), net.scale * torch.sqrt(variance).numpy()


def check_network(
    model: NnueModel, net: Network, data: DataSet, count: int = CHECK_POSITIONS, sigmas: float = DEFAULT_SIGMAS
) -> CheckReport:
    """Compare ``net`` (exported from ``model``) with the model, and with itself as floats, on the first
    ``count`` positions of ``data``: the model through the trainer's feature lists, ``net`` through the
    reference's own reading of each FEN."""
    positions = load_positions(data, limit=count)
    fens = [unpack_fen(record) for record in positions.records]
    integer = np.array([evaluate(net, fen) for fen in fens], dtype=np.float64)
    inputs = batch(positions, np.arange(len(fens)))
    rounding = scores_and_sigmas(dequantised(net), inputs, net)[0] - integer
    scores, sigma = scores_and_sigmas(model, inputs, net)
    quantisation = np.abs(scores - integer)
    bound = 1.0 + (net.scale / (net.qa * net.qb) if net.activation == SCRELU else 0.0)
    return CheckReport(
        len(fens),
        (float(rounding.min()), float(rounding.max())),
        bound,
        float(quantisation.mean()),
        float(quantisation.max()),
        float(sigma.mean()),
        float(np.max((quantisation - bound) / sigma)),
        sigmas,
    )
