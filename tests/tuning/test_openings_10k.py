"""The SPRT opening suite (``tuning/openings/balanced-10k.epd``, made by ``tuning/make_openings.py``)."""

from __future__ import annotations

from pathlib import Path

import chess

from tuning.openings import read_openings

SUITE = Path(__file__).resolve().parents[2] / "tuning" / "openings" / "balanced-10k.epd"


def test_the_suite_holds_ten_thousand_distinct_legal_positions_none_in_check():
    openings = read_openings(SUITE)  # raises on a line that is not a legal position
    boards = [opening.board() for opening in openings]
    assert len(boards) >= 10_000
    assert len({board.epd() for board in boards}) == len(boards)
    assert not any(board.is_check() or board.is_game_over() for board in boards)
    assert all(board.is_valid() for board in boards)


def test_the_suite_is_not_one_opening_line():
    # Walks branch from many openings: the positions spread over first moves and lengths.
    boards = [opening.board() for opening in read_openings(SUITE)]
    white_pawns = {int(board.pieces(chess.PAWN, chess.WHITE)) for board in boards}
    assert len(white_pawns) > 2_000
    assert {board.turn for board in boards} == {chess.WHITE, chess.BLACK}
    assert len({chess.popcount(board.occupied) for board in boards}) >= 4  # captures made in some walks
