"""Stalemate, repetition, the fifty-move rule and insufficient material are draws; mates still count."""

from __future__ import annotations

import pytest

import jitfish
from jitfish.search import SearchLimits
from tests.search.conftest import DATA

STALEMATES = [line.strip() for line in (DATA / "stalemate0.fen").read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("fen", STALEMATES)
def test_stalemated_root_scores_zero(fresh, fen):
    result = fresh.search(jitfish.Board(fen), SearchLimits(depth=3))
    assert result.best_move == "0000"
    assert result.score_cp == 0 and result.score_mate is None


def test_stalemating_move_scores_zero(fresh):
    # White queen could stalemate with Qg6?? -- restricted to that move the score must be a draw.
    board = jitfish.Board("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1")
    result = fresh.search(board, SearchLimits(depth=4, searchmoves=["g1g6"]))
    assert result.best_move == "g1g6"
    assert result.score_cp == 0


def test_repetition_is_a_draw(fresh):
    board = jitfish.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(uci)
    result = fresh.search(board, SearchLimits(depth=5, searchmoves=["f6g8"]))
    assert result.score_cp == 0


def test_fifty_move_rule(fresh):
    # Clock at 99: no capture or pawn move is possible, so every move draws.
    board = jitfish.Board("7k/8/8/8/8/8/8/KQ6 w - - 99 80")
    result = fresh.search(board, SearchLimits(depth=4))
    assert result.score_cp == 0, result


def test_mate_on_the_hundredth_ply_counts(fresh):
    board = jitfish.Board("7k/8/6K1/8/8/8/8/1Q6 w - - 99 80")
    result = fresh.search(board, SearchLimits(depth=4))
    assert result.score_mate == 1, result
    assert result.best_move == "b1b8"


@pytest.mark.parametrize(
    "fen", ["8/8/4k3/8/8/3NK3/8/8 w - - 0 1", "8/8/4k3/8/8/3BK3/8/8 b - - 0 1", "8/8/4k3/8/8/4K3/8/8 w - - 0 1"]
)
def test_insufficient_material(fresh, fen):
    result = fresh.search(jitfish.Board(fen), SearchLimits(depth=5))
    assert result.score_cp == 0
