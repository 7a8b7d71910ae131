"""``docs/teaching.ipynb`` runs from top to bottom, and each traced search shows its page as the cell's value.

It needs ``nbclient``, ``nbformat`` and ``ipykernel`` (none is a dependency of Jitfish); without them the test
skips, naming what is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.extras import installed

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "teaching.ipynb"
MISSING = [module for module in ("nbclient", "nbformat", "ipykernel") if not installed(module)]


@pytest.mark.skipif(bool(MISSING), reason=f"needs {', '.join(MISSING)}, not installed: pip install {' '.join(MISSING)}")
@pytest.mark.usefixtures("uct_kernels")
def test_the_teaching_notebook_runs_and_shows_each_traced_search(monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # kept clean
    root = str(NOTEBOOK.parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": root}}).execute()
    pages = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.get("output_type") == "execute_result" and "text/html" in output.get("data", {})
    ]
    assert (
        len(pages) == 9
    )  # trees: the textbook, positions; alpha-beta, MTD(f), horizon, MCTS, Star1, max^n, Kriegspiel
    assert all(page["data"]["text/html"].startswith("<iframe srcdoc=") for page in pages)
