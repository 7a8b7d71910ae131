"""The win/draw/loss model (``jitfish/engine/wdl.py``) against games it was not fitted to.

``tests/data/wdl_holdout.npz`` holds every position of the games that ``tuning/fit_wdl.py`` held out
(every fifth self-play game of the data in docs/wdl.md), counted by its score (white's view), both
sides' material and the game's result.  In each score bucket the model's mean predicted
score must be within 3 percentage points of the score the games made.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import jitfish
from jitfish.engine.wdl import A_COEFFICIENTS, B_COEFFICIENTS, material_of_fen, win_draw_loss
from tuning import fit_wdl

HOLD_OUT = Path(__file__).parents[1] / "data" / "wdl_holdout.npz"
LEAST_POSITIONS = 5000  # per bucket: the held-out games have 8,000-21,000 in each


@pytest.fixture(scope="module")
def buckets() -> list[tuple]:
    rows, counts = fit_wdl.read_sample(HOLD_OUT)
    return fit_wdl.bucket_table(rows, A_COEFFICIENTS, B_COEFFICIENTS, counts)


def test_predicted_score_matches_the_held_out_games_in_each_bucket(buckets):
    assert len(buckets) == len(fit_wdl.BUCKET_EDGES) - 1
    for low, high, count, _, observed, predicted in buckets:
        assert count >= LEAST_POSITIONS, f"only {count} positions in [{low}, {high})"
        assert abs(predicted - observed) <= fit_wdl.TOLERANCE, (
            f"[{low}, {high}): predicted {predicted:.3f}, observed {observed:.3f}"
        )


def test_material_counts_both_sides():
    assert material_of_fen(jitfish.STARTING_FEN) == 78
    assert material_of_fen("8/8/4k3/8/8/3QK3/8/8 w - - 0 1") == 9
    assert material_of_fen("4k3/pp6/8/8/8/8/6N1/4K2R b K - 0 1") == 2 + 3 + 5


def test_wdl_is_symmetric_sums_to_1000_and_mates_are_certain():
    board = jitfish.Board()
    for cp in (-900, -150, 0, 35, 400):
        win, draw, loss = win_draw_loss(cp, None, board)
        assert win + draw + loss == 1000 and min(win, draw, loss) >= 0
        assert (win, draw, loss) == tuple(reversed(win_draw_loss(-cp, None, board)))
    assert win_draw_loss(0, None, board)[1] > 500
    assert win_draw_loss(600, None, board)[0] > 900
    assert win_draw_loss(None, 3, board) == (1000, 0, 0) and win_draw_loss(None, -2, board) == (0, 0, 1000)


def test_the_same_score_wins_less_often_with_less_material():
    endgame = jitfish.Board("8/5k2/8/3p4/3P4/4K3/5P2/8 w - - 0 1")
    middlegame = jitfish.Board()
    win_endgame, draw_endgame, _ = win_draw_loss(150, None, endgame)
    win_middlegame, draw_middlegame, _ = win_draw_loss(150, None, middlegame)
    assert win_endgame < win_middlegame and draw_endgame > draw_middlegame
