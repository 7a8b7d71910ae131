"""``jitfish teach`` through a real child process, and the promise that nothing teaching-related loads unasked."""

from __future__ import annotations

import subprocess
import sys

import pytest


def run_jitfish(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jitfish", *args], capture_output=True, text=True, timeout=600)


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


@pytest.mark.usefixtures("teaching_kernels")
def test_teach_ladder_prints_every_depth_and_writes_the_plot(tmp_path):
    plot = tmp_path / "nodes.png"
    result = run_jitfish("teach", "ladder", "--depth", "3", "--algorithms", "minimax,alphabeta,pvs",
                         "--plot", str(plot))
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
    child = ("import sys, jitfish, jitfish.cli, jitfish.uci.main, jitfish.engine\n"
             "assert 'jitfish.teach' not in sys.modules, 'import jitfish loaded teach'\n"
             "jitfish.cli.build_parser()\n"
             "assert 'jitfish.teach.kernels' not in sys.modules\n"
             "from jitfish import teach\n"
             "teach.alphabeta_tree(teach.TEXTBOOK_TREE)\n"
             "assert 'jitfish.teach.kernels' not in sys.modules\n"
             "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
