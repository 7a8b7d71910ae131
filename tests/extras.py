"""What a test needs beyond the ``test`` extra, as skips that name it.

A checkout installed with ``pip install -e '.[test]'`` alone passes the whole suite: a test that needs an
optional extra (PyTorch, Dask's ``distributed``, matplotlib) or a reference program (Stockfish, Fairy-Max)
skips when it is missing, at collection too, with a reason that says what to install.  ``.ci/run`` installs
all of them, so CI runs every test.  The extras are :data:`jitfish.runtime.extras.EXTRA_OF`'s.

- ``module = importorskip("torch")`` at the top of a test module (before the imports that need it);
- ``@needs("matplotlib")`` on a test;
- ``@needs_program("stockfish")`` on a test that starts the program.
"""

from __future__ import annotations

import importlib.util
import shutil
from types import ModuleType

import pytest

from jitfish.runtime.extras import EXTRA_OF

# The reference programs the tests play or compare with, and the Debian package that installs each.
PROGRAMS = {"stockfish": "stockfish", "fairymax": "fairymax", "chromium": "chromium", "chromedriver": "chromium-driver"}


def missing_reason(module: str) -> str:
    """The skip's reason for an optional module that is not installed: the module and its extra."""
    return f"needs {module}, the '{EXTRA_OF[module]}' extra: pip install -e '.[{EXTRA_OF[module]}]'"


def importorskip(module: str) -> ModuleType:
    """The optional ``module``, or the whole test module skipped with a reason naming its extra."""
    return pytest.importorskip(module, reason=missing_reason(module))


def installed(module: str) -> bool:
    """Whether ``module`` can be imported (found by the import system, which may refuse it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


def needs(module: str) -> pytest.MarkDecorator:
    """Skip the test when the optional ``module`` is not installed."""
    return pytest.mark.skipif(not installed(module), reason=missing_reason(module))


def program_path(name: str) -> str:
    """Where the reference program ``name`` is: on the path, else Debian's ``/usr/games``."""
    return shutil.which(name) or f"/usr/games/{name}"


def needs_program(name: str) -> pytest.MarkDecorator:
    """Skip the test when the reference program ``name`` is not installed."""
    return pytest.mark.skipif(
        shutil.which(program_path(name)) is None,
        reason=f"needs {name}, not installed: apt-get install {PROGRAMS[name]}",
    )
