"""The layers of ``jitfish/`` import downwards only (docs/architecture.md, "The layers").

The runtime (``jitfish/runtime/``) sits under everything: it imports no engine-layer, protocol or CLI module.
The board, the evaluation, the search and the tablebases never import the engine layer, the protocol or the
CLI; the engine layer (``jitfish/engine/``) never imports the protocol (``jitfish/uci/``) or the CLI: the
protocol calls the engine, not back.  Read from the source, imports inside functions included.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jitfish"
ABOVE_THE_ENGINE = ("jitfish.uci", "jitfish.cli", "jitfish.analysis", "jitfish.play", "jitfish.teach")
# Each layer's files, and the modules above it that they may not import.
LAYERS = {
    "runtime": (sorted((PACKAGE / "runtime").glob("*.py")), ("jitfish.engine", *ABOVE_THE_ENGINE)),
    "core": (
        [
            PACKAGE / "types.py",
            *(
                path
                for folder in ("board", "eval", "nnue", "search", "syzygy")
                for path in (PACKAGE / folder).glob("*.py")
            ),
        ],
        ("jitfish.engine", *ABOVE_THE_ENGINE),
    ),
    "engine": (sorted((PACKAGE / "engine").glob("*.py")), ABOVE_THE_ENGINE),
}
CASES = [(path, forbidden) for paths, forbidden in LAYERS.values() for path in sorted(paths)]


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` in the file names, at any depth (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update(
                [node.module] if node.module != "jitfish" else (f"jitfish.{alias.name}" for alias in node.names)
            )
    return names


def test_every_layer_has_its_files():
    for name, (paths, _) in LAYERS.items():
        assert len(paths) >= 5, name


@pytest.mark.parametrize(("path", "forbidden"), CASES, ids=[path.relative_to(PACKAGE).as_posix() for path, _ in CASES])
def test_no_module_imports_a_layer_above_its_own(path, forbidden):
    assert not {module for module in imported_modules(path) if module.startswith(forbidden)}


def test_importing_the_engine_loads_no_protocol_module():
    code = "import sys, jitfish.engine.engine; print(sorted(m for m in sys.modules if m.startswith('jitfish.uci')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_file_of_the_package_is_over_600_lines():
    long = {
        path.relative_to(PACKAGE).as_posix(): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > 600
    }
    assert long == {}
