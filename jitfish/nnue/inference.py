"""NNUE inference in compiled code: the kernels the search will call, bit-identical to :mod:`reference`.

The arithmetic is the one :mod:`jitfish.nnue.reference` defines; the kernels here only compute it on the
engine's arrays (the piece bitboards ``bbs[colour * 6 + piece_type]``) with the network's arrays passed in
as arguments (never module globals: Numba would freeze them into the machine code).

* :func:`feature_index` is :func:`jitfish.nnue.features.feature_index` for kernels.
* :func:`refresh_accumulator` builds one perspective's accumulator from scratch; :func:`add_feature` and
  :func:`sub_feature` change it by one weight row, the incremental update of make/unmake (a quiet move is
  one sub and one add per perspective, a capture one more sub, castling two pairs, a promotion a pawn sub
  and a piece add).  They are plain loops over the hidden size, which LLVM vectorises.
* :func:`evaluate_accumulators` is steps 2-4 of the formula, with the output weights of the bucket the
  position's piece count picks (:func:`output_bucket`: a multiply, a shift and a clamp, so a network of one
  bucket costs nearly nothing more); :func:`nnue_evaluate` refreshes both perspectives and evaluates, for
  tests and the ``eval`` command (the search keeps its accumulators, :mod:`jitfish.search.evalstack`).

Accumulators are ``int16``.  The reference accumulates in int32, which is exact for any int16 weights;
int16 is exact whenever the true value of every neuron fits in int16, because the updates are additions
modulo 2^16 and the true value is then the only int16 congruent to it (an overflow half way through a
refresh or an update is harmless).  A position holds at most 32 pieces (the FEN parser refuses more than
16 a side), so the value of neuron ``i`` is at most ``|B[i]|`` plus its 32 largest ``|W[f, i]|``:
:func:`accumulator_bound`.  The trainer clips every weight to 1.98 (505 after quantisation), so its
networks stay below 33 * 505 = 16,665, half the int16 range.  ``int16`` halves the memory of the stack of
accumulators the search will keep (two rows of N per ply) and doubles the lanes of each vector add;
:func:`kernel_network` refuses, with a ``ValueError``, a network whose bound exceeds int16 instead of
evaluating it wrongly.

The output layer has two exact paths.  In general it works in int64, as the reference: the activated values
are clipped to ``[0, QA]`` and QA is a header field (up to 65535), so squares and their sums may need 64
bits.  The trainer's networks (QA 255, output weights within +-127) take the fast one, chosen once per
network by :func:`narrow_output`: each activated value times its weight is an int16 product (at most
32,385), times the value again an int32, summed in int32, which LLVM turns into vector multiply-adds over
16 lanes; 2.5 times the int64 loop's speed, whose 64-bit multiplies AVX2 lacks.  Numba's ``//`` on signed
integers floors like Python's, which step 4 needs on negative scores.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from jitfish.board import layout as L
from jitfish.board.bitops import lsb, pop_lsb, popcount
from jitfish.board.board import Board
from jitfish.board.squares import BLACK, EMPTY, PIECE_TYPE_COUNT, WHITE
from jitfish.nnue.features import SQUARE_COUNT, VERTICAL_FLIP
from jitfish.nnue.format import BUCKET_PIECES, SCRELU, Network
from jitfish.runtime.jit import kernel

ACCUMULATOR_DTYPE = np.int16
ACCUMULATOR_LIMIT = int(np.iinfo(ACCUMULATOR_DTYPE).max)
INT16_MAX = int(np.iinfo(np.int16).max)
INT32_MAX = int(np.iinfo(np.int32).max)
MAX_PIECES = 32  # the most pieces a position can hold (16 a side): active features per view
RELATION_STRIDE = PIECE_TYPE_COUNT * SQUARE_COUNT  # 384: the opponent's pieces start here


@kernel(hot=True, inline=True)
def feature_index(perspective, colour, piece_type, square):
    """The feature of a ``colour`` piece of ``piece_type`` on ``square`` seen from ``perspective``:
    black's view swaps the colours and flips the square vertically (:mod:`jitfish.nnue.features`)."""
    relation = colour ^ perspective
    flipped = square ^ (VERTICAL_FLIP * perspective)
    return relation * RELATION_STRIDE + piece_type * SQUARE_COUNT + flipped


@kernel(hot=True, inline=True)
def add_feature(accumulator, weights, feature):
    """Add the weight row of ``feature`` to ``accumulator`` (int16, wrapping: see the module docstring)."""
    row = weights[feature]
    for i in range(accumulator.shape[0]):
        accumulator[i] += row[i]


@kernel(hot=True, inline=True)
def sub_feature(accumulator, weights, feature):
    """Subtract the weight row of ``feature`` from ``accumulator``."""
    row = weights[feature]
    for i in range(accumulator.shape[0]):
        accumulator[i] -= row[i]


@kernel(hot=True)
def refresh_accumulator(bbs, weights, biases, perspective, out):
    """Write the accumulator of ``perspective`` for the pieces of ``bbs`` into ``out``: the biases plus
    the weight row of every piece's feature."""
    for i in range(out.shape[0]):
        out[i] = biases[i]
    for colour in range(2):
        for piece_type in range(PIECE_TYPE_COUNT):
            pieces = bbs[colour * PIECE_TYPE_COUNT + piece_type]
            while pieces != EMPTY:
                add_feature(out, weights, feature_index(perspective, colour, piece_type, lsb(pieces)))
                pieces = pop_lsb(pieces)


@kernel(hot=True, inline=True)
def output_bucket(pieces, buckets):
    """The output bucket of a position of ``pieces`` pieces: :func:`jitfish.nnue.format.output_bucket`."""
    return min(max((pieces - 2) * buckets // BUCKET_PIECES, 0), buckets - 1)


@kernel(hot=True, inline=True)
def piece_count(bbs):
    """Every piece on the board of ``bbs``, kings included: what picks the output bucket."""
    return popcount(bbs[L.OCCUPIED])


@kernel(hot=True, inline=True)
def _narrow_sum(accumulator, weights, qa, screlu):
    """``sum(a[i] * w[i])`` over the activated ``accumulator`` (squared for SCReLU) and ``weights``, each
    ``a[i] * w[i]`` an int16 product and the sum int32: the vector multiply-adds of the fast path, exact for
    a network whose :func:`narrow_output` holds."""
    ceiling = np.int16(qa)
    total = np.int32(0)
    if screlu:
        for i in range(accumulator.shape[0]):
            a = min(max(accumulator[i], np.int16(0)), ceiling)
            total = np.int32(total + np.int32(np.int32(np.int16(a * weights[i])) * np.int32(a)))
    else:
        for i in range(accumulator.shape[0]):
            a = min(max(accumulator[i], np.int16(0)), ceiling)
            total = np.int32(total + np.int32(np.int16(a * weights[i])))
    return np.int64(total)


@kernel(hot=True, inline=True)
def _wide_sum(accumulator, weights, qa, screlu):
    """:func:`_narrow_sum` in int64, for any network."""
    total = np.int64(0)
    for i in range(accumulator.shape[0]):
        a = min(max(np.int64(accumulator[i]), 0), qa)
        if screlu:
            a *= a
        total += a * np.int64(weights[i])
    return total


@kernel(hot=True)
def evaluate_accumulators(us_acc, them_acc, pieces, output_weights, output_bias, qa, qb, scale, screlu, narrow):
    """Steps 2-4 of :mod:`jitfish.nnue.reference`: the score in centipawns for the side to move, whose
    accumulator is ``us_acc`` (the first half of a bucket's output weights reads it), ``them_acc`` the
    other's, in a position of ``pieces`` pieces; ``output_weights`` is ``[K, 2N]``, ``output_bias`` ``[K]``;
    ``narrow``: :func:`narrow_output` of the network (int16 products and int32 sums, else int64)."""
    hidden = us_acc.shape[0]
    bucket = output_bucket(pieces, output_weights.shape[0])
    weights = output_weights[bucket]
    if narrow:
        total = _narrow_sum(us_acc, weights[:hidden], qa, screlu) + _narrow_sum(them_acc, weights[hidden:], qa, screlu)
    else:
        total = _wide_sum(us_acc, weights[:hidden], qa, screlu) + _wide_sum(them_acc, weights[hidden:], qa, screlu)
    if screlu:
        total //= qa
    return (total + output_bias[bucket]) * scale // (qa * qb)


@kernel
def nnue_evaluate(bbs, side_to_move, weights, biases, output_weights, output_bias, qa, qb, scale, screlu, narrow):
    """The network's score of the position ``bbs`` in centipawns for ``side_to_move``, from scratch."""
    accumulators = np.empty((2, biases.shape[0]), dtype=ACCUMULATOR_DTYPE)
    refresh_accumulator(bbs, weights, biases, side_to_move, accumulators[0])
    refresh_accumulator(bbs, weights, biases, side_to_move ^ 1, accumulators[1])
    return evaluate_accumulators(
        accumulators[0], accumulators[1], piece_count(bbs), output_weights, output_bias, qa, qb, scale, screlu, narrow
    )


class KernelNetwork(NamedTuple):
    """A network as the kernels take it, in the order of :func:`nnue_evaluate`'s arguments after the position
    (``nnue_evaluate(bbs, side, *net)``); the types are fixed so that every call shares one compilation."""

    weights: np.ndarray  # int16 [768, N], C order
    biases: np.ndarray  # int16 [N]
    output_weights: np.ndarray  # int16 [K, 2N], one row per output bucket
    output_bias: np.ndarray  # int64 [K]
    qa: int
    qb: int
    scale: int
    screlu: bool
    narrow: bool  # :func:`narrow_output`: the output layer may use int16 products and int32 sums

    @property
    def hidden(self) -> int:
        return self.biases.shape[0]

    @property
    def buckets(self) -> int:
        return self.output_weights.shape[0]

    def new_accumulators(self) -> np.ndarray:
        """Zeroed accumulators for both perspectives: ``int16 [2, N]``, row ``p`` for perspective ``p``."""
        return np.zeros((2, self.hidden), dtype=ACCUMULATOR_DTYPE)


def accumulator_bound(net: Network) -> int:
    """The largest value any neuron's accumulator can take in a position of at most 32 pieces."""
    weights = np.abs(net.feature_weights.astype(np.int64))
    largest = np.sort(weights, axis=0)[-MAX_PIECES:].sum(axis=0)
    return int((np.abs(net.feature_bias.astype(np.int64)) + largest).max())


def narrow_output(net: Network) -> bool:
    """Whether the output layer is exact in int16 products and int32 sums (:func:`_narrow_sum`): ``QA`` and
    every activated value times an output weight fit int16, and a perspective's sum fits int32.  The
    trainer's networks do (QA 255, weights clipped to 127: products up to 32,385); a network that does not
    is evaluated in int64."""
    largest = int(np.abs(net.output_weights.astype(np.int64)).max(initial=0))
    product = int(net.qa) * largest
    term = product * (int(net.qa) if net.activation == SCRELU else 1)
    return int(net.qa) <= INT16_MAX and product <= INT16_MAX and net.feature_bias.shape[0] * term <= INT32_MAX


def kernel_network(net: Network) -> KernelNetwork:
    """``net``'s arrays for the kernels; ``ValueError`` if its accumulators could overflow int16."""
    bound = accumulator_bound(net)
    if bound > ACCUMULATOR_LIMIT:
        raise ValueError(
            f"network weights too large for int16 accumulators: a neuron can reach {bound} "
            f"(limit {ACCUMULATOR_LIMIT}); the trainer's clipped weights stay below 16,665"
        )
    # Writable copies: a read-only array (as a file's buffer gives) is another type to Numba, and would
    # compile the whole search a second time.
    return KernelNetwork(
        np.array(net.feature_weights, dtype=np.int16, order="C"),
        np.array(net.feature_bias, dtype=np.int16, order="C"),
        np.array(net.output_weights, dtype=np.int16, order="C"),
        np.array(net.output_bias, dtype=np.int64),
        int(net.qa),
        int(net.qb),
        int(net.scale),
        net.activation == SCRELU,
        narrow_output(net),
    )


def evaluate(net: Network | KernelNetwork, board: Board | str) -> int:
    """The network's score of a :class:`jitfish.Board` or a FEN in centipawns for the side to move."""
    arrays = net if isinstance(net, KernelNetwork) else kernel_network(net)
    board = Board(board) if isinstance(board, str) else board
    side = WHITE if board.turn else BLACK
    return int(nnue_evaluate(board.position.bbs, side, *arrays))
