"""Arrays shipped in the package (the evaluation's weights, the search parameters), read once per process.

Every caller of a default gets the same array, flagged read-only so that no
caller can change another's defaults: copy it before changing it
(``checked_params`` and the tuners do).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np


def read_once(load: Callable[[Path], np.ndarray], path: Path, what: str) -> Callable[[], np.ndarray]:
    """A function returning ``load(path)``, read at its first call and shared read-only; ``what`` names the
    array in its docstring."""

    @functools.cache
    def default() -> np.ndarray:
        array = load(path)
        array.setflags(write=False)
        return array

    default.__doc__ = f"The shipped {what} ({path.name}: read once per process; read-only, copy before changing)."
    return default
