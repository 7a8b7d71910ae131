"""Which positions get a line: the filter on hand-made cases."""

from __future__ import annotations

import chess
import pytest

from jitfish.types import MATE
from tuning.datagen.quiet import is_quiet

OPEN_GAME = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def quiet(fen: str, move: str, score: int = 20) -> bool:
    return is_quiet(chess.Board(fen), chess.Move.from_uci(move), score)


def test_a_quiet_move_in_a_quiet_position_is_kept():
    assert quiet(OPEN_GAME, "f1b5")
    assert quiet(OPEN_GAME, "f1b5", -900)


def test_a_capture_as_best_move_is_rejected():
    assert not quiet(OPEN_GAME, "f3e5")


def test_an_en_passant_capture_is_rejected():
    assert not quiet("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "e5f6")


@pytest.mark.parametrize("move", ["a7a8q", "a7a8n"])
def test_a_promotion_is_rejected(move):
    assert not quiet("7k/P7/8/8/8/8/6K1/8 w - - 0 1", move)


def test_a_side_in_check_is_rejected():
    assert not quiet("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1", "e1f1")  # a quiet king move out of check


@pytest.mark.parametrize("score", [MATE - 3, -(MATE - 8)])
def test_a_mate_score_is_rejected(score):
    assert not quiet(OPEN_GAME, "f1b5", score)
