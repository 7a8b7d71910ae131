"""Mutation check: put each bug of ``tuning/mutants.toml`` into a copy of the repository and run its tests.

    python -m tuning.mutants                 # every mutant, after a baseline run of their tests
    python -m tuning.mutants --only NAME ... # some of them
    python -m tuning.mutants --list

A mutant is *killed* when its tests fail (pytest exit code 1) or time out,
and *survives* when they pass: a surviving mutant is a bug the tests let
through, and the script exits 1.  Any other outcome (a stale ``original``
that no longer occurs exactly once, pytest unable to collect) is an *error*
and also exits 1, so the list cannot rot silently.

Each mutant runs in a fresh copy of the working tree (tracked and untracked,
not ignored, files), with ``PYTHONPATH`` pointing at the copy (so engine
subprocesses run the mutant too) and an empty compile cache of its own
(``JITFISH_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` in the copy): a kernel can
never come from a cache built from other sources.  Mutants run one after
the other; each pays a cold compile of what its tests use.  The baseline
run (the unmutated copy, every test the list names) makes sure a kill is
the mutant's doing; ``--no-baseline`` skips it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MUTANTS_FILE = Path(__file__).with_name("mutants.toml")
TIMEOUT_SECONDS = 1800  # per pytest run, cold compile included; a hang counts as a kill


@dataclass
class Edit:
    file: str
    original: str
    replacement: str


@dataclass
class Mutant:
    name: str
    why: str
    tests: list[str]
    edits: list[Edit]


def load_mutants(path: Path = MUTANTS_FILE) -> list[Mutant]:
    data = tomllib.loads(path.read_text())
    return [
        Mutant(
            entry["name"],
            entry["why"],
            list(entry["tests"]),
            [Edit(edit["file"], edit["original"], edit["replacement"]) for edit in entry["edit"]],
        )
        for entry in data["mutant"]
    ]


def copy_tree(destination: Path) -> None:
    """The working tree as git sees it (tracked and untracked files, none of the ignored ones)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def apply(mutant: Mutant, tree: Path) -> None:
    """Make the mutant's edits; ``ValueError`` when an original does not occur exactly once."""
    for edit in mutant.edits:
        path = tree / edit.file
        text = path.read_text()
        found = text.count(edit.original)
        if found != 1:
            raise ValueError(f"{edit.file}: the original occurs {found} times, not once: {edit.original!r}")
        path.write_text(text.replace(edit.original, edit.replacement))


def run_tests(tree: Path, tests: list[str]) -> tuple[str, float, str]:
    """('passed' | 'failed' | 'timeout' | 'error', seconds, output tail) of pytest on ``tests`` in ``tree``."""
    cache = tree / ".mutant-cache"
    env = dict(os.environ, PYTHONPATH=str(tree), JITFISH_CACHE_DIR=str(cache), NUMBA_CACHE_DIR=str(cache))
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    started = time.perf_counter()
    try:
        result = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - started, ""
    outcome = {0: "passed", 1: "failed"}.get(result.returncode, "error")
    tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
    return outcome, time.perf_counter() - started, tail


def in_fresh_copy(action):
    with tempfile.TemporaryDirectory(prefix="jitfish-mutant-") as directory:
        tree = Path(directory)
        copy_tree(tree)
        return action(tree)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these mutants only")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip the run without mutants")
    parser.add_argument("--verbose", action="store_true", help="print pytest's last lines for every run")
    args = parser.parse_args(argv)

    mutants = load_mutants()
    if args.list:
        for mutant in mutants:
            print(f"{mutant.name:30} {mutant.why}")
        return 0
    if args.only:
        unknown = set(args.only) - {m.name for m in mutants}
        if unknown:
            parser.error(f"unknown mutants: {sorted(unknown)}")
        mutants = [m for m in mutants if m.name in args.only]

    if not args.no_baseline:
        tests = list(dict.fromkeys(t for m in mutants for t in m.tests if t.startswith("tests/")))
        outcome, seconds, tail = in_fresh_copy(lambda tree: run_tests(tree, tests))
        print(f"baseline (no mutant): {outcome} in {seconds:.0f} s", flush=True)
        if outcome != "passed":
            print(tail)
            print("the tests fail without any mutant: fix them first")
            return 1

    results: dict[str, list[str]] = {"killed": [], "survived": [], "error": []}
    for mutant in mutants:

        def attempt(tree: Path, mutant: Mutant = mutant) -> tuple[str, float, str]:
            try:
                apply(mutant, tree)
            except ValueError as error:
                return "error", 0.0, str(error)
            return run_tests(tree, mutant.tests)

        outcome, seconds, tail = in_fresh_copy(attempt)
        verdict = {"failed": "killed", "timeout": "killed", "passed": "survived"}.get(outcome, "error")
        results[verdict].append(mutant.name)
        print(f"{verdict:8} {mutant.name:30} ({outcome}, {seconds:.0f} s) {mutant.why}", flush=True)
        if args.verbose or verdict != "killed":
            print("    " + tail.replace("\n", "\n    "))

    print(f"\n{len(results['killed'])} killed, {len(results['survived'])} survived, {len(results['error'])} errors")
    for verdict in ("survived", "error"):
        if results[verdict]:
            print(f"{verdict}: {' '.join(results[verdict])}")
    return 0 if not results["survived"] and not results["error"] else 1


if __name__ == "__main__":
    sys.exit(main())
