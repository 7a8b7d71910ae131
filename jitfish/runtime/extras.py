"""Optional extras: a command that needs one that is not installed says so in one line and exits with 2.

The engine needs only its dependencies; drawing needs matplotlib (the
``plot`` extra) and training networks needs PyTorch (``train``).  Code that
needs one asks :func:`require` for the module, which raises
:class:`MissingExtra` with the line to show: what needed it, the module, and
the install command.  Commands check their extras before doing any work, and
their ``main`` is wrapped in :func:`reporting_missing_extras`, so the user
sees that line and exit status 2 (bad set-up, like bad input), never a
traceback.  In a program of one's own the exception is an ``ImportError``.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

# The optional module -> the extra of pyproject.toml that installs it.
EXTRA_OF = {"matplotlib": "plot", "torch": "train", "distributed": "cluster"}


class MissingExtra(ImportError):
    """An optional module is not installed; the message is the one line to show."""


def require(module: str, needed_by: str) -> ModuleType:
    """The module ``module``; :class:`MissingExtra` naming it and its extra when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(
            f"error: {needed_by} needs {module}, which is not installed: pip install 'jitfish[{EXTRA_OF[module]}]'"
        ) from None


def report_missing(missing: MissingExtra) -> int:
    """Print the one line to stderr; the exit status of a command that could not run."""
    print(missing, file=sys.stderr)
    return 2


def reporting_missing_extras(main: Callable[..., int]) -> Callable[..., int]:
    """``main`` returning 2 after the one line when an extra is missing."""

    @functools.wraps(main)
    def run(*args: Any, **kwargs: Any) -> int:
        try:
            return main(*args, **kwargs)
        except MissingExtra as missing:
            return report_missing(missing)

    return run
