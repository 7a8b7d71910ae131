"""The README's UCI options table says what the engine's option list says (jitfish/options.py)."""

from __future__ import annotations

from pathlib import Path

from jitfish.options import OPTIONS

README = Path(__file__).resolve().parents[1] / "README.md"


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
