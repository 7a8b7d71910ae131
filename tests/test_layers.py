"""The engine layer never imports the protocol layer (``jitfish.uci``): the protocol calls the engine, not back."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "jitfish"
ENGINE_LAYER = [
    PACKAGE / "engine.py",
    PACKAGE / "book.py",
    PACKAGE / "strength.py",
    PACKAGE / "options.py",
    PACKAGE / "turn.py",
    PACKAGE / "game.py",
    PACKAGE / "report.py",
    *sorted((PACKAGE / "search").glob("*.py")),
]


def imported_modules(path: Path) -> set[str]:
    """Every module an ``import`` in the file names, at any depth (functions included)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", ENGINE_LAYER, ids=lambda path: path.relative_to(PACKAGE).as_posix())
def test_engine_layer_source_never_imports_the_protocol(path):
    assert not {module for module in imported_modules(path) if module.startswith("jitfish.uci")}


def test_importing_the_engine_loads_no_protocol_module():
    code = "import sys, jitfish.engine; print(sorted(m for m in sys.modules if m.startswith('jitfish.uci')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
