"""`make launcher EXE=<path>` writes a launcher that runs Jitfish from this checkout as it is now, and `make
check` is the one test command that the README gives and .ci/run runs.

`make EXE=<path>`, the self-contained executable OpenBench builds, is tested in tests/test_openbench.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_writes_an_executable_launcher(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "jitfish-test"
    subprocess.run(
        ["make", "-s", "-C", str(REPO), "launcher", f"EXE={exe}"], check=True, capture_output=True, timeout=60
    )
    assert os.access(exe, os.X_OK)
    assert exe.read_text().startswith("#!/bin/sh")
    completed = subprocess.run(
        [str(exe), "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    )
    assert completed.returncode == 0 and completed.stdout.startswith("Jitfish")


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_launcher_runs_its_own_checkout_whatever_the_working_directory(tmp_path: Path) -> None:
    # Started from a folder holding another ``jitfish`` package (another checkout, as when a match
    # runner in one checkout plays the launcher of another), it must still run this checkout's code.
    exe = tmp_path / "jitfish-test"
    subprocess.run(
        ["make", "-s", "-C", str(REPO), "launcher", f"EXE={exe}"], check=True, capture_output=True, timeout=60
    )
    impostor = tmp_path / "elsewhere" / "jitfish"
    impostor.mkdir(parents=True)
    (impostor / "__init__.py").write_text("")
    (impostor / "__main__.py").write_text("print('impostor')\n")
    completed = subprocess.run(
        [str(exe), "--version"],
        cwd=impostor.parent,
        capture_output=True,
        text=True,
        timeout=60,
        env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
    )
    assert completed.returncode == 0 and completed.stdout.startswith("Jitfish"), completed.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_test_runs_the_fast_suite_alone_on_every_core() -> None:
    [command] = [line for line in dry_run("test") if "pytest" in line]
    assert command.endswith("-m pytest -q -n auto --dist loadscope")


def dry_run(*arguments: str) -> list[str]:
    """The commands ``make -n`` would run, one a line."""
    done = subprocess.run(
        ["make", "-n", "-C", str(REPO), *arguments], check=True, capture_output=True, text=True, timeout=60
    )
    return done.stdout.splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_check_lints_runs_both_suites_and_checks_the_wheel() -> None:
    commands = dry_run("check")
    steps = [
        ".ci/lint",
        "-m pytest -q -n auto --dist loadscope",
        "-m pytest -q -n auto --dist loadscope -m slow || test $? -eq 5; }",  # no test selected (5) is no failure
        "-m scripts.check.check_wheel",
    ]
    found = [next((i for i, line in enumerate(commands) if line.endswith(step)), None) for step in steps]
    assert None not in found and found == sorted(found), commands


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_alone_still_builds_the_openbench_executable() -> None:
    assert any("-m jitfish.runtime.bundle" in line and "--kernels" in line for line in dry_run("EXE=/nowhere/x"))


def test_the_readme_and_ci_run_the_one_test_command() -> None:
    readme = (REPO / "README.md").read_text()
    assert "```sh\npip install -e '.[test,cluster]'\nmake check\n```" in readme
    ci = [line for line in (REPO / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    assert ci[-1] == "make check PYTHON=python"
