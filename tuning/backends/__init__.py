"""The two ways of playing a match, behind one interface.

A backend takes a :class:`~tuning.config.MatchConfig` and returns a :class:`MatchOutcome` (game records plus
bookkeeping); it reports each finished game to ``on_game`` as it goes and asks ``should_stop`` whether to start
more encounters (the SPRT decision lives in the caller).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Protocol, Sequence

from tuning.config import MatchConfig
from tuning.results import GameRecord

GameCallback = Callable[[GameRecord, Sequence[GameRecord]], None]
StopPredicate = Callable[[Sequence[GameRecord]], bool]
BackendName = Literal["auto", "cutechess", "python-chess"]
CUTECHESS_PROGRAM = "cutechess-cli"


@dataclass
class MatchOutcome:
    """What a backend hands back."""

    records: list[GameRecord]
    stopped_early: bool = False
    restarts: dict[str, int] = field(default_factory=dict)
    reported: dict[str, Any] = field(default_factory=dict)
    """What the tournament manager itself printed (cutechess-cli's final score, Elo and SPRT lines)."""


class Backend(Protocol):
    name: str

    def run(self, config: MatchConfig, on_game: GameCallback, should_stop: StopPredicate) -> MatchOutcome: ...


def choose_backend(name: BackendName = "auto") -> Backend:
    """cutechess-cli when asked for or (``auto``) found on PATH, python-chess otherwise."""
    if name == "cutechess" or (name == "auto" and shutil.which(CUTECHESS_PROGRAM)):
        from tuning.backends.cutechess import CutechessBackend

        return CutechessBackend()
    from tuning.backends.pychess import PythonChessBackend

    return PythonChessBackend()
