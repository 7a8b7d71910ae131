"""`make EXE=<path>` writes a launcher that runs Jitfish from this checkout (OpenBench's build contract)."""

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
    subprocess.run(["make", "-s", "-C", str(REPO), f"EXE={exe}"], check=True, capture_output=True, timeout=60)
    assert os.access(exe, os.X_OK)
    assert exe.read_text().startswith("#!/bin/sh")
    completed = subprocess.run([str(exe), "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                               env={key: value for key, value in os.environ.items() if key != "PYTHONPATH"})
    assert completed.returncode == 0 and completed.stdout.startswith("Jitfish")
