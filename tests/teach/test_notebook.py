"""``docs/teaching.ipynb`` runs from top to bottom, and every search it shows is the one its command runs.

Each traced search in the notebook names the ``jitfish teach`` command that runs it (the trace's ``command``) and
prints what that command prints.  The test runs each command with ``--html``, and holds the notebook's page (its
summary of the report's numbers, its counts and every event) and its printed text to the command's, timings
aside: the notebook cannot drift from the command line unnoticed.

It needs ``nbclient``, ``nbformat`` and ``ipykernel`` (none is a dependency of Jitfish); without them the test
skips, naming what is missing.
"""

from __future__ import annotations

import html
import os
import re
import shlex
from pathlib import Path

import pytest

from jitfish.teach.page import page_trace
from tests.extras import installed
from tests.teach.test_cli import run_jitfish

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "teaching.ipynb"
MISSING = [module for module in ("nbclient", "nbformat", "ipykernel") if not installed(module)]
# The sections' commands, in the lecture notes' order: minimax and alpha-beta (the textbook tree, a tree of
# positions, the ladder's minimax and alpha-beta), the horizon, PVS, MTD(f) and the engine, chance, max^n,
# Kriegspiel, MCTS.
MODES = [
    ("tree", None),
    ("tree", "--fen"),
    ("ladder", "minimax"),
    ("ladder", "alphabeta"),
    ("horizon", None),
    ("ladder", "pvs"),
    ("ladder", "mtdf"),
    ("ladder", "engine"),
    ("tree", "--chance"),
    ("tree", "--players"),
    ("kriegspiel", None),
    ("mcts", None),
]
TIME = re.compile(r"\d[\d,.]*\s?(ms|s)\b")  # what differs between two runs of the same search


def without_times(text: str) -> str:
    """``text`` with its timings, and the padding that aligns them in columns, taken out."""
    return re.sub(r"[ \t]+", " ", TIME.sub("<time>", text))


def mode(command: str) -> tuple[str, str | None]:
    """A command's subcommand, and what tells it apart from the others of that subcommand."""
    words = shlex.split(command)
    if words[2] == "ladder":
        return "ladder", words[words.index("--algorithms") + 1]
    flags = [word for word in words[3:] if word in ("--fen", "--chance", "--players")]
    return words[2], (flags[0] if flags and words[2] == "tree" else None)


@pytest.fixture(scope="module")
def notebook(tmp_path_factory):
    """The notebook, executed: per code cell that shows a page, (the page's trace, what the cell printed)."""
    if MISSING:
        pytest.skip(f"needs {', '.join(MISSING)}, not installed: pip install {' '.join(MISSING)}")
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # kept clean
    root = str(NOTEBOOK.parents[1])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
        NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": root}}).execute()
    shown = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        pages = [
            output["data"]["text/html"]
            for output in cell.outputs
            if output.get("output_type") == "execute_result" and "text/html" in output.get("data", {})
        ]
        if not pages:
            continue
        (page,) = pages
        srcdoc = re.fullmatch(r'<iframe srcdoc="(.*?)" sandbox="allow-scripts" style="[^"]*"></iframe>', page, re.S)
        assert srcdoc is not None
        printed = "".join(o["text"] for o in cell.outputs if o.get("output_type") == "stream" and o["name"] == "stdout")
        shown.append((page_trace(html.unescape(srcdoc.group(1))), printed))
    return shown


@pytest.mark.usefixtures("uct_kernels")
def test_the_teaching_notebook_runs_and_shows_each_section_s_search(notebook):
    assert [mode(trace["command"]) for trace, _ in notebook] == MODES
    for trace, printed in notebook:
        assert trace["events"] and trace["summary"] and printed.strip()


@pytest.mark.usefixtures("uct_kernels")
@pytest.mark.parametrize("section", range(len(MODES)), ids=[f"{m}-{v}" for m, v in MODES])
def test_each_notebook_section_shows_the_numbers_its_command_prints(notebook, tmp_path, section):
    shown, printed = notebook[section]
    words = shlex.split(shown["command"])
    assert words[:2] == ["jitfish", "teach"]
    page = tmp_path / "page.html"
    result = run_jitfish(*words[1:], "--html", str(page))
    assert result.returncode == 0, result.stderr
    command = page_trace(page.read_text())
    assert shown["command"] == command["command"]  # the notebook names the command exactly as it names itself
    assert shown["summary"] == command["summary"]  # the report's numbers: values, nodes, leaves, passes, visits
    assert shown["counts"] == command["counts"]
    assert shown["events"] == command["events"]
    assert without_times(printed.strip()) in without_times(result.stdout)
