"""MTD(f): minimax's value and a minimax move from zero-window passes alone, over a table that keeps both bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

import jitfish
from jitfish.teach.ladder import _Buffers, _call, _run_fixed, _run_mtdf, ladder, mtdf_passes
from jitfish.teach.plot import plot_bounds
from jitfish.teach.report import format_passes
from jitfish.types import INF, MATE_BOUND
from tests.extras import needs
from tests.teach.conftest import suite_positions

pytestmark = pytest.mark.usefixtures("teaching_kernels")

DOCS = Path(__file__).resolve().parents[2] / "docs" / "teaching.md"
DEPTH_4_LEAVES = 100_000  # as test_ladder: minimax to depth 4 where perft(4) is at most this
OPENING = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def minimax_move_value(board, move: str, depth: int, buffers: _Buffers) -> int:
    """Minimax's value of ``move`` at the root: the negated value of the position after it, a mate one ply further."""
    after = board.copy()
    after.push_uci(move)
    value = -_run_fixed("minimax", after, depth - 1, buffers).value
    return value - 1 if value >= MATE_BOUND else value + 1 if value <= -MATE_BOUND else value


def test_mtdf_returns_minimax_value_and_a_minimax_move_on_the_suite_at_depths_1_to_4():
    buffers, reference = _Buffers(tt_entries=1 << 14), _Buffers(tt_entries=1 << 10)
    wrong_values, wrong_moves, checked = [], [], 0
    for fen, leaves in suite_positions():
        board = jitfish.Board(fen)
        depth = 4 if leaves <= DEPTH_4_LEAVES else 3
        results, passes, _ = _run_mtdf(board, depth, buffers)
        for result in results:
            minimax = _run_fixed("minimax", board, result.depth, reference)
            checked += 1
            if result.value != minimax.value:
                wrong_values.append((fen, result.depth, result.value, minimax.value))
            elif minimax.pv and result.best_move != minimax.best_move:
                # Equal values may come from different moves: MTD(f)'s must be worth minimax's value too.
                if minimax_move_value(board, result.best_move, result.depth, reference) != minimax.value:
                    wrong_moves.append((fen, result.depth, result.best_move, minimax.best_move))
            assert passes[result.depth][-1].lower == passes[result.depth][-1].upper == result.value
    assert checked >= 1000
    assert wrong_values == []
    assert wrong_moves == []


def test_mtdf_visits_fewer_nodes_than_alphabeta_at_depth_4_on_the_shipped_position():
    report = ladder(OPENING, 4, ["alphabeta", "deepening", "pvs", "mtdf"])
    assert report.flags() == []
    assert report.get("mtdf", 4).nodes < report.get("alphabeta", 4).nodes
    assert report.get("mtdf", 4).best_move == report.get("alphabeta", 4).best_move


def test_every_pass_bounds_the_value_and_the_bounds_only_close_in():
    report = ladder(OPENING, 4, ["minimax", "mtdf"])
    for depth in range(1, 5):
        value = report.get("minimax", depth).value
        passes = report.passes[depth]
        assert passes[0].gamma == report.guesses[depth] == (report.get("mtdf", depth - 1).value if depth > 1 else 7)
        lower, upper = -INF, INF
        for p in passes:
            # Fail high: the value is at least the result; fail low: at most.
            assert (value >= p.result >= p.gamma) if p.failed_high else (value <= p.result < p.gamma)
            assert lower <= p.lower <= value <= p.upper <= upper
            lower, upper = p.lower, p.upper
        assert lower == upper == value


def test_a_perfect_guess_takes_two_passes_and_a_worse_one_more():
    value = ladder(OPENING, 4, ["pvs"]).get("pvs", 4).value
    perfect = mtdf_passes(OPENING, 4, value)
    assert [(p.gamma, p.failed_high, p.result) for p in perfect] == [(value, True, value), (value + 1, False, value)]
    off = mtdf_passes(OPENING, 4, value + 100)
    assert len(off) > 2 and sum(p.nodes for p in off) > sum(p.nodes for p in perfect)
    assert off[-1].lower == off[-1].upper == value


def test_the_table_keeps_both_bounds_so_a_repeated_question_costs_one_node():
    """After MTD(f) the root's entry holds lower = upper = the value: asking either question again is free.

    A table that kept one bound (the last pass's) or none would search the
    tree again for at least one of them.
    """
    board = jitfish.Board(OPENING)
    buffers = _Buffers()
    results, _, _ = _run_mtdf(board, 4, buffers)
    value = results[-1].value
    position = board.position.copy()
    for alpha, beta in ((value - 1, value), (value, value + 1)):
        before = int(buffers.counters[0])
        assert _call("mtdf", position, buffers, 4, alpha, beta) == value
        assert int(buffers.counters[0]) - before == 1


def test_one_bound_answers_every_question_it_settles():
    """A pass that fails high leaves a lower bound at the root: any question at or below it is answered at once.

    So does a pass that fails low, for questions above its upper bound.  A
    table that only answered with exact values would search again each time.
    """
    value = ladder(OPENING, 4, ["pvs"]).get("pvs", 4).value
    position = jitfish.Board(OPENING).position.copy()
    buffers = _Buffers()
    high = _call("mtdf", position, buffers, 4, value - 51, value - 50)
    low = _call("mtdf", position, buffers, 4, value + 50, value + 51)
    assert value - 50 <= high <= value <= low <= value + 50
    for gamma in (value - 50, high, value + 51, low + 1):
        before = int(buffers.counters[0])
        answer = _call("mtdf", position, buffers, 4, gamma - 1, gamma)
        assert answer == (high if gamma <= high else low)
        assert int(buffers.counters[0]) - before == 1


@needs("matplotlib")
def test_the_report_shows_each_pass_and_the_bounds_plot_is_drawn(tmp_path):
    report = ladder(OPENING, 3, ["pvs", "mtdf"])
    text = str(report)
    assert "mtdf: 2 zero-window passes from the first guess +7 (depth 0's value)" in text
    assert "1. value >=     +7?  yes, >= +113" in text
    assert "exact rungs (pvs, mtdf) agree with minimax everywhere" in text
    plot_bounds(report, str(tmp_path / "bounds.png"))
    assert (tmp_path / "bounds.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="no MTD"):
        plot_bounds(ladder(OPENING, 2, ["pvs"]))


def test_the_page_shows_the_passes_the_ladder_prints():
    report = ladder(OPENING, 4, ["mtdf"])
    page = DOCS.read_text()
    for line in format_passes(report, 4):
        assert line in page, line
