"""The README's UCI options table says what the engine's option list says (jitfish/engine/options.py), and the
documentation names only tools and scripts that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jitfish.engine.options import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "records").rglob("README.md"))]
# ``python -m tuning.ladder``, ``python -P -m scripts.bench.bench_perft`` (a command may wrap after ``-m``).
TOOL_COMMAND = re.compile(r"python3? (?:-P )?-m\s+((?:scripts|tuning)(?:\.[a-z0-9_]+)+)")
# ``tuning/ladder.py``, ``scripts/bench/``, ``tuning/openings/balanced.epd``.
TOOL_PATH = re.compile(r"(?<![\w/.-])((?:scripts|tuning)/[\w/.+-]*[\w/])")


def readme_rows() -> dict[str, list[str]]:
    """The options table's rows by option name: [type, default, range]."""
    rows = {}
    for line in README.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:4]
    return rows


def shown_default(spec) -> str:
    if spec.type == "check":
        return "true" if spec.default else "false"
    if spec.type == "string" and spec.default == "":
        return "`<empty>`"
    return "" if spec.default is None else str(spec.default)


def test_every_option_is_in_the_readme_with_its_type_default_and_range():
    rows = readme_rows()
    for spec in OPTIONS:
        expected_range = f"{spec.min}–{spec.max}" if spec.type == "spin" else ""
        assert rows.get(spec.name) == [spec.type, shown_default(spec), expected_range], spec.name


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_tool_and_script_the_documentation_names_exists(document):
    text = document.read_text()
    missing = [
        name
        for name in TOOL_COMMAND.findall(text)
        if not (ROOT / name.replace(".", "/")).with_suffix(".py").is_file()
        and not (ROOT / name.replace(".", "/") / "__main__.py").is_file()
    ]
    missing += [path for path in TOOL_PATH.findall(text) if not (ROOT / path).exists()]
    assert missing == []
