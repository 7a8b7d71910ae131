"""The ``numba`` training backend: the sparse forward and backward pass of a batch in two Numba kernels.

The float model, its optimiser and its checkpoints stay PyTorch's (:mod:`tuning.nnue.model`,
:mod:`tuning.nnue.train`); this module only computes a batch's loss and the gradient of every parameter,
into the parameters' ``.grad``, from the packed positions themselves, in place of building the batch's
``EmbeddingBag`` inputs (:func:`tuning.nnue.data.batch`) and PyTorch's autograd.  A position has about 25
active features of 768, so the forward pass sums ~25 weight rows per view and the backward pass adds the
accumulator's gradient into those rows only.

Two kernels for each chunk of a batch's positions (``CHUNK``, so that the chunk's per-position values stay in the
core's cache from one kernel to the next), each run on ``threads`` threads (Python threads; the kernels release
the GIL):

* :func:`_forward` takes a contiguous share of the batch's positions: it decodes each position's features
  (the same lists as :func:`tuning.nnue.data.batch`, mirrors included), its output bucket and its target,
  computes both accumulators, the output, the loss and the gradient of the loss with respect to the output
  ``dy`` and to each accumulator value, and stores them per position;
* :func:`_backward` takes a share of the hidden neurons (columns): for every position of the chunk in order, it adds
  that position's accumulator gradients into the rows of its features, and its ``dy`` times its activations
  into the output weights of its bucket, for its columns only.

Every gradient value is so summed by one thread in batch order, feature order, the side to move's view
first: **the gradients, and so the network, depend on neither the number of threads nor the chunks**; they depend on the
data, the settings and the machine's float arithmetic only (Numba compiles for the CPU it runs on, so
another instruction set may round a fused multiply-add differently).  The loss and its gradient are float32,
as PyTorch's are, but summed in another order: the two backends give close but different networks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from jitfish.board.bitops import lsb, pop_lsb
from jitfish.board.squares import PIECE_TYPE_COUNT
from jitfish.nnue.features import SQUARE_COUNT, VERTICAL_FLIP
from jitfish.nnue.format import ACTIVATION_NAMES, BUCKET_PIECES, SCRELU
from jitfish.runtime.jit import kernel
from tuning.datagen.records import RESULTS
from tuning.nnue.data import HORIZONTAL_FLIP, Positions
from tuning.nnue.model import NnueModel

MAX_PIECES = 32  # a legal board's most pieces: the width of a position's feature list
COLUMN_ALIGN = 16  # the backward pass's column shares are multiples of this (whole vectors)
# A batch goes through both kernels a chunk of this many positions at a time, so that the chunk's activations and
# accumulator gradients (4 bytes x 2 views x hidden a position each) stay in the core's cache between the forward
# and the backward pass instead of going out to memory and back.  The gradients are the same at any chunk size.
CHUNK = 256


@kernel
def _forward(
    occupied,
    pieces,
    flags,
    score,
    result,
    result_values,
    rows,
    first,
    last,
    base,
    feature_weights,
    feature_bias,
    output_weights,
    output_bias,
    screlu,
    output_scale,
    wdl_scale,
    blend,
    batch_size,
    us,
    them,
    counts,
    buckets,
    hidden_values,
    hidden_grads,
    output_grads,
    losses,
):
    """Positions ``first .. last - 1`` of a batch of ``rows``: features, forward pass, loss and its gradients.

    ``rows`` index the packed fields (``occupied`` … ``result``), a row of ``len(occupied)`` or more being that
    row's mirror.  Writes, per position ``i``, its features ``us[i, :counts[i]]`` and ``them[i, :counts[i]]``,
    its bucket, ``hidden_values[i - base]`` (the activations, side to move first), ``hidden_grads[i - base]``
    (d loss / d accumulator), ``output_grads[i]`` (d loss / d y) and ``losses[i]`` (its squared error)."""
    hidden = feature_bias.shape[0]
    count = occupied.shape[0]
    bucket_count = output_bias.shape[0]
    sigmoid_scale = np.float32(output_scale / wdl_scale)
    for i in range(first, last):
        row = rows[i]
        record = row % count
        flip = HORIZONTAL_FLIP if row >= count else 0
        black = flags[record] & 1
        bits = occupied[record]
        n = 0
        while bits:
            square = lsb(bits)
            bits = pop_lsb(bits)
            piece = (pieces[record, n >> 1] >> (4 * (n & 1))) & 15
            colour = piece // PIECE_TYPE_COUNT
            kind = piece % PIECE_TYPE_COUNT
            seen = square ^ flip
            white_view = (colour * PIECE_TYPE_COUNT + kind) * SQUARE_COUNT + seen
            black_view = ((colour ^ 1) * PIECE_TYPE_COUNT + kind) * SQUARE_COUNT + (seen ^ VERTICAL_FLIP)
            if black:
                us[i, n] = black_view
                them[i, n] = white_view
            else:
                us[i, n] = white_view
                them[i, n] = black_view
            n += 1
        counts[i] = n
        bucket = min(max((n - 2) * bucket_count // BUCKET_PIECES, 0), bucket_count - 1)
        buckets[i] = bucket
        white_score = np.float64(score[record])
        white_result = result_values[result[record]]
        stm_score = -white_score if black else white_score
        stm_result = 1.0 - white_result if black else white_result
        target = np.float32(blend / (1.0 + math.exp(-np.float32(stm_score) / wdl_scale)) + (1.0 - blend) * stm_result)

        values = hidden_values[i - base]
        us_values = values[:hidden]  # views indexed from 0: loops whose indices are known >= 0 vectorise
        them_values = values[hidden:]
        for j in range(hidden):
            us_values[j] = feature_bias[j]
            them_values[j] = feature_bias[j]
        # Four rows at a time, (a + b) + (c + d) added to the accumulator: one load and store of it per four.
        whole = n - n % 4
        for k in range(0, whole, 4):
            for view, values_of_view in ((us, us_values), (them, them_values)):
                a = feature_weights[view[i, k]]
                b = feature_weights[view[i, k + 1]]
                c = feature_weights[view[i, k + 2]]
                d = feature_weights[view[i, k + 3]]
                for j in range(hidden):
                    values_of_view[j] += (a[j] + b[j]) + (c[j] + d[j])
        for k in range(whole, n):
            weights = feature_weights[us[i, k]]
            for j in range(hidden):
                us_values[j] += weights[j]
            weights = feature_weights[them[i, k]]
            for j in range(hidden):
                them_values[j] += weights[j]
        slopes = hidden_grads[i - base]
        bucket_weights = output_weights[bucket]
        zero, one = np.float32(0.0), np.float32(1.0)
        if screlu:  # PyTorch's clamp passes the gradient at its bounds
            for j in range(2 * hidden):
                a = values[j]
                x = min(max(a, zero), one)
                values[j] = x * x
                slopes[j] = x + x if a >= zero and a <= one else zero
        else:
            for j in range(2 * hidden):
                a = values[j]
                values[j] = min(max(a, zero), one)
                slopes[j] = one if a >= zero and a <= one else zero
        # y in 8 partial sums, added in a fixed order: one chain of dependent adds would cost more than the rest.
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = np.float32(0.0)
        whole = 2 * hidden - 2 * hidden % 8
        for j in range(0, whole, 8):
            s0 += values[j] * bucket_weights[j]
            s1 += values[j + 1] * bucket_weights[j + 1]
            s2 += values[j + 2] * bucket_weights[j + 2]
            s3 += values[j + 3] * bucket_weights[j + 3]
            s4 += values[j + 4] * bucket_weights[j + 4]
            s5 += values[j + 5] * bucket_weights[j + 5]
            s6 += values[j + 6] * bucket_weights[j + 6]
            s7 += values[j + 7] * bucket_weights[j + 7]
        for j in range(whole, 2 * hidden):
            s0 += values[j] * bucket_weights[j]
        y = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)) + output_bias[bucket]
        prediction = np.float32(1.0 / (1.0 + math.exp(-y * sigmoid_scale)))
        error = prediction - target
        losses[i] = np.float64(error) * np.float64(error)
        dy = np.float32(2.0 / batch_size) * error * prediction * (np.float32(1.0) - prediction) * sigmoid_scale
        output_grads[i] = dy
        for j in range(2 * hidden):
            slopes[j] *= dy * bucket_weights[j]


@kernel
def _backward(
    start,
    stop,
    base,
    clear,
    first,
    last,
    us,
    them,
    counts,
    buckets,
    hidden_values,
    hidden_grads,
    output_grads,
    feature_weights_grad,
    feature_bias_grad,
    output_weights_grad,
    output_bias_grad,
):
    """Columns ``first .. last - 1`` of every gradient, from a batch's positions ``start .. stop - 1`` in order
    (the output bias too when ``first`` is 0), added to what the batch's earlier positions gave, or to zero when
    ``clear``.  Position ``i``'s activations and accumulator gradients are row ``i - base`` of their arrays."""
    hidden = feature_bias_grad.shape[0]
    width = last - first
    # Views of the columns, indexed from 0: loops whose indices are known >= 0 vectorise.
    bias_grad = feature_bias_grad[first:last]
    if clear:
        bias_grad[:] = 0.0
        for f in range(feature_weights_grad.shape[0]):
            feature_weights_grad[f, first:last] = 0.0
        for b in range(output_weights_grad.shape[0]):
            output_weights_grad[b, first:last] = 0.0
            output_weights_grad[b, hidden + first : hidden + last] = 0.0
            if first == 0:
                output_bias_grad[b] = 0.0
    for i in range(start, stop):
        us_grads = hidden_grads[i - base, first:last]
        them_grads = hidden_grads[i - base, hidden + first : hidden + last]
        for k in range(counts[i]):
            row = feature_weights_grad[us[i, k], first:last]
            for j in range(width):
                row[j] += us_grads[j]
            row = feature_weights_grad[them[i, k], first:last]
            for j in range(width):
                row[j] += them_grads[j]
        for j in range(width):
            bias_grad[j] += us_grads[j] + them_grads[j]
        dy = output_grads[i]
        us_values = hidden_values[i - base, first:last]
        them_values = hidden_values[i - base, hidden + first : hidden + last]
        us_weights = output_weights_grad[buckets[i], first:last]
        them_weights = output_weights_grad[buckets[i], hidden + first : hidden + last]
        for j in range(width):
            us_weights[j] += dy * us_values[j]
            them_weights[j] += dy * them_values[j]
        if first == 0:
            output_bias_grad[buckets[i]] += dy


def _shares(total: int, parts: int, align: int = 1) -> list[tuple[int, int]]:
    """``total`` split into at most ``parts`` contiguous ``(first, last)`` ranges, the cuts on multiples of
    ``align``."""
    step = -(-total // parts)
    step = -(-step // align) * align
    return [(first, min(first + step, total)) for first in range(0, total, step)]


class SparseGradients:
    """A batch's loss and gradients for ``model`` (on the CPU) by the Numba kernels, on ``threads`` threads.

    Holds the per-position buffers of batches up to ``batch_size`` and the gradient arrays, which become the
    parameters' ``.grad`` (shared memory); the weights are read from the parameters themselves, so an
    optimiser's step between two batches is seen.  Use as a context manager (it owns a thread pool)."""

    def __init__(
        self,
        model: NnueModel,
        batch_size: int,
        output_scale: float,
        wdl_scale: float,
        blend: float,
        threads: int = 1,
        chunk: int = CHUNK,
    ) -> None:
        if model.output.weight.device.type != "cpu":
            raise ValueError("the numba backend trains on the CPU: --device cpu")
        hidden = model.hidden
        self.model = model
        self.hidden = hidden
        self.batch_size = batch_size
        self.screlu = model.activation == ACTIVATION_NAMES[SCRELU]
        self.output_scale, self.wdl_scale, self.blend = float(output_scale), float(wdl_scale), float(blend)
        self.threads = threads
        self.pool = ThreadPoolExecutor(threads - 1) if threads > 1 else None
        self.result_values = np.asarray(RESULTS, dtype=np.float64)
        self.us = np.zeros((batch_size, MAX_PIECES), dtype=np.int32)
        self.them = np.zeros((batch_size, MAX_PIECES), dtype=np.int32)
        self.counts = np.zeros(batch_size, dtype=np.int32)
        self.buckets = np.zeros(batch_size, dtype=np.int32)
        self.chunk = min(batch_size, chunk)
        self.hidden_values = np.zeros((self.chunk, 2 * hidden), dtype=np.float32)
        self.hidden_grads = np.zeros((self.chunk, 2 * hidden), dtype=np.float32)
        self.output_grads = np.zeros(batch_size, dtype=np.float32)
        self.losses = np.zeros(batch_size, dtype=np.float64)
        # What the forward kernel writes for each position and the backward kernel reads, in their argument order.
        self.per_position = (
            self.us,
            self.them,
            self.counts,
            self.buckets,
            self.hidden_values,
            self.hidden_grads,
            self.output_grads,
        )
        self.parameters = (
            model.feature_weights.weight,
            model.feature_bias,
            model.output.weight,
            model.output.bias,
        )
        self.grads = tuple(np.zeros(tuple(p.shape), dtype=np.float32) for p in self.parameters)
        self.grad_tensors = tuple(torch.from_numpy(grad) for grad in self.grads)
        self.columns = _shares(hidden, threads, COLUMN_ALIGN)

    def __enter__(self) -> SparseGradients:
        return self

    def __exit__(self, *_: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def _run(self, function: Callable[[int, int], None], shares: list[tuple[int, int]]) -> None:
        """``function(first, last)`` of every share: the first on this thread, the others on the pool's; returns
        when all are done."""
        jobs = [] if self.pool is None else [self.pool.submit(function, *share) for share in shares[1:]]
        for first, last in shares[: len(shares) - len(jobs)]:
            function(first, last)
        for job in jobs:
            job.result()

    def __call__(self, positions: Positions, rows: np.ndarray) -> float:
        """The summed squared error of the positions ``rows`` (at most ``batch_size``), and the gradient of its
        mean into every parameter's ``.grad``."""
        size = len(rows)
        if not 0 < size <= self.batch_size:
            raise ValueError(f"a batch holds 1 to {self.batch_size} positions, not {size}")
        records = positions.records
        weights = [p.detach().numpy() for p in self.parameters]
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        for start in range(0, size, self.chunk):
            stop = min(start + self.chunk, size)
            self._run(
                lambda first, last, start=start: _forward(
                    records["occupied"],
                    records["pieces"],
                    records["flags"],
                    records["score"],
                    records["result"],
                    self.result_values,
                    rows,
                    first,
                    last,
                    start,
                    weights[0],
                    weights[1],
                    weights[2],
                    weights[3],
                    self.screlu,
                    self.output_scale,
                    self.wdl_scale,
                    self.blend,
                    size,
                    *self.per_position,
                    self.losses,
                ),
                [(start + first, start + last) for first, last in _shares(stop - start, self.threads)],
            )
            self._run(
                lambda first, last, start=start, stop=stop: _backward(
                    start,
                    stop,
                    start,
                    start == 0,
                    first,
                    last,
                    *self.per_position,
                    *self.grads,
                ),
                self.columns,
            )
        for parameter, grad in zip(self.parameters, self.grad_tensors):
            parameter.grad = grad
        return float(self.losses[:size].sum())
