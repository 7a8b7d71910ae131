"""``jitfish teach`` through a real child process, and the promise that nothing teaching-related loads unasked."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.extras import needs


def run_jitfish(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jitfish", *args], capture_output=True, text=True, timeout=600)


def drawn(picture, *args: str) -> str:
    """The output of a command that draws ``picture``, which it must have written as a PNG."""
    result = run_jitfish(*args, str(picture))
    assert result.returncode == 0, result.stderr
    assert picture.read_bytes()[:4] == b"\x89PNG"
    return result.stdout


@needs("matplotlib")
def test_teach_tree_prints_the_textbook_result_and_draws_it(tmp_path):
    out = tmp_path / "tree.png"
    result = run_jitfish("teach", "tree", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "minimax value 3, alpha-beta value 3" in result.stdout
    assert "pruned leaves (path from the root: value): [1, 1]: 4, [1, 2]: 6" in result.stdout
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_teach_tree_rejects_a_malformed_tree():
    result = run_jitfish("teach", "tree", "--leaves", "[[1, 2], [3")
    assert result.returncode == 2
    assert result.stderr.startswith("error: --leaves")


@needs("matplotlib")
@pytest.mark.usefixtures("teaching_kernels")
def test_teach_ladder_prints_every_depth_and_writes_the_plot(tmp_path):
    plot = tmp_path / "nodes.png"
    result = run_jitfish(
        "teach", "ladder", "--depth", "3", "--algorithms", "minimax,alphabeta,pvs", "--plot", str(plot)
    )
    assert result.returncode == 0, result.stderr
    for depth in (1, 2, 3):
        assert f"depth {depth}   (the minimax tree:" in result.stdout
    assert "exact rungs (minimax, alphabeta, pvs) agree with minimax everywhere" in result.stdout
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.usefixtures("teaching_kernels")
def test_teach_horizon_prints_both_principal_variations():
    result = run_jitfish("teach", "horizon", "--fen", "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", "--depth", "3")
    assert result.returncode == 0, result.stderr
    blind = next(line for line in result.stdout.splitlines() if "without quiescence:" in line)
    seeing = next(line for line in result.stdout.splitlines() if "with quiescence:" in line)
    assert blind.endswith("Rf8+ Kxf8 a8=Q+")
    assert "Kf1" in seeing


def test_teach_ladder_bad_depth_is_an_error_not_a_traceback():
    result = run_jitfish("teach", "ladder", "--depth", "99", "--algorithms", "minimax")
    assert result.returncode == 2
    assert "ladder depth must be between 1 and" in result.stderr


def test_importing_jitfish_and_building_the_command_line_loads_no_teaching_kernel():
    child = (
        "import sys, jitfish, jitfish.cli, jitfish.uci.main, jitfish.engine.engine\n"
        "assert 'jitfish.teach' not in sys.modules, 'import jitfish loaded teach'\n"
        "jitfish.cli.build_parser()\n"
        "assert 'jitfish.teach.kernels' not in sys.modules\n"
        "assert 'jitfish.teach.mcts_kernels' not in sys.modules\n"
        "from jitfish import teach\n"
        "teach.alphabeta_tree(teach.TEXTBOOK_TREE)\n"
        "teach.star1_tree(teach.CHANCE_TREE)\n"
        "teach.uct_tree(teach.TEXTBOOK_TREE, 50)\n"
        "assert 'jitfish.teach.kernels' not in sys.modules\n"
        "assert 'jitfish.teach.mcts_kernels' not in sys.modules\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


@needs("matplotlib")
def test_teach_tree_chance_prints_the_values_and_leaf_counts_and_draws_it(tmp_path):
    out = tmp_path / "chance.png"
    result = run_jitfish("teach", "tree", "--chance", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "expectiminimax value 1.5" in result.stdout
    assert "alpha-beta without bounds 10, Star1 with utilities in [-3, 3] 8 (value 1.5)" in result.stdout
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_teach_tree_chance_takes_a_users_tree_and_bounds():
    tree = "[[[0.9, [2, 2]], [0.1, [3, 3]]], [[0.9, [1, 1]], [0.1, [4, 4]]]]"
    result = run_jitfish("teach", "tree", "--chance", "--leaves", tree, "--bounds", "0", "4")
    assert result.returncode == 0, result.stderr
    assert "the root's moves are worth 2.1, 1.3" in result.stdout
    assert "Star1 with utilities in [0, 4]" in result.stdout
    wrong = run_jitfish("teach", "tree", "--chance", "--leaves", "[[[0.5, 1], [0.6, 2]]]")
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: at [0]: the probabilities")
    stray = run_jitfish("teach", "tree", "--bounds", "0", "4")
    assert stray.returncode == 2 and "--chance" in stray.stderr


@needs("matplotlib")
@pytest.mark.usefixtures("uct_kernels")
def test_teach_mcts_reports_both_policies_on_a_position(tmp_path):
    plot = tmp_path / "visits.png"
    result = run_jitfish(
        "teach", "mcts", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "--iterations", "200", "--plot", str(plot)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("MCTS plays Ra8# after 200 iterations") == 2
    assert "policy random" in result.stdout and "policy eval" in result.stdout
    assert plot.read_bytes()[:4] == b"\x89PNG"
    bad = run_jitfish("teach", "mcts", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "--iterations", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("error: iterations")


@needs("matplotlib")
@pytest.mark.usefixtures("teaching_kernels")
def test_teach_ladder_shows_mtdfs_passes_and_draws_its_bounds(tmp_path):
    plot = tmp_path / "bounds.png"
    shown = drawn(plot, "teach", "ladder", "--depth", "3", "--algorithms", "pvs,mtdf", "--bounds-plot")
    assert "mtdf: 2 zero-window passes from the first guess +7 (depth 0's value)" in shown
    wrong = run_jitfish("teach", "ladder", "--depth", "2", "--algorithms", "pvs", "--bounds-plot", str(plot))
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: --bounds-plot")


@needs("matplotlib")
def test_teach_tree_players_prints_maxn_beside_the_other_models_and_draws_the_tuples(tmp_path):
    shown = drawn(tmp_path / "maxn.png", "teach", "tree", "--players", "3", "--out")
    assert "value (6, 4, 3); the line played: A 2, B 1, C 1" in shown
    two = run_jitfish("teach", "tree", "--players", "2")
    assert two.returncode == 0 and "zero-sum: max^n is minimax" in two.stdout
    own = run_jitfish("teach", "tree", "--players", "4", "--leaves", "[[1, 2, 3, 4], [4, 3, 2, 1]]")
    assert own.returncode == 0 and "value (4, 3, 2, 1)" in own.stdout
    bad = run_jitfish("teach", "tree", "--players", "3", "--leaves", "[[1, 2], [3, 4, 5]]")
    assert bad.returncode == 2 and bad.stderr.startswith("error: at [0]: a leaf holds 3 utilities")
    assert run_jitfish("teach", "tree", "--players", "3", "--leaves", "[[1, 2, 3]").stderr.startswith("error: --leaves")


@needs("matplotlib")
@pytest.mark.usefixtures("teaching_kernels")
def test_teach_kriegspiel_reports_each_move_and_draws_the_belief_state(tmp_path):
    shown = drawn(tmp_path / "belief.png", "teach", "kriegspiel", "--samples", "4", "--max-moves", "6", "--plot")
    assert "Kriegspiel: 4 samples (White) against random (Black), seed 1" in shown and "Result: " in shown
    clairvoyant = run_jitfish("teach", "kriegspiel", "--clairvoyance")
    assert clairvoyant.returncode == 0 and "Averaging over clairvoyance plays Nd6+" in clairvoyant.stdout
    bad = run_jitfish("teach", "kriegspiel", "--samples", "0")
    assert bad.returncode == 2 and bad.stderr.startswith("error: the sampling player needs at least 1 sample")
