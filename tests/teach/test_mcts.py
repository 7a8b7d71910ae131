"""Monte Carlo tree search on chess: the search's invariants, and the shipped positions show what they claim.

The claims tested here are the ones docs/teaching.md makes: the numbers it
quotes come from the same seeds and budgets.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jitfish.teach.mcts import POLICIES, POSITIONS_FILE, load_positions, mcts
from jitfish.types import MATE_BOUND
from tests.extras import needs

MATE_IN_ONE = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"
POSITIONS = {comment.split(":")[0]: (fen, iterations) for fen, iterations, comment in load_positions()}
QUIET_TOLERANCE = 50  # centipawns by which MCTS's choice may trail alpha-beta's on the quiet position

pytestmark = pytest.mark.usefixtures("uct_kernels")


@pytest.mark.parametrize("policy", list(POLICIES))
def test_each_iteration_visits_one_root_move_and_the_mate_in_one_wins(policy):
    report = mcts(MATE_IN_ONE, 300, policy)
    assert [int(v.sum()) for v in report.visits] == report.checkpoints
    assert report.nodes == sorted(report.nodes) and report.nodes[-1] > 0
    assert report.best_move == "a1a8"
    assert report.means()[report.moves.index("a1a8")] == 1.0  # every playout from it is a win
    assert report.alphabeta_choice.best_move == "a1a8"


def test_the_same_seed_gives_the_same_search_and_another_seed_another():
    first = mcts(POSITIONS["quiet"][0], 200, "random", seed=5, alphabeta=False)
    again = mcts(POSITIONS["quiet"][0], 200, "random", seed=5, alphabeta=False)
    other = mcts(POSITIONS["quiet"][0], 200, "random", seed=6, alphabeta=False)
    assert np.array_equal(first.visits, again.visits) and np.array_equal(first.rewards, again.rewards)
    assert first.nodes == again.nodes
    assert not np.array_equal(first.rewards, other.rewards)


def test_the_shipped_file_holds_the_three_lessons():
    assert set(POSITIONS) == {"quiet", "mate in 2", "trap"}
    assert POSITIONS_FILE.exists()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_on_the_quiet_position_mcts_with_the_evaluation_plays_within_50_cp_of_alpha_beta(seed):
    fen, iterations = POSITIONS["quiet"]
    report = mcts(fen, iterations, "eval", seed=seed)
    assert report.alphabeta_choice.depth >= 4
    assert 0 <= report.choice_loss <= QUIET_TOLERANCE
    if seed == 1:  # the page's example: Nxe5 leads while Black's random replies rarely recapture
        assert report.san_of(report.best_move) == report.san_of(report.alphabeta_choice.best_move) == "Nc3"
        assert round(report.shares()[report.moves.index(report.best_move)], 1) == 0.3
        assert [report.san_of(report.choice(report.checkpoints.index(n))) for n in (1000, 2000, 5000)] == ["Nxe5"] * 3


def test_on_the_mate_in_2_alpha_beta_mates_and_random_playout_mcts_does_not():
    fen, iterations = POSITIONS["mate in 2"]
    report = mcts(fen, iterations, "random")
    reference = report.alphabeta_choice
    assert reference.value >= MATE_BOUND and report.san_of(reference.best_move) == "Qd8+"
    assert reference.depth == 4 and reference.nodes < report.nodes[-1] / 10
    key = report.moves.index(reference.best_move)
    assert report.best_move != reference.best_move
    assert len(report.moves) == 47 and report.shares()[key] < 0.03  # about a uniform share (2 %)
    assert report.choice_value < 0  # and its own choice is worse than nothing


def test_on_the_trap_neither_policy_finds_the_queen_sacrifice_that_alpha_beta_plays():
    fen, iterations = POSITIONS["trap"]
    for policy in POLICIES:
        report = mcts(fen, iterations if policy == "eval" else iterations // 5, policy)
        reference = report.alphabeta_choice
        assert report.san_of(reference.best_move) == "Qxf8+" and reference.value > 0
        assert report.best_move != reference.best_move
        assert report.choice_loss >= 500
        # Alpha-beta sees the fork from depth 4 on, and not before.
        assert [it.best_move == "f1f8" for it in report.alphabeta if it.depth >= 3][:3] == [False, True, True]
        if policy == "eval":
            key = report.moves.index(reference.best_move)
            assert report.means()[key] < 0.15 and report.shares()[key] < 0.01  # the queen for a rook, on average


@pytest.mark.slow
def test_the_page_quotes_the_commands_own_summary_of_every_shipped_run():
    import subprocess
    import sys

    page = (Path(__file__).resolve().parents[2] / "docs" / "teaching.md").read_text()
    result = subprocess.run(
        [sys.executable, "-m", "jitfish", "teach", "mcts"], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    summary = [line for line in result.stdout.splitlines() if line.startswith(("MCTS plays", "Alpha-beta with"))]
    assert len(summary) == 12
    for line in summary:
        assert line in page, line


def test_the_report_says_what_each_search_plays():
    report = mcts(POSITIONS["mate in 2"][0], 100, "eval")
    text = report.text()
    assert text.startswith("Position: ")
    assert "MCTS plays " in text and "Alpha-beta with as many positions reaches depth" in text
    assert len([line for line in text.splitlines() if line.strip()[:1].isdigit()]) == len(report.checkpoints)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="policy"):
        mcts(MATE_IN_ONE, 10, "greedy")
    with pytest.raises(ValueError, match="iterations"):
        mcts(MATE_IN_ONE, 0)
    with pytest.raises(ValueError, match="exploration"):
        mcts(MATE_IN_ONE, 10, exploration=-1)
    with pytest.raises(ValueError, match="playout plies"):
        mcts(MATE_IN_ONE, 10, playout_plies=-1)
    with pytest.raises(ValueError, match="no legal moves"):
        mcts("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 10)
    with pytest.raises(ValueError):
        mcts("not a fen", 10)


def test_a_malformed_positions_file_names_the_line(tmp_path):
    bad = tmp_path / "bad.epd"
    bad.write_text("# comment\n8/8/8/8/8/8/8/K6k w - - 0 1; depth 3; no\n")
    with pytest.raises(ValueError, match="bad.epd:2"):
        load_positions(bad)


@needs("matplotlib")
def test_plot_visits_draws_several_reports_in_one_png(tmp_path):
    from jitfish.teach.plot import plot_visits

    reports = [mcts(MATE_IN_ONE, 50, policy, alphabeta=policy == "eval") for policy in POLICIES]
    plot_visits(reports, str(tmp_path / "visits.png"))
    assert (tmp_path / "visits.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
