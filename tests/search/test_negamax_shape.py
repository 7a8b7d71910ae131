"""negamax's shape: one page of steps numbered in the order they run (docs/contributing.md, "Adding a search
step")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SOURCE = (Path(__file__).resolve().parents[2] / "jitfish" / "search" / "negamax.py").read_text()
MAX_LINES = 150


def _negamax() -> ast.FunctionDef:
    return next(node for node in ast.parse(SOURCE).body if isinstance(node, ast.FunctionDef) and node.name == "negamax")


def test_negamax_fits_on_a_page():
    node = _negamax()
    assert node.end_lineno - node.lineno + 1 <= MAX_LINES  # from ``def`` to its last line


def test_the_steps_are_numbered_in_the_order_they_run():
    node = _negamax()
    body = SOURCE.splitlines()[node.lineno - 1 : node.end_lineno]
    numbers = []
    for line in body:
        found = re.match(r"\s*# Steps? (\d+)(?: to (\d+))?\.", line)
        if found:
            first, last = int(found[1]), int(found[2] or found[1])
            numbers.extend(range(first, last + 1))
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) >= 15


def test_each_helper_names_a_step_of_negamax():
    """A helper's docstring ``Step N. ...`` names one of negamax's numbered steps."""
    helpers = re.findall(r'^    """Step (\d+)\b', SOURCE, re.M)
    node = _negamax()
    body = "\n".join(SOURCE.splitlines()[node.lineno - 1 : node.end_lineno])
    steps = {int(n) for n in re.findall(r"# Step (\d+)\.", body)}
    for first, last in re.findall(r"# Steps (\d+) to (\d+)\.", body):
        steps.update(range(int(first), int(last) + 1))
    assert helpers and {int(n) for n in helpers} <= steps
