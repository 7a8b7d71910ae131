"""The ladder's guarantees on real positions: exact searches agree with minimax, pruning never reads more leaves.

Minimax runs on every suite position to depth 3, and to depth 4 on those
whose full tree is small (perft(4) at most ``DEPTH_4_LEAVES``), so that the
file runs in seconds once the kernels are compiled.
"""

from __future__ import annotations

import pytest

import jitfish
from jitfish.teach.ladder import _Buffers, _run_deepening, _run_fixed, ladder, ladder_suite, minimax_tree_sizes
from jitfish.teach.plot import plot_nodes
from jitfish.teach.report import ALGORITHM_NAMES, BY_NAME, format_value
from jitfish.types import MATE
from tests.extras import needs
from tests.teach.conftest import suite_positions

pytestmark = pytest.mark.usefixtures("teaching_kernels")

DEPTH_4_LEAVES = 100_000
EXACT_DEEPENING = ("deepening", "pvs")
OPENING = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def cases() -> list[tuple[str, int]]:
    return [
        (fen, depth)
        for fen, leaves in suite_positions()
        for depth in range(1, 5)
        if depth < 4 or leaves <= DEPTH_4_LEAVES
    ]


def test_the_suite_holds_a_few_hundred_positions_and_a_depth_4_subset():
    positions = suite_positions()
    assert len(positions) >= 300
    assert sum(1 for _, leaves in positions if leaves <= DEPTH_4_LEAVES) >= 100


def test_minimax_visits_the_whole_perft_tree():
    board = jitfish.Board(OPENING)
    buffers = _Buffers()
    sizes = minimax_tree_sizes(board, 3)
    for depth in (1, 2, 3):
        result = _run_fixed("minimax", board, depth, buffers)
        assert result.nodes == sizes[depth]
        assert result.leaves == board.perft(depth)  # no mate within 3 plies here: every leaf is at the horizon


def test_exact_searches_return_minimax_value_and_alphabeta_never_reads_more_leaves():
    buffers = _Buffers(tt_entries=1 << 14)
    disagreements, more_leaves = [], []
    checked = 0
    for fen, depth in cases():
        board = jitfish.Board(fen)
        minimax = _run_fixed("minimax", board, depth, buffers)
        for name in ("alphabeta", "ordering"):
            result = _run_fixed(name, board, depth, buffers)
            if result.value != minimax.value:
                disagreements.append((fen, depth, name, result.value, minimax.value))
            if result.leaves > minimax.leaves or result.nodes > minimax.nodes:
                more_leaves.append((fen, depth, name, result.leaves, minimax.leaves))
        checked += 1
    assert checked >= 400
    assert disagreements == []
    assert more_leaves == []


def test_deepening_and_pvs_keep_minimax_value_at_every_iteration():
    buffers = _Buffers(tt_entries=1 << 14)
    disagreements = []
    for fen, leaves in suite_positions()[::3]:
        board = jitfish.Board(fen)
        depth = 4 if leaves <= DEPTH_4_LEAVES else 3
        reference = [_run_fixed("minimax", board, d, buffers).value for d in range(1, depth + 1)]
        for name in EXACT_DEEPENING:
            values = [r.value for r in _run_deepening(name, board, depth, buffers)]
            if values != reference:
                disagreements.append((fen, name, values, reference))
    assert disagreements == []


def test_report_flags_inexact_rungs_with_a_reason_and_never_an_exact_one():
    report = ladder(OPENING, 4, [n for n in ALGORITHM_NAMES if n != "engine"])
    flags = report.flags()
    assert not any(flag.startswith("ERROR") for flag in flags)
    assert any("quiescence gives" in flag and BY_NAME["quiescence"].differs_because in flag for flag in flags)
    assert any("pruning gives" in flag for flag in flags)  # null move and LMR change this position's value
    text = str(report)
    assert "exact rungs (minimax, alphabeta, ordering, deepening, pvs, mtdf) agree with minimax" in text
    assert report.tree_fraction("minimax", 4) == 1.0
    assert report.tree_fraction("alphabeta", 4) < 0.1


def test_engine_rung_reports_the_engines_own_iterations():
    report = ladder(OPENING, 3, ["alphabeta", "engine"])
    engine = [report.get("engine", d) for d in (1, 2, 3)]
    assert all(result is not None and result.nodes > 0 for result in engine)
    assert engine[0].nodes <= engine[1].nodes <= engine[2].nodes  # totals of the run so far
    assert jitfish.Board(OPENING).is_legal(engine[2].best_move)


def test_minimax_is_skipped_over_its_budget_and_the_reason_printed():
    report = ladder(OPENING, 3, ["minimax", "ordering"], minimax_budget=1000)
    assert report.get("minimax", 2) is not None and report.get("minimax", 3) is None
    assert "over the budget" in str(report)
    assert report.get("ordering", 3) is not None


def test_suite_sums_the_single_ladders():
    fens = [fen for fen, _ in suite_positions()[:4]]
    total = ladder_suite(fens, 2, ["minimax", "alphabeta"])
    singles = [ladder(fen, 2, ["minimax", "alphabeta"]) for fen in fens]
    assert total.get("alphabeta", 2).nodes == sum(s.get("alphabeta", 2).nodes for s in singles)
    assert total.minimax_tree[2] == sum(s.minimax_tree[2] for s in singles)
    assert total.flags() == []


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="depth"):
        ladder(OPENING, 0)
    with pytest.raises(ValueError, match="unknown algorithm"):
        ladder(OPENING, 2, ["negascout"])
    with pytest.raises(ValueError):
        ladder("not a fen", 2)
    with pytest.raises(ValueError):
        ladder_suite([], 2)


@needs("matplotlib")
def test_plot_nodes_writes_a_png(tmp_path):
    report = ladder(OPENING, 3, ["minimax", "alphabeta", "pvs"])
    plot_nodes(report, str(tmp_path / "nodes.png"))
    assert (tmp_path / "nodes.png").read_bytes()[:4] == b"\x89PNG"


def test_a_mated_root_is_reported_as_mated_by_every_rung():
    report = ladder("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 2, ["minimax", "pvs"])
    assert report.get("minimax", 1).value == report.get("pvs", 2).value == -MATE
    assert "mated" in str(report) and report.flags() == []


def test_values_are_printed_as_centipawns_or_mates():
    assert [format_value(v) for v in (35, -7, 0, MATE - 3, -MATE + 2, -MATE)] == [
        "+35",
        "-7",
        "+0",
        "#2",
        "#-1",
        "mated",
    ]
