"""Kernels compiled when the wheel is built, for a named CPU target, so that a first start compiles nothing.

A cold start compiles the search for 15-20 s, longer than some GUIs and match runners wait for
``readyok``.  Numba can compile for a named CPU instead of the host's (``NUMBA_CPU_NAME``), and its
cache is then valid on every machine whose CPU has that CPU's features.  So the wheel's build
(``setup.py``) compiles the kernels a UCI start needs for ``x86-64-v3`` (AVX2, BMI2, POPCNT: x86
CPUs from 2013 on) and packs the cache files beside the package: ``kernels.tar.xz`` and its
manifest ``kernels.json``.  On this machine the ``x86-64-v3`` search is as fast as the native one
(``bench``, docs/benchmarks.md).

At import (:mod:`jitfish.runtime.jit`), :func:`fitting` reads the manifest and accepts the kernels only if
everything that decides their machine code matches: the kernel sources (the digest of
:func:`jitfish.runtime.jit.source_digest`), the Numba version, the Python version, the target triple, and a
host CPU with every feature the target needs.  Numba is then told to compile for that CPU, so the
kernels not shipped (the ``eval`` report, ``perft``) compile for it too, and :func:`install` copies
the files into the user's kernel cache (once; the folder is named after the CPU, apart from native
kernels).  Anything else (an older CPU, an ARM machine, another Numba, a checkout whose sources
were edited) gets native kernels, compiled at the first start as before, or ahead with ``jitfish
compile``.

Two checks keep a wrong cache from running.  This module's: it never selects kernels whose
manifest disagrees with the host.  Numba's own: each cache entry is keyed by the CPU name and
features it was compiled for and the function's bytecode, so an entry made for another CPU is not
loaded but compiled again (``tests/runtime/test_prebuilt.py`` shows both).

``JITFISH_PREBUILT=0`` ignores shipped kernels; a ``NUMBA_CPU_NAME`` set by the user is obeyed (and
the shipped kernels are then ignored unless it names their CPU).  Numba's CPU choice is process-wide:
other Numba code that the process compiles after importing Jitfish compiles for the same CPU.

This module imports no kernel module (and Numba only inside its functions), so that :mod:`jitfish.runtime.jit`
can use it before any kernel is defined.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

MANIFEST = "kernels.json"
ARCHIVE = "kernels.tar.xz"
INSTALLED = "prebuilt.json"  # written last into the cache folder once the files are there
FORMAT = 1
# The named CPU for each machine architecture (``platform.machine()``), with the CPU features
# (LLVM's names) it implies: the x86-64-v3 level of the x86-64 psABI.
TARGETS = {
    "x86_64": (
        "x86-64-v3",
        (
            *("cmov", "cx8", "fxsr", "mmx", "sse", "sse2"),  # v1
            *("cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3"),  # v2
            *("avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"),  # v3
        ),
    ),
}
# The kernel groups of :mod:`jitfish.runtime.compile` that are shipped: what a UCI start compiles before a
# ``readyok`` (the search, and the search with Syzygy tables once ``SyzygyPath`` finds some).
GROUPS = ("search", "tablebases")
# Data the cache also holds that the kernels' first start would otherwise build (0.3 s).
CACHE_DATA = ("lookup_tables.npy",)
KERNEL_SUFFIXES = (".nbi", ".nbc")


@dataclass(frozen=True)
class Manifest:
    """What the shipped kernels were compiled for; :func:`fitting` compares each field with this process."""

    format: int
    digest: str  # jitfish.runtime.jit.DIGEST of the sources compiled
    numba: str
    python: str  # sys.implementation.cache_tag, e.g. cpython-311 (the bytecode Numba keys on)
    triple: str  # llvmlite's process triple, e.g. x86_64-unknown-linux-gnu
    cpu_name: str
    cpu_features: str  # NUMBA_CPU_FEATURES: empty, i.e. those the CPU name implies
    required_features: tuple[str, ...]
    groups: tuple[str, ...]

    @classmethod
    def read(cls, path: Path) -> Manifest:
        fields = json.loads(path.read_text())
        fields["required_features"] = tuple(fields["required_features"])
        fields["groups"] = tuple(fields["groups"])
        return cls(**fields)


def _host() -> tuple[str, set[str]]:
    """The process's target triple and its CPU's features (llvmlite, which Numba loads anyway)."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return llvm.get_process_triple(), {name for name, present in features.items() if present}


def mismatch(manifest: Manifest, digest: str) -> str | None:
    """Why the kernels of ``manifest`` cannot run in this process, or ``None`` if they can."""
    import numba

    if manifest.format != FORMAT:
        return f"manifest format {manifest.format}, this build reads {FORMAT}"
    if manifest.digest != digest:
        return "compiled from other kernel sources"
    if manifest.numba != numba.__version__:
        return f"compiled by Numba {manifest.numba}, this is {numba.__version__}"
    if manifest.python != sys.implementation.cache_tag:
        return f"compiled for {manifest.python}, this is {sys.implementation.cache_tag}"
    config: Any = numba.config  # its names are set at import, unknown to a type checker
    chosen = config.CPU_NAME
    if chosen is not None and (chosen != manifest.cpu_name or config.CPU_FEATURES != manifest.cpu_features):
        return f"NUMBA_CPU_NAME is {chosen}"
    triple, features = _host()
    if manifest.triple != triple:
        return f"compiled for {manifest.triple}, this is {triple}"
    lacking = sorted(set(manifest.required_features) - features)
    if lacking:
        return f"the CPU lacks {', '.join(lacking)} ({manifest.cpu_name})"
    return None


def fitting(package_dir: Path, digest: str) -> Manifest | None:
    """The manifest of the kernels shipped in ``package_dir`` if they can run here, else ``None``."""
    if os.environ.get("JITFISH_PREBUILT", "1") == "0":
        return None
    path = package_dir / MANIFEST
    if not (path.is_file() and (package_dir / ARCHIVE).is_file()):
        return None
    try:
        manifest = Manifest.read(path)
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return manifest if mismatch(manifest, digest) is None else None


def select(manifest: Manifest) -> None:
    """Have Numba compile for the manifest's CPU (before any kernel is compiled or loaded)."""
    import numba

    config: Any = numba.config  # its names are set at import, unknown to a type checker
    config.CPU_NAME = manifest.cpu_name
    config.CPU_FEATURES = manifest.cpu_features


def cache_subfolder(source_dir: Path) -> str:
    """The folder of Numba's kernel cache that holds the kernels of the modules in ``source_dir``.

    Numba names it after the folder and a digest of its absolute path, so a cache made in the
    build's folder is moved under the installed package's names (:func:`install`).
    """
    from numba.core.caching import UserProvidedCacheLocator

    locator: Any = UserProvidedCacheLocator  # untyped in Numba
    return str(locator.get_suitable_cache_subpath(str(source_dir / "module.py")))


def _source_dirs(package_dir: Path) -> dict[str, str]:
    """Each of the package's source folders (relative, ``.`` for the package) by its cache subfolder."""
    folders = {path.parent for path in package_dir.rglob("*.py")}
    return {cache_subfolder(folder): folder.relative_to(package_dir).as_posix() for folder in folders}


def install(manifest: Manifest, package_dir: Path, cache_dir: Path) -> None:
    """Copy the shipped kernels into ``cache_dir`` under this installation's folder names (once).

    Each file is written to a temporary name and renamed, and the ``prebuilt.json`` mark last, so
    that processes starting at once (OpenBench starts one ``bench`` per thread) each see either no
    file or a whole one; a failure (a read-only cache) leaves the kernels to be compiled.
    """
    mark = cache_dir / INSTALLED
    if mark.is_file():
        return
    names = {relative: subfolder for subfolder, relative in _source_dirs(package_dir).items()}
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tarfile.open(package_dir / ARCHIVE, "r:xz") as archive:
            for member in archive:
                if not member.isfile():
                    continue
                folder, _, name = member.name.rpartition("/")
                if folder == "data" and name in CACHE_DATA:
                    target = cache_dir / name
                elif folder in names and name.endswith(KERNEL_SUFFIXES):
                    target = cache_dir / names[folder] / name
                else:
                    continue  # not of this package's layout: left out, compiled if needed
                source = archive.extractfile(member)
                if source is None:
                    continue  # not a file
                target.parent.mkdir(parents=True, exist_ok=True)
                handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".part")
                with os.fdopen(handle, "wb") as out:
                    out.write(source.read())
                os.replace(temporary, target)
        mark.write_text(json.dumps(asdict(manifest)) + "\n")
    except (OSError, tarfile.TarError):
        return


def pack(cache_dir: Path, package_dir: Path, manifest: Manifest) -> Path:
    """Write ``package_dir/kernels.tar.xz`` from the Numba cache ``cache_dir`` made for ``package_dir``'s
    sources, and the manifest beside it; the archive's path."""
    folders = _source_dirs(package_dir)
    archive_path = package_dir / ARCHIVE
    with tarfile.open(archive_path, "w:xz", preset=9) as archive:
        for subfolder in sorted(path for path in cache_dir.iterdir() if path.is_dir()):
            relative = folders.get(subfolder.name)
            if relative is None:
                continue  # kernels of code outside the package (none in a build)
            for path in sorted(subfolder.iterdir()):
                if path.suffix in KERNEL_SUFFIXES:
                    archive.add(path, arcname=f"{relative}/{path.name}")
        for name in CACHE_DATA:
            if (cache_dir / name).is_file():
                archive.add(cache_dir / name, arcname=f"data/{name}")
    (package_dir / MANIFEST).write_text(json.dumps(asdict(manifest), indent=1) + "\n")
    return archive_path


def build(package_dir: Path, report: Callable[[str], object] = print) -> Path | None:
    """Compile the shipped groups for this machine's named CPU from the sources in ``package_dir`` (a
    build's copy of the package) and pack them there; ``None`` (and why, to ``report``) where there is
    no named CPU for this machine or it lacks the CPU's features."""
    import llvmlite.binding as llvm
    import numba

    target = TARGETS.get(platform.machine())
    if target is None:
        report(f"jitfish: no prebuilt kernels for {platform.machine()}: a first start compiles them")
        return None
    cpu_name, required = target
    lacking = sorted(set(required) - _host()[1])
    if lacking:
        report(f"jitfish: this CPU lacks {', '.join(lacking)}, so it cannot build {cpu_name} kernels")
        return None
    with tempfile.TemporaryDirectory(prefix="jitfish-prebuilt-") as cache_root:
        env = dict(
            os.environ,
            PYTHONPATH=str(package_dir.parent),
            JITFISH_CACHE_DIR=cache_root,
            JITFISH_PREBUILT="0",
            NUMBA_CPU_NAME=cpu_name,
            NUMBA_CPU_FEATURES="",
        )
        code = f"from jitfish.runtime.compile import compile_all; compile_all(groups={list(GROUPS)!r})"
        subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=cache_root)
        # The one folder the compile made: jitfish.runtime.jit's CACHE_DIR, named VERSION-DIGEST.
        (compiled,) = [path for path in Path(cache_root).iterdir() if path.is_dir()]
        manifest = Manifest(
            format=FORMAT,
            digest=compiled.name.rsplit("-", 1)[1],
            numba=numba.__version__,
            python=sys.implementation.cache_tag,
            triple=llvm.get_process_triple(),
            cpu_name=cpu_name,
            cpu_features="",
            required_features=tuple(required),
            groups=GROUPS,
        )
        archive = pack(compiled, package_dir, manifest)
    report(f"jitfish: prebuilt {cpu_name} kernels, {archive.stat().st_size / 1024:.0f} KiB")
    return archive


if __name__ == "__main__":  # python -m jitfish.runtime.prebuilt PACKAGE_DIR (setup.py's build step)
    build(Path(sys.argv[1]).resolve())
