"""What an install carries: code, weights and the shipped network; match and ladder records stay in records/."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LARGEST_FILE = 1 << 20  # bytes: anything bigger in a package is data that belongs elsewhere


def test_no_file_in_the_packages_is_over_a_megabyte():
    large = [
        path.relative_to(REPO).as_posix()
        for package in ("jitfish", "tuning")
        for path in (REPO / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.stat().st_size > LARGEST_FILE
    ]
    assert large == []


def test_the_wheel_takes_only_the_jitfish_package_and_its_data():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["packages"]["find"]["include"] == ["jitfish*"]
    for pattern in config["package-data"]["jitfish"]:
        assert not pattern.endswith((".pgn", ".pgn.gz")), pattern
    assert not (REPO / "records" / "__init__.py").exists()


def test_the_wheel_marks_the_package_as_typed():
    """PEP 561: ``py.typed`` ships, so that a type checker reads jitfish's own annotations."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "py.typed" in config["package-data"]["jitfish"]
    assert (REPO / "jitfish" / "py.typed").is_file()


# The wheel's layout, as setuptools finds it in the source tree: a new folder or root module is a deliberate
# change of these lists (docs/architecture.md, "Where things live").
WHEEL_PACKAGES = [
    "jitfish",
    "jitfish.analysis",
    "jitfish.board",
    "jitfish.engine",
    "jitfish.eval",
    "jitfish.nnue",
    "jitfish.play",
    "jitfish.runtime",
    "jitfish.search",
    "jitfish.syzygy",
    "jitfish.teach",
    "jitfish.uci",
]
ROOT_MODULES = ["__init__.py", "__main__.py", "_version.py", "cli.py", "types.py"]


def test_the_wheel_holds_these_packages():
    from setuptools import find_packages

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    assert sorted(find_packages(str(REPO), include=config["include"])) == WHEEL_PACKAGES


def test_the_package_root_holds_these_modules():
    assert sorted(path.name for path in (REPO / "jitfish").glob("*.py")) == ROOT_MODULES
    assert all((REPO / package.replace(".", "/") / "__init__.py").is_file() for package in WHEEL_PACKAGES)
