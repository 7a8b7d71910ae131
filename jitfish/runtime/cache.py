"""Where Jitfish keeps what it computes once: compiled kernels (:mod:`jitfish.runtime.jit`), the unpacked copies of
built executables (:mod:`jitfish.runtime.bundle`), datagen's and the trainer's outputs.

It imports nothing heavy, so that a built executable can find its unpacked copy before Numba is imported.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$JITFISH_CACHE_DIR``, else ``jitfish`` in the user cache (``$XDG_CACHE_HOME`` or ``~/.cache``)."""
    explicit = os.environ.get("JITFISH_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "jitfish"
