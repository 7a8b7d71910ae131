"""The clocks of a game: ``--tc 5+3`` (minutes + seconds of increment), both running, a flag that falls.

:class:`Clock` holds both sides' time; only the side to move's runs, from :meth:`Clock.start` to
:meth:`Clock.press`, which adds the increment.  The time source is injected (``now``), so that tests run a
clock without waiting.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

_CONTROL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:\+\s*(\d+(?:\.\d+)?))?\s*$")


@dataclass(frozen=True)
class TimeControl:
    """Seconds on each clock at the start, and seconds added after each move."""

    base: float
    increment: float

    def pgn(self) -> str:
        """The PGN ``TimeControl`` tag: ``300+3``."""
        return f"{self.base:g}+{self.increment:g}"

    def __str__(self) -> str:
        return f"{self.base / 60:g}+{self.increment:g}"


def parse_time_control(text: str) -> TimeControl:
    """``5+3`` (minutes, then seconds of increment), ``0.5+0`` or ``10``; ``ValueError`` otherwise."""
    match = _CONTROL.match(text)
    if match is None:
        raise ValueError(f"time control must be MINUTES+SECONDS such as 5+3, got {text!r}")
    minutes, increment = float(match[1]), float(match[2] or 0)
    if minutes <= 0:
        raise ValueError(f"time control needs some time on the clock, got {text!r}")
    return TimeControl(minutes * 60, increment)


def format_seconds(seconds: float) -> str:
    """``4:58``, ``1:02:03``, and tenths under 20 s (``0:07.4``), as GUIs show a clock."""
    seconds = max(seconds, 0.0)
    if seconds < 20:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass
class Clock:
    """Both sides' remaining seconds (index: ``chess.WHITE`` is ``True``), the side to move's running."""

    control: TimeControl
    now: Callable[[], float] = time.monotonic
    remaining: dict[bool, float] = field(default_factory=dict)
    running: bool | None = None  # the side whose clock runs
    _since: float = 0.0

    def __post_init__(self) -> None:
        if not self.remaining:
            self.remaining = {True: self.control.base, False: self.control.base}

    def start(self, side: bool) -> None:
        """Start ``side``'s clock (the other one stands)."""
        self.stop()
        self.running, self._since = side, self.now()

    def stop(self) -> None:
        """Stop the running clock, its time counted."""
        if self.running is not None:
            self.remaining[self.running] -= self.now() - self._since
            self.running = None

    def press(self) -> float:
        """The side to move has moved: its clock stops and gains the increment (unless its flag fell);
        returns the seconds that move took."""
        side = self.running
        if side is None:
            return 0.0
        used = self.now() - self._since
        self.stop()
        if self.remaining[side] > 0:
            self.remaining[side] += self.control.increment
        return used

    def left(self, side: bool) -> float:
        """``side``'s seconds now (its clock may be running)."""
        running = self.now() - self._since if self.running == side else 0.0
        return self.remaining[side] - running

    def flagged(self, side: bool) -> bool:
        """Whether ``side``'s time has run out."""
        return self.left(side) <= 0

    def milliseconds(self, side: bool) -> int:
        """``side``'s time for a ``go`` (``wtime``/``btime``), at least 1."""
        return max(1, int(self.left(side) * 1000))
