"""``make EXE=<path>``: Jitfish as one executable file that runs wherever it is moved (OpenBench's build).

OpenBench's client builds an engine with ``make EXE=<name>`` in a temporary folder, moves the file to its
``Engines/`` folder and deletes the folder; a launcher pointing at the checkout would then point at
nothing.  So the file carries the code: it is a zip archive of the ``jitfish`` package behind one shell
line that starts, on the file itself, the Python that built it (Python runs a zip file given as its
script by its ``__main__.py``).  It needs that Python with the project's dependencies and nothing else;
:func:`main` checks both when it builds, and says in one line what is missing.

Numba caches compiled kernels only for real source files, not for modules imported from a zip.  So the
archive unpacks itself on its first start into ``builds/<digest of the archive>/`` under the cache root
(:func:`jitfish.runtime.cache.cache_root`) and runs from there; its kernels are then cached, keyed by the source
digest of the unpacked package (:data:`jitfish.runtime.jit.CACHE_DIR`), as those of any checkout.  It unpacks into
a temporary folder that is renamed into place, so copies started at once (OpenBench starts one ``bench``
per thread) never see half a package: the first rename wins and the others drop their copy.

With ``kernels`` (``make EXE=``, as OpenBench builds) the archive also carries the search's kernels, compiled
at build time for a named CPU exactly as the wheel ships them (:mod:`jitfish.runtime.prebuilt`): where they fit the
machine, the first ``bench`` from an empty cache installs them instead of compiling (OpenBench starts one
``bench`` per thread, and two of them compiling on a slow two-core machine came near the client's 60 s).
Where they do not fit (another CPU, a user's ``NUMBA_CPU_NAME``), the first start compiles as before.

Without kernels the archive is the same, byte for byte, for the same package and options (sorted names,
fixed dates), so rebuilding a commit reuses its unpacked copy.  This module is imported from the archive
before it is unpacked: it may import only the standard library and :mod:`jitfish.runtime.cache`.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from jitfish.runtime.cache import cache_root

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PYPROJECT = PACKAGE_DIR.parent / "pyproject.toml"
BUILDS = "builds"
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can record: every build of the same files is the same
# The archive's entry point; ``tune_flag`` bakes ``jitfish --tune`` in (every search parameter a UCI option).
ENTRY = """\
# Jitfish built by `make` (jitfish/runtime/bundle.py): unpacks itself once, then runs the unpacked copy.
import sys
from pathlib import Path

from jitfish.runtime.bundle import enter_unpacked

enter_unpacked(Path(__file__).parent)
from jitfish.cli import main  # noqa: E402  (read from the unpacked copy)

sys.exit(main({tune_flag} + sys.argv[1:]))
"""


def _shell_line(python: str) -> bytes:
    """The lines before the archive: ``sh`` starts ``python`` on this file (``$0``) with the arguments."""
    quoted = "'" + python.replace("'", "'\\''") + "'"
    return (
        f"#!/bin/sh\n"
        f"# Jitfish: a zip archive of the engine behind this line, run by the Python that built it.\n"
        f"exec {quoted} \"$0\" \"$@\"\n"
    ).encode()


def package_files(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """The files of the ``jitfish`` package (code and data), sorted, without compiled bytecode."""
    return sorted(
        path
        for path in package_dir.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def build(output: Path, python: str = sys.executable, tune: bool = False, kernels: bool = False) -> None:
    """Write the executable to ``output``: the shell line for ``python``, then the archive (with the search's
    kernels compiled for a named CPU, with ``kernels``, where this machine can build them)."""
    from jitfish.runtime import prebuilt

    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="jitfish-bundle-") as scratch:
        package_dir = Path(scratch) / PACKAGE_DIR.name
        shipped = shutil.ignore_patterns("__pycache__", "*.pyc", prebuilt.MANIFEST, prebuilt.ARCHIVE)
        shutil.copytree(PACKAGE_DIR, package_dir, ignore=shipped)
        if kernels:
            prebuilt.build(package_dir, report=lambda line: print(line, file=sys.stderr))
        with tempfile.NamedTemporaryFile(dir=output.parent, prefix=f".{output.name}.", delete=False) as file:
            file.write(_shell_line(python))
            with zipfile.ZipFile(file, "w", zipfile.ZIP_DEFLATED) as archive:
                for path in package_files(package_dir):
                    name = path.relative_to(package_dir.parent).as_posix()
                    archive.writestr(zipfile.ZipInfo(name, ZIP_DATE), path.read_bytes(), zipfile.ZIP_DEFLATED)
                entry = ENTRY.format(tune_flag=["--tune"] if tune else [])
                archive.writestr(zipfile.ZipInfo("__main__.py", ZIP_DATE), entry, zipfile.ZIP_DEFLATED)
    os.chmod(file.name, 0o755)
    os.replace(file.name, output)


def unpacked(archive: Path) -> Path:
    """The folder holding the unpacked copy of ``archive`` (unpacking it if it is not there yet)."""
    digest = hashlib.sha1(archive.read_bytes()).hexdigest()[:16]
    target = cache_root() / BUILDS / digest
    if not target.is_dir():
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{digest}."))
        with zipfile.ZipFile(archive) as files:
            files.extractall(scratch)
        try:
            os.rename(scratch, target)
        except OSError:  # another copy unpacked it first
            shutil.rmtree(scratch, ignore_errors=True)
            if not target.is_dir():
                raise
    return target


def enter_unpacked(archive: Path) -> None:
    """The archive's first step: import ``jitfish`` from the unpacked copy of ``archive`` from here on (the
    entry point then runs the CLI from it)."""
    folder = unpacked(archive)
    # Forget the archive and the package modules imported from it (this one included: the call that is
    # running keeps its own globals), so that every import from here on reads the unpacked files.
    sys.path[:] = [str(folder)] + [entry for entry in sys.path if Path(entry) != archive]
    for name in [name for name in sys.modules if name == "jitfish" or name.startswith("jitfish.")]:
        del sys.modules[name]


def missing_requirements() -> str | None:
    """What this Python lacks to run Jitfish (the Python version, the dependencies of ``pyproject.toml``),
    as one line with the fix; None when nothing is missing."""
    text = PYPROJECT.read_text()
    required = re.search(r'requires-python\s*=\s*">=(\d+)\.(\d+)"', text)
    if required is None:
        return f"error: {PYPROJECT} names no requires-python"
    major, minor = map(int, required.groups())
    if sys.version_info < (major, minor):
        return (
            f"error: Jitfish needs Python {major}.{minor} or newer, and {sys.executable} is "
            f"{sys.version.split()[0]}: give make another one, e.g. make PYTHON=python3.{minor}"
        )
    import tomllib
    from importlib import metadata

    requirements: list[str] = tomllib.loads(text)["project"]["dependencies"]
    missing = []
    for requirement in requirements:
        try:
            metadata.distribution(re.split(r"[^A-Za-z0-9_.-]", requirement, maxsplit=1)[0])
        except metadata.PackageNotFoundError:
            missing.append(requirement)
    if not missing:
        return None
    return f"error: {sys.executable} lacks Jitfish's dependencies: {sys.executable} -m pip install " + " ".join(
        f"'{requirement}'" for requirement in missing
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jitfish.runtime.bundle", description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="the executable to write")
    parser.add_argument("--tune", action="store_true", help="run as jitfish --tune (search parameters as options)")
    parser.add_argument(
        "--kernels", action="store_true", help="carry the search's kernels, compiled now for a named CPU"
    )
    args = parser.parse_args(argv)
    problem = missing_requirements()
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    build(args.output, tune=args.tune, kernels=args.kernels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
