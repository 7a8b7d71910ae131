"""What every backend shares: the interface a match runs through, and what it hands back (:mod:`tuning.backends`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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
