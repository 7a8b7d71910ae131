"""`make launcher EXE=<path>` writes a launcher that runs Jitfish from this checkout as it is now.

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
