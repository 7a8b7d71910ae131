"""What each move cost: winning chances from the WDL model, the NAG it earns, and each side's accuracy.

A position's *winning chances* are the expected score of White, ``W + D/2`` of :func:`jitfish.engine.wdl.expected_score`
(the model fitted to Jitfish's games) at the search's score and the position's material, in per cent; a mate
for a side is 100 % for it (mate in N, and the mated position itself).  A move *loses* the drop of its
player's winning chances from the position before it to the position after it (both searched), in points
of expected score (0 to 1).  The NAG is set by that loss, unless the move is the one the search before it
chose (then a drop is the search's noise, not the move's fault):

========================  =========  ====
loss of expected score    NAG        text
========================  =========  ====
at least ``INACCURACY``   ``?!`` $6  Inaccuracy
at least ``MISTAKE``      ``?`` $2   Mistake
at least ``BLUNDER``      ``??`` $4  Blunder
========================  =========  ====

Accuracy is Lichess's published formula (lila ``AccuracyPercent``) on these winning chances: a move's
accuracy is ``103.1668 exp(-0.04354 (before - after)) - 3.1669 + 1`` (per cent, clamped to 0..100, 100 when
the move lost nothing), and a side's accuracy is the mean of the volatility-weighted mean and the harmonic
mean of its moves' accuracies, the weights the standard deviation of the winning chances over a window of
``len(moves) / 10`` positions (2 to 8), clamped to 0.5..12.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from jitfish.engine.wdl import expected_score

INACCURACY, MISTAKE, BLUNDER = 0.05, 0.10, 0.20
NAG_INACCURACY, NAG_MISTAKE, NAG_BLUNDER = 6, 2, 4  # ?!, ?, ?? (the PGN standard's numbers)
VERDICTS = (
    (BLUNDER, NAG_BLUNDER, "Blunder"),
    (MISTAKE, NAG_MISTAKE, "Mistake"),
    (INACCURACY, NAG_INACCURACY, "Inaccuracy"),
)
WORD_OF_NAG = {nag: word for _, nag, word in VERDICTS}

# Lichess's accuracy of one move (lila, modules/analyse AccuracyPercent.scala), and its "uncertainty bonus".
ACCURACY_SCALE, ACCURACY_DECAY = 103.1668100711649, 0.04354415386753951
ACCURACY_OFFSET, ACCURACY_BONUS = 3.166924740191411, 1.0
WINDOW_MIN, WINDOW_MAX = 2, 8
WEIGHT_MIN, WEIGHT_MAX = 0.5, 12.0


def winning_chances(score_cp: int | None, score_mate: int | None, material: int) -> float:
    """The side to move's expected score (0 to 1) at the search's score; a mate is certain (``score_mate`` 0:
    the side to move is mated)."""
    if score_mate is not None:
        return 1.0 if score_mate > 0 else 0.0
    return float(expected_score(score_cp or 0, material))


def verdict(loss: float, best_played: bool) -> int | None:
    """The NAG a move that lost ``loss`` points of expected score earns (None: no mark)."""
    if best_played:
        return None
    for threshold, nag, _ in VERDICTS:
        if loss >= threshold - 1e-12:
            return nag
    return None


def move_accuracy(before: float, after: float) -> float:
    """Lichess's accuracy (per cent) of a move that took its player's winning chances from ``before`` to
    ``after`` (per cent)."""
    if after >= before:
        return 100.0
    raw = ACCURACY_SCALE * math.exp(-ACCURACY_DECAY * (before - after)) - ACCURACY_OFFSET + ACCURACY_BONUS
    return min(100.0, max(0.0, raw))


def _harmonic_mean(values: Sequence[float]) -> float:
    return 0.0 if any(value <= 0 for value in values) else len(values) / sum(1 / value for value in values)


def game_accuracy(white_chances: Sequence[float], white_moves_first: bool) -> tuple[float | None, float | None]:
    """(White's, Black's) accuracy in per cent from White's winning chances (per cent) at every position of the
    game, the start included (``len(moves) + 1`` values); None for a side without a move."""
    moves = len(white_chances) - 1
    size = min(WINDOW_MAX, max(WINDOW_MIN, moves // 10))
    values = list(white_chances)
    windows = [values[:size]] * (min(size, len(values)) - 2)
    windows += [values[start : start + size] for start in range(max(1, len(values) - size + 1))]
    weights = [min(WEIGHT_MAX, max(WEIGHT_MIN, statistics.pstdev(window))) for window in windows]
    scored: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for index in range(moves):
        white = (index % 2 == 0) == white_moves_first
        before, after = values[index], values[index + 1]
        accuracy = move_accuracy(before, after) if white else move_accuracy(100 - before, 100 - after)
        scored[white].append((accuracy, weights[index]))
    result: list[float | None] = []
    for white in (True, False):
        pairs = scored[white]
        if not pairs:
            result.append(None)
            continue
        weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
        result.append((weighted + _harmonic_mean([a for a, _ in pairs])) / 2)
    return result[0], result[1]
