"""A missing optional extra: one line naming the module and the install command, exit status 2, no traceback.

Each command runs in a fresh interpreter whose import system refuses the module, as if it were not
installed (whether or not it is on this machine), and must say so before doing any work.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "tests" / "data" / "datagen_sample.gz"
GAME = REPO / "tests" / "data" / "analyse" / "sunfish-jitfish.pgn"

# Prepended to each command: a finder, first on sys.meta_path, that refuses MODULES and their submodules.
BLOCKER = """
import runpy, sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {modules!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
"""

COMMANDS = [
    (
        "matplotlib",
        "jitfish teach ladder --plot",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'ladder', '--depth', '1', '--plot', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach tree --out",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'tree', '--out', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach tree --out",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'tree', '--chance', '--out', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach tree --out",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'tree', '--players', '3', '--out', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach ladder --bounds-plot",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'ladder', '--depth', '1', '--bounds-plot', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach kriegspiel --plot",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'kriegspiel', '--max-moves', '1', '--plot', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish teach mcts --plot",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['teach', 'mcts', '--iterations', '1', '--plot', {out!r}]))",
    ),
    (
        "matplotlib",
        "jitfish analyse --plot",
        "plot",
        "from jitfish.cli import main; sys.exit(main(['analyse', " + repr(str(GAME)) + ", "
        "'--output', {out!r} + '.pgn', '--plot', {out!r}]))",
    ),
    (
        "matplotlib",
        "the Texel tuner's loss plot",
        "plot",
        "from tuning.texel import main; sys.exit(main([" + repr(str(SAMPLE)) + ", '--plot', {out!r}]))",
    ),
    (
        "distributed",
        "--cluster",
        "cluster",
        "from tuning.datagen.__main__ import main; sys.exit(main(['--games', '1', '--quiet', '--cluster', 'local:1', "
        "'--output', {out!r}]))",
    ),
    (
        "distributed",
        "--cluster",
        "cluster",
        "from tuning.match import main; sys.exit(main(['--engine', 'cmd=a', '--engine', 'cmd=b', '--tc', 'nodes=1', "
        "'--quiet', '--cluster', 'local:1', '--pgnout', {out!r}]))",
    ),
    (
        "torch",
        "python -m tuning.nnue",
        "train",
        "sys.argv = ['tuning.nnue', 'train', " + repr(str(SAMPLE)) + "]; runpy.run_module('tuning.nnue', "
        "run_name='__main__')",
    ),
]


def _without(modules: tuple[str, ...], code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run in a fresh interpreter that refuses ``modules``, as if they were not installed."""
    return subprocess.run(
        [sys.executable, "-c", BLOCKER.format(modules=modules) + code],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


@pytest.mark.parametrize("module, needed_by, extra, code", COMMANDS, ids=[c[1] for c in COMMANDS])
def test_a_missing_extra_is_one_line_and_status_2(tmp_path, module, needed_by, extra, code):
    out = tmp_path / "picture.png"
    done = _without((module,), code.format(out=str(out)), tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"error: {needed_by} needs {module}, which is not installed: pip install 'jitfish[{extra}]'"
    ]
    assert "Traceback" not in done.stdout + done.stderr
    assert not out.exists()


def test_the_extras_named_exist_in_pyproject():
    import tomllib

    from jitfish.runtime.extras import EXTRA_OF

    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for module, extra in EXTRA_OF.items():
        assert any(requirement.startswith(module) for requirement in extras[extra]), (module, extra)


def test_every_test_module_imports_without_the_optional_extras(tmp_path):
    """With only the ``test`` extra, collection passes: a module that needs an extra skips, naming it."""
    from jitfish.runtime.extras import EXTRA_OF

    refused = (*EXTRA_OF, "dask")
    pytest_args = ["--collect-only", "-q", "-rs", "-m", "", "-p", "no:cacheprovider", "--rootdir", str(REPO)]
    done = _without(refused, f"import pytest; sys.exit(pytest.main({[*pytest_args, str(REPO / 'tests')]!r}))", REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "error" not in done.stdout.splitlines()[-1], done.stdout[-3000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    for module in ("torch", "distributed"):  # tests/nnue/test_training.py, tests/tuning/test_cluster.py
        assert any(f"needs {module}, the '{EXTRA_OF[module]}' extra" in line for line in skips), skips


def test_a_test_that_needs_an_extra_skips_naming_it(tmp_path):
    program = (
        "import pytest; sys.exit(pytest.main(['-q', '-rs', '-p', 'no:cacheprovider', '--rootdir', "
        f"{str(REPO)!r}, {str(REPO / 'tests/teach/test_chance.py')!r}, '-k', 'png']))"
    )
    done = _without(("matplotlib",), program, REPO)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 skipped" in done.stdout and "needs matplotlib, the 'plot' extra" in done.stdout, done.stdout[-3000:]
