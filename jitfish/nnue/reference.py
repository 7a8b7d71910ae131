"""Integer inference in NumPy: the definition the Numba engine's evaluation must match bit for bit.

Notation: ``W`` the feature weights (int16 [768, N]), ``B`` the feature biases (int16 [N]), ``V`` and
``c`` the output weights (int16 [2N]) and bias (int32) of the position's output bucket ``k``, ``F_p`` the
active features of perspective ``p`` (:func:`jitfish.nnue.features.active_features`), ``us`` the side to
move, ``them`` the other side.  With ``K`` buckets, ``k = clamp((pieces - 2) * K // 32, 0, K - 1)`` for
the position's ``pieces`` (kings included, so ``len(F_p)``): :func:`jitfish.nnue.format.output_bucket`.

1. Accumulators, int32, one per perspective::

       a_p[i] = B[i] + sum(W[f, i] for f in F_p)

   Exact in int32 for any int16 weights (at most 33 terms of at most 2^15).  With the trainer's weight
   clipping (|weight| <= 1.98, so |W|, |B| <= 505) an accumulator of a legal position also stays within
   int16 (33 * 505 = 16,665), so the engine may keep int16 accumulators for such networks.
2. Activation, int32: ``h_p[i] = min(max(a_p[i], 0), QA)``.
3. Output, int64, in units of QA * QB (bucket ``k``'s ``V``, the halves side to move first)::

       crelu:  s = sum(h_us[i] * V[i] + h_them[i] * V[N + i] for i in range(N))
       screlu: s = sum(h_us[i]**2 * V[i] + h_them[i]**2 * V[N + i] for i in range(N)) // QA

4. Centipawns for the side to move, int64::

       eval = (s + c) * SCALE // (QA * QB)

``//`` is floor division, as Python's and Numba's integer ``//`` (C's ``/`` truncates towards zero and
would differ by one on negative values).  Every product is formed in int64, so nothing overflows.

The float network these integers stand for has weights ``W / QA``, ``B / QA``, ``V / QB``, bias
``c / (QA * QB)`` (each bucket's), activation ``clamp(x, 0, 1)`` (squared for screlu) and output ``SCALE * y``
(:func:`evaluate_float`).  Its value minus the integer one is in ``[0, 1)`` centipawn for crelu (steps 1-3
are exact, step 4 floors) and in ``[0, 1 + SCALE / (QA * QB))`` for screlu (step 3's division floors too).
"""

from __future__ import annotations

import chess
import numpy as np

from jitfish.nnue.features import BLACK, WHITE, active_features, as_board
from jitfish.nnue.format import SCRELU, Network, output_bucket


def accumulator(net: Network, features: np.ndarray) -> np.ndarray:
    """Step 1: the int32 accumulator of one perspective's active feature indices."""
    return net.feature_bias.astype(np.int32) + net.feature_weights[features].sum(axis=0, dtype=np.int32)


def output(net: Network, us: np.ndarray, them: np.ndarray, pieces: int) -> int:
    """Steps 2-4: the side to move's score in centipawns from its accumulator ``us`` and the other's ``them``,
    in a position of ``pieces`` pieces (which pick the output bucket)."""
    bucket = int(output_bucket(pieces, net.buckets))
    hidden = np.concatenate((us, them)).astype(np.int64)
    activated = np.clip(hidden, 0, net.qa)
    weights = net.output_weights[bucket].astype(np.int64)
    if net.activation == SCRELU:
        total = int(np.dot(activated * activated, weights)) // net.qa
    else:
        total = int(np.dot(activated, weights))
    return (total + int(net.output_bias[bucket])) * net.scale // (net.qa * net.qb)


def ordered_features(position: str | chess.Board) -> tuple[np.ndarray, np.ndarray]:
    """The active features of a FEN or board: the side to move's view first, then the other side's."""
    board = as_board(position)
    views = active_features(board)
    us = WHITE if board.turn == chess.WHITE else BLACK
    return views[us], views[us ^ 1]


def evaluate(net: Network, position: str | chess.Board) -> int:
    """The network's score of a FEN or board, in centipawns for the side to move."""
    us, them = ordered_features(position)
    return output(net, accumulator(net, us), accumulator(net, them), len(us))


def evaluate_float(net: Network, position: str | chess.Board) -> float:
    """The float network the integers stand for (see the module docstring), in centipawns, in float64."""
    us, them = ordered_features(position)
    bucket = int(output_bucket(len(us), net.buckets))

    def activated(features: np.ndarray) -> np.ndarray:
        weights = net.feature_weights[features].sum(axis=0, dtype=np.float64) + net.feature_bias
        clipped = np.clip(weights / net.qa, 0.0, 1.0)
        return clipped * clipped if net.activation == SCRELU else clipped

    hidden = np.concatenate((activated(us), activated(them)))
    y = float(np.dot(hidden, net.output_weights[bucket] / net.qb)) + net.output_bias[bucket] / (net.qa * net.qb)
    return y * net.scale
