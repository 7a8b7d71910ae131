"""Install Jitfish as a player would, from its wheel, and use it from outside the source tree.

    python -m scripts.check.check_wheel      # the last step of `make check`, after the tests

Builds the sdist and, from it, the wheel (``python -m build``, so the sdist is proven complete too),
checks that the wheel holds every file of the ``jitfish`` package that git tracks (code, the evaluation
weights, the search parameters, the shipped network, the WDL model, the teaching positions), installs it
into a fresh virtual environment (its dependencies from PyPI, as ``pip install .`` would fetch them),
and then, from an empty folder with an empty compile cache:

* the first start must load the wheel's prebuilt kernels and compile none, where the machine has the
  CPU features they were built for (:mod:`jitfish.runtime.prebuilt`; the build made them on this machine);
* ``jitfish bench`` must print the node count of ``tests/data/bench.txt``;
* a short game over UCI through python-chess (``popen_uci`` of the environment's ``jitfish``), every
  move legal;
* ``python -c "import jitfish; ..."`` must import the installed copy and search a position.

Prints each step's time and the wheel's size; exits 1 on the first failure.  Needs the ``build``
package (``pip install build``).
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

from jitfish.runtime import prebuilt  # imports no kernel

REPO = Path(__file__).resolve().parents[2]

BENCH_FILE = REPO / "tests" / "data" / "bench.txt"
GAME_PLIES = 8
# The installed engine's first start compiles every kernel (a minute or more on a loaded machine).
START_TIMEOUT = 600

# Run by the environment's python: a few moves over UCI, python-chess as a GUI would use it.
UCI_GAME = textwrap.dedent("""
    import sys
    import chess
    import chess.engine
    engine = chess.engine.SimpleEngine.popen_uci(sys.argv[1], timeout={timeout})
    board = chess.Board()
    for _ in range({plies}):
        move = engine.play(board, chess.engine.Limit(time=0.2)).move
        assert move in board.legal_moves, (move, board.fen())
        board.push(move)
    name = engine.id["name"]
    engine.quit()
    print(name, board.fen())
""").format(timeout=START_TIMEOUT, plies=GAME_PLIES)

IMPORT_CHECK = textwrap.dedent("""
    import sys
    import jitfish
    assert jitfish.__file__.startswith(sys.prefix), jitfish.__file__
    board = jitfish.Board()
    assert len(board.legal_moves()) == 20
    assert jitfish.search(board, depth=4).best_move in board.legal_moves()
    print(jitfish.__file__)
""")


# Run by the environment's python on an empty compile cache: the shipped kernels' CPU (or why none fits) and
# how many kernels the search's warm-up compiled.
FIRST_START = textwrap.dedent("""
    from pathlib import Path
    import jitfish.runtime.jit as jit
    from jitfish.runtime import prebuilt
    from jitfish.runtime.compile import CompileCounter, warm_search
    manifest = Path(jit.PACKAGE_DIR, prebuilt.MANIFEST)
    why = prebuilt.mismatch(prebuilt.Manifest.read(manifest), jit.DIGEST) if manifest.is_file() else "none shipped"
    with CompileCounter() as counter:
        warm_search(helper=False)
    print(jit.PREBUILT.cpu_name if jit.PREBUILT else f"native ({why})", counter.started)
""")


def step(name: str, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run ``command``; its standard output.  Exits with the command's output on failure."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    print(f"{name}: {time.perf_counter() - started:.1f} s", flush=True)
    if done.returncode != 0:
        sys.exit(f"{name} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def tracked_package_files() -> set[str]:
    listed = subprocess.run(["git", "ls-files", "jitfish"], cwd=REPO, capture_output=True, text=True, check=True)
    return set(listed.stdout.split())


def prebuilt_expected() -> bool:
    """Whether the build made kernels for this machine's named CPU (:func:`jitfish.runtime.prebuilt.build`)."""
    target = prebuilt.TARGETS.get(platform.machine())
    return target is not None and set(target[1]) <= prebuilt._host()[1]


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="jitfish-wheel-") as temporary:
        work = Path(temporary)
        step(
            "build sdist and wheel",
            [sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(REPO)],
            cwd=work,
        )
        wheel = next((work / "dist").glob("jitfish-*.whl"))
        sdist = next((work / "dist").glob("jitfish-*.tar.gz"))
        print(
            f"wheel {wheel.name}: {wheel.stat().st_size / 1024:.0f} KiB; "
            f"sdist {sdist.name}: {sdist.stat().st_size / 1024:.0f} KiB"
        )
        missing = tracked_package_files() - set(zipfile.ZipFile(wheel).namelist())
        if missing:
            sys.exit(f"the wheel lacks {sorted(missing)}")

        venv = work / "venv"
        step("fresh virtual environment", [sys.executable, "-m", "venv", str(venv)], cwd=work)
        python, jitfish = venv / "bin" / "python", venv / "bin" / "jitfish"
        step("pip install the wheel", [str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=work)

        outside = work / "elsewhere"
        outside.mkdir()
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env["JITFISH_CACHE_DIR"] = str(work / "cache")  # a first start, as on a user's machine
        first_start = step("first start", [str(python), "-c", FIRST_START], cwd=outside, env=env)
        kernels, compiled = first_start.rsplit(maxsplit=1)
        print(f"  kernels: {kernels}, {compiled} compiled")
        if prebuilt_expected() and (kernels != prebuilt.TARGETS[platform.machine()][0] or compiled != "0"):
            sys.exit("the wheel's prebuilt kernels were not used on the machine that built them")
        output = step("jitfish bench", [str(jitfish), "bench"], cwd=outside, env=env)
        nodes = int(re.search(r"Nodes searched: (\d+)", output).group(1))
        expected = int(BENCH_FILE.read_text().split()[-1])
        if nodes != expected:
            sys.exit(f"jitfish bench searched {nodes} nodes, tests/data/bench.txt says {expected}")
        print(f"  {nodes} nodes, as tests/data/bench.txt")
        print(
            "  "
            + step(
                "UCI game through python-chess", [str(python), "-c", UCI_GAME, str(jitfish)], cwd=outside, env=env
            ).strip()
        )
        print("  " + step("import jitfish", [str(python), "-c", IMPORT_CHECK], cwd=outside, env=env).strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
