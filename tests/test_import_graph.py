"""The import graph of the source: no circle in ``jitfish/``, and no private name imported across packages.

Read from the source (``ast``), as text: an import inside a function counts as
much as one at the top of a module (a local import that only hides a circle
is still a circle), and so does one under ``if TYPE_CHECKING:`` (a circle
that only the type checker walks is still two modules that each need the
other to be read).  A private name (``_x``) may be imported only by a module of
the package (the folder) that defines it; ``jitfish/``, ``tuning/`` and
``scripts/`` are checked, the tests are not (they may test private parts).

The layers: ``scripts/`` (benchmarks, checks and generators run by hand) may
import ``tuning`` (the tools), which may import ``jitfish`` (the engine), and
never the other way.  Library code lives in packages, so nothing imports a
script (not a test, not another script), and no module touches ``sys.path``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED_FOR_PRIVATE_IMPORTS = ("jitfish", "tuning", "scripts")
# What the modules under each top folder may not import: a layer above them, the tests, or a script.
NOT_IMPORTED_FROM = {
    "jitfish": ("tuning", "scripts", "tests"),
    "tuning": ("scripts", "tests"),
    "scripts": ("scripts",),
    "tests": ("scripts",),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(top: str) -> dict[str, Path]:
    return {_module_name(path): path for path in sorted((ROOT / top).rglob("*.py"))}


def _imports(path: Path) -> list[tuple[str, str | None, int]]:
    """``(module, name or None, line)`` of every absolute import written in the file."""
    found: list[tuple[str, str | None, int]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            found.extend((node.module, alias.name, node.lineno) for alias in node.names)
    return sorted(found, key=lambda row: row[2])


def _package(module: str, modules: dict[str, Path]) -> str:
    """The package (folder) a module belongs to: a package's ``__init__`` is its own."""
    return module if modules[module].name == "__init__.py" else module.rpartition(".")[0]


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for module, path in modules.items():
        for imported, name, _ in _imports(path):
            target = f"{imported}.{name}" if name is not None and f"{imported}.{name}" in modules else imported
            if target in modules and target != module:
                graph[module].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return circles


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


@pytest.mark.parametrize("top", ["jitfish", "tuning"])
def test_no_circle(top):
    assert _circles(_graph(_modules(top))) == []


@pytest.mark.parametrize("top", NOT_IMPORTED_FROM)
def test_no_import_reaches_up_a_layer_or_into_a_script(top):
    forbidden = NOT_IMPORTED_FROM[top]
    found = [
        f"{path.relative_to(ROOT)}:{line}: {imported}"
        for path in _modules(top).values()
        for imported, _, line in _imports(path)
        if imported.partition(".")[0] in forbidden
    ]
    assert found == []


@pytest.mark.parametrize("top", ["tuning", "scripts", "tests"])
def test_no_module_touches_the_import_path(top):
    """No ``sys.path`` at all (``insert``, ``append``, ``sys.path[:] = ...``): a tool or script runs with
    ``python -m`` from the repository's root instead, which puts the checkout first on the path."""
    edits = []
    for path in _modules(top).values():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "path" and ast.unparse(node.value) == "sys":
                edits.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert edits == []


@pytest.mark.parametrize("top", CHECKED_FOR_PRIVATE_IMPORTS)
def test_no_private_name_is_imported_from_another_package(top):
    modules = _modules(top)
    jitfish_modules = _modules("jitfish") if top != "jitfish" else modules
    known = {**jitfish_modules, **modules}
    crossings = []
    for module, path in modules.items():
        for imported, name, line in _imports(path):
            if name is None or not name.startswith("_") or name.startswith("__") or imported not in known:
                continue
            if _package(imported, known) != _package(module, known):
                crossings.append(f"{path.relative_to(ROOT)}:{line}: from {imported} import {name}")
    assert crossings == []
