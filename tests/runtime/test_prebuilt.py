"""Shipped kernels (jitfish/runtime/prebuilt.py): used only where they fit, moved to the installed package's names,
and never run on a CPU they were not compiled for: neither by Jitfish's choice nor by Numba's cache keys."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

import jitfish.runtime.jit
from jitfish.runtime import prebuilt

CPU, FEATURES = prebuilt.TARGETS["x86_64"]
HOST_TRIPLE, HOST_FEATURES = prebuilt._host()
needs_x86_64_v3 = pytest.mark.skipif(
    not set(FEATURES) <= HOST_FEATURES, reason="the shipped kernels' CPU (x86-64-v3) is not this machine's"
)


def fitting_manifest(**changes) -> prebuilt.Manifest:
    """A manifest that fits this process (where the CPU has x86-64-v3's features), with ``changes``."""
    manifest = prebuilt.Manifest(
        format=prebuilt.FORMAT,
        digest=jitfish.runtime.jit.DIGEST,
        numba=numba.__version__,
        python=sys.implementation.cache_tag,
        triple=HOST_TRIPLE,
        cpu_name=CPU,
        cpu_features="",
        required_features=FEATURES,
        groups=prebuilt.GROUPS,
    )
    return dataclasses.replace(manifest, **changes)


@needs_x86_64_v3
def test_kernels_that_fit_are_accepted():
    assert prebuilt.mismatch(fitting_manifest(), jitfish.runtime.jit.DIGEST) is None


@needs_x86_64_v3
@pytest.mark.parametrize(
    "changes, reason",
    [
        (dict(digest="0123456789abcdef"), "compiled from other kernel sources"),
        (dict(numba="0.59.0"), "compiled by Numba 0.59.0"),
        (dict(python="cpython-399"), "compiled for cpython-399"),
        (dict(triple="aarch64-unknown-linux-gnu"), "compiled for aarch64-unknown-linux-gnu"),
        (dict(format=prebuilt.FORMAT + 1), "manifest format"),
    ],
)
def test_kernels_made_for_other_sources_or_tools_are_refused(changes, reason):
    assert reason in prebuilt.mismatch(fitting_manifest(**changes), jitfish.runtime.jit.DIGEST)


def test_kernels_for_a_cpu_with_features_this_one_lacks_are_refused(monkeypatch):
    """A CPU without AVX2 (an x86-64-v2 machine) must not load x86-64-v3 code: it would crash on the first
    AVX2 instruction."""
    older = {feature for feature in HOST_FEATURES | set(FEATURES) if feature not in ("avx2", "bmi2", "fma")}
    monkeypatch.setattr(prebuilt, "_host", lambda: (HOST_TRIPLE, older))
    expected = "the CPU lacks avx2, bmi2, fma (x86-64-v3)"
    assert prebuilt.mismatch(fitting_manifest(), jitfish.runtime.jit.DIGEST) == expected


def test_a_cpu_the_user_chose_is_obeyed(monkeypatch):
    monkeypatch.setattr(numba.config, "CPU_NAME", "skylake")
    assert prebuilt.mismatch(fitting_manifest(), jitfish.runtime.jit.DIGEST) == "NUMBA_CPU_NAME is skylake"


def test_no_manifest_or_an_unreadable_one_or_the_switch_off_means_native_kernels(tmp_path, monkeypatch):
    assert prebuilt.fitting(tmp_path, jitfish.runtime.jit.DIGEST) is None  # a checkout: nothing shipped
    (tmp_path / prebuilt.ARCHIVE).write_bytes(b"")
    (tmp_path / prebuilt.MANIFEST).write_text("{not json")
    assert prebuilt.fitting(tmp_path, jitfish.runtime.jit.DIGEST) is None
    (tmp_path / prebuilt.MANIFEST).write_text(json.dumps(dataclasses.asdict(fitting_manifest())))
    monkeypatch.setenv("JITFISH_PREBUILT", "0")
    assert prebuilt.fitting(tmp_path, jitfish.runtime.jit.DIGEST) is None


def test_a_checkout_compiles_native_kernels_into_the_plain_cache_folder():
    assert jitfish.runtime.jit.PREBUILT is None
    assert jitfish.runtime.jit.CACHE_DIR.name == f"{jitfish.__version__}-{jitfish.runtime.jit.DIGEST}"


# A package of one cached kernel, and a run of it in a fresh process: its result and whether Numba loaded
# it from the cache or compiled it.
KERNEL = """
import numba

@numba.njit(cache=True)
def triple_plus_one(x):
    return 3 * x + 1
"""
RUN = textwrap.dedent("""
    import json
    from tinypkg.mod import triple_plus_one
    value = triple_plus_one(14)
    stats = triple_plus_one.stats
    print(json.dumps([value, stats.cache_hits.total(), stats.cache_misses.total()]))
""")


def run_kernel(package_root: Path, cache_dir: Path, cpu_name: str | None) -> tuple[int, bool]:
    """(its result, whether it was loaded from the cache) in a fresh process."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("NUMBA_CPU")}
    env.update(PYTHONPATH=str(package_root), NUMBA_CACHE_DIR=str(cache_dir))
    if cpu_name is not None:
        env.update(NUMBA_CPU_NAME=cpu_name, NUMBA_CPU_FEATURES="")
    done = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, check=True)
    value, hits, misses = json.loads(done.stdout)
    assert hits + misses == 1
    return value, hits == 1


@needs_x86_64_v3
def test_shipped_kernels_load_under_the_installed_names_and_only_for_their_cpu(tmp_path):
    """Compiled for x86-64-v3 in a build folder, packed, installed for a package at another path: they load
    there for x86-64-v3, and for any other CPU (the host's own) Numba compiles the kernel again."""
    built = tmp_path / "build" / "tinypkg"
    built.mkdir(parents=True)
    (built / "__init__.py").write_text("")
    (built / "mod.py").write_text(KERNEL)
    assert run_kernel(built.parent, tmp_path / "build-cache", CPU) == (43, False)
    manifest = fitting_manifest()
    prebuilt.pack(tmp_path / "build-cache", built, manifest)

    installed = tmp_path / "site-packages" / "tinypkg"
    shutil.copytree(built, installed)
    assert prebuilt.Manifest.read(installed / prebuilt.MANIFEST) == manifest
    cache = tmp_path / "user-cache"
    prebuilt.install(manifest, installed, cache)
    assert (cache / prebuilt.INSTALLED).is_file()
    assert run_kernel(installed.parent, cache, CPU) == (43, True)
    assert run_kernel(installed.parent, cache, "generic") == (43, False)
    assert run_kernel(installed.parent, cache, None) == (43, False)  # the host's CPU (not x86-64-v3 by name)


def test_install_never_fails_a_start(tmp_path):
    """A cache folder that cannot be written leaves the kernels to be compiled."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / prebuilt.ARCHIVE).write_bytes(b"not an archive")
    prebuilt.install(fitting_manifest(), package, tmp_path / "cache")
    assert not (tmp_path / "cache" / prebuilt.INSTALLED).exists()
