"""The two ways of playing a match, behind one interface.

A backend takes a :class:`~tuning.config.MatchConfig` and returns a :class:`MatchOutcome` (game records plus
bookkeeping); it reports each finished game to ``on_game`` as it goes and asks ``should_stop`` whether to start
more encounters (the SPRT decision lives in the caller).
"""

from __future__ import annotations

import shutil

from tuning.backends.interface import (
    CUTECHESS_PROGRAM,
    Backend,
    BackendName,
    GameCallback,
    MatchOutcome,
    StopPredicate,
)

__all__ = [
    "CUTECHESS_PROGRAM",
    "Backend",
    "BackendName",
    "GameCallback",
    "MatchOutcome",
    "StopPredicate",
    "choose_backend",
]


def choose_backend(name: BackendName = "auto") -> Backend:
    """cutechess-cli when asked for or (``auto``) found on PATH, python-chess otherwise."""
    if name == "cutechess" or (name == "auto" and shutil.which(CUTECHESS_PROGRAM)):
        from tuning.backends.cutechess import CutechessBackend

        return CutechessBackend()
    from tuning.backends.pychess import PythonChessBackend

    return PythonChessBackend()
