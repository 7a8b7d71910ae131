"""OpenBench's build: `make EXE=<name>` writes one executable that runs after it is moved and its tree is
deleted (jitfish/runtime/bundle.py), and the client's `bench` and `genfens` work through it (docs/openbench.md)."""

from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import chess
import pytest

from jitfish.runtime import prebuilt
from tuning.openbench import client_steps as client
from tuning.openbench.spsa_input import spsa_lines

REPO = Path(__file__).resolve().parents[1]
BENCH_NODES = int((REPO / "tests" / "data" / "bench.txt").read_text().split()[-1])

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")


def tree_copy(folder: Path) -> Path:
    """The working tree's package, pyproject and Makefile (uncommitted edits included), for the quick tests."""
    shutil.copytree(REPO / "jitfish", folder / "jitfish", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "Makefile"):
        shutil.copy(REPO / name, folder / name)
    return folder


def test_the_executable_runs_after_it_is_moved_and_its_tree_deleted(tmp_path):
    source = tree_copy(tmp_path / "source")
    subprocess.run(
        ["make", "-s", "executable", "EXE=x", "CC=python3"], cwd=source, check=True, capture_output=True, timeout=120
    )
    engines = tmp_path / "Engines"
    engines.mkdir()
    shutil.move(source / "x", engines / "x")
    shutil.rmtree(source)
    cache = tmp_path / "cache"
    # Started from a folder holding another ``jitfish`` package: the executable runs its own.
    impostor = tmp_path / "jitfish"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("raise SystemExit('impostor')\n")
    completed = subprocess.run(
        ["./Engines/x", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=client.clean_env(JITFISH_CACHE_DIR=str(cache)),
    )
    assert completed.returncode == 0 and completed.stdout.startswith("Jitfish"), completed.stderr
    unpacked = list((cache / "builds").iterdir())
    assert len(unpacked) == 1 and (unpacked[0] / "jitfish" / "search" / "negamax.py").is_file()


def test_the_same_tree_builds_the_same_file_and_tune_is_baked_in(tmp_path):
    for name, extra in (("a", []), ("b", []), ("t", ["TUNE=1"])):
        subprocess.run(
            ["make", "-s", "-C", str(REPO), "executable", f"EXE={tmp_path / name}", *extra],
            check=True,
            capture_output=True,
            timeout=120,
        )
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    with zipfile.ZipFile(tmp_path / "t") as archive:
        assert "main(['--tune'] + sys.argv[1:])" in archive.read("__main__.py").decode()
    with zipfile.ZipFile(tmp_path / "a") as archive:
        assert "main([] + sys.argv[1:])" in archive.read("__main__.py").decode()
        assert "jitfish/nnue/default.nnue" in archive.namelist()


def test_make_fails_with_one_line_when_the_dependencies_are_missing(tmp_path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "venv")], check=True, timeout=120)
    completed = subprocess.run(
        ["make", "-s", "-C", str(REPO), "EXE=" + str(tmp_path / "x"), f"PYTHON={tmp_path / 'venv' / 'bin' / 'python'}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    ours = [line for line in completed.stderr.splitlines() if not line.startswith("make")]
    assert completed.returncode != 0 and not (tmp_path / "x").exists()
    assert len(ours) == 1 and "lacks Jitfish's dependencies" in ours[0] and "'numba>=" in ours[0], completed.stderr


@pytest.mark.slow
def test_openbench_flow_two_benches_at_once_from_an_empty_cache_then_genfens(tmp_path):
    """OpenBench's client, step by step: unpack HEAD, `make -j EXE=<name> CC=python3`, move the file, delete
    the folder, then one `bench` per thread at once (two, on an empty compile cache), then `genfens`."""
    executable, made = client.build_as_the_client(tmp_path, "x", tmp_path / "build-cache")
    assert made.returncode == 0, made.stdout + made.stderr
    assert client.client_bench_nodes(made.stdout) == BENCH_NODES  # make's warm-up bench
    assert not (tmp_path / "source").exists()
    cache = tmp_path / "empty-cache"
    benches = client.benches_at_once(executable, 2, cache)
    assert [nodes for _, nodes, _ in benches] == [BENCH_NODES] * 2, [output for _, _, output in benches]
    with zipfile.ZipFile(executable) as archive:  # the search's kernels, where this machine could build them
        shipped = f"jitfish/{prebuilt.MANIFEST}" in archive.namelist()
        if shipped:
            (tmp_path / prebuilt.MANIFEST).write_bytes(archive.read(f"jitfish/{prebuilt.MANIFEST}"))
    assert shipped or platform.machine() not in prebuilt.TARGETS
    if shipped:
        manifest = prebuilt.Manifest.read(tmp_path / prebuilt.MANIFEST)
        if prebuilt.mismatch(manifest, manifest.digest) is None:  # they fit: installed, not compiled
            assert list(cache.glob(f"*/{prebuilt.INSTALLED}")), [output for _, _, output in benches]
    runs = [client.genfens(executable, 50, 7, cache)[0] for _ in range(2)]
    assert runs[0] == runs[1] and len(set(runs[0])) == 50
    assert all(chess.Board(fen).is_valid() for fen in runs[0])


def test_the_spsa_input_is_what_openbench_accepts_for_the_tune_options():
    from jitfish.engine.options import search_param_options

    lines = spsa_lines()
    options = {spec.name: spec for spec in search_param_options()}
    assert [line.split(",")[0] for line in lines] == list(options)
    for line in lines:  # OpenBench's own checks (OpenBench/workloads/verify_workload.py)
        name, kind, value, low, high, c_end, r_end = (field.strip() for field in line.split(","))
        assert kind == "int" and float(low) <= float(value) <= float(high) and float(r_end) > 0 and float(c_end) > 0
        assert (int(value), int(low), int(high)) == (options[name].default, options[name].min, options[name].max)


def test_processes_sharing_a_cache_compile_one_at_a_time(tmp_path):
    import fcntl

    from jitfish.runtime.compile import one_compile_at_a_time

    with one_compile_at_a_time(tmp_path), open(tmp_path / "compile.lock") as other:
        with pytest.raises(BlockingIOError):  # another bench would wait here
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    with open(tmp_path / "compile.lock") as other:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free once the compiling one is done


def test_a_groups_lock_holds_that_group_alone(tmp_path):
    """The test workers compile two groups side by side: a group's lock stops the same group only."""
    import fcntl

    from jitfish.runtime.compile import one_compile_at_a_time

    with one_compile_at_a_time(tmp_path, group="search"):
        with open(tmp_path / "compile-search.lock") as same, pytest.raises(BlockingIOError):
            fcntl.flock(same, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with one_compile_at_a_time(tmp_path, group="perft"), open(tmp_path / "compile.lock", "w") as everything:
            fcntl.flock(everything, fcntl.LOCK_EX | fcntl.LOCK_NB)  # neither holds the lock of all kernels
