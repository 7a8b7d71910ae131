"""The shipped horizon-effect positions show what they are chosen for."""

from __future__ import annotations

import chess
import pytest

from jitfish.teach.horizon import POSITIONS_FILE, horizon, load_positions

pytestmark = pytest.mark.usefixtures("teaching_kernels")

MIN_ILLUSION = 200  # centipawns the horizon-blind search overrates its own move by
POSITIONS = load_positions()


def test_the_file_holds_positions_at_odd_and_shallow_depths():
    assert len(POSITIONS) >= 4
    assert {depth for _, depth, _ in POSITIONS} >= {1, 3}
    assert all(comment for _, _, comment in POSITIONS)


@pytest.mark.parametrize("fen, depth, comment", POSITIONS, ids=[c.split()[0] for _, _, c in POSITIONS])
def test_without_quiescence_the_search_ends_in_a_gain_answered_past_the_horizon(fen, depth, comment):
    result = horizon(fen, depth)
    blind = result.without_quiescence
    # The move the comment names first is the one the horizon-blind search plays, and quiescence avoids it.
    assert comment.startswith(blind.san[0].lstrip(".")) or comment.startswith("..." + blind.san[0])
    assert result.differs
    # Its principal variation reaches the horizon with a capture or a promotion by the side to move...
    board = chess.Board(fen)
    for uci in blind.pv[:-1]:
        board.push_uci(uci)
    last = board.parse_uci(blind.pv[-1])
    assert len(blind.pv) == depth and (board.is_capture(last) or last.promotion)
    # ...whose answer, one ply later, the quiescence search sees: the blind search overrates its move.
    assert blind.value - result.blind_move_value >= MIN_ILLUSION
    assert result.loss >= MIN_ILLUSION
    assert "gives away" in result.text()


def test_a_quiet_position_needs_no_quiescence_to_choose():
    result = horizon("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 2)
    assert not result.differs
    assert "same move" in result.text()


def test_bad_input_is_a_value_error(tmp_path):
    with pytest.raises(ValueError):
        horizon("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 0)
    with pytest.raises(ValueError):
        horizon("k7/1R6/1K6/8/8/8/8/8 b - - 0 1", 2)  # stalemate: no move to choose
    bad = tmp_path / "bad.epd"
    bad.write_text("8/8/8/8/8/8/8/8 w - - 0 1; deep 3\n")
    with pytest.raises(ValueError, match="bad.epd:1"):
        load_positions(bad)
    assert POSITIONS_FILE.exists()
