"""Time controls in cutechess-cli notation, and what they mean for each move.

Accepted forms (space-separated tokens may be combined, e.g. ``"10+0.1 nodes=5000"``):

* ``10+0.1``   10 s for the game plus 0.1 s per move;
* ``40/60``    60 s for every 40 moves (the clock is topped up after each 40th move);
* ``40/1:00+0.5``  minutes:seconds and an increment;
* ``st=1``     1 s per move, nothing carried over;
* ``nodes=N``, ``depth=N``  a node or depth limit per move, no clock;
* ``inf``      no limit other than the ones given by the other tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CLOCK_PATTERN = re.compile(r"^(?:(?P<moves>\d+)/)?(?P<base>[\d.:]+)(?:\+(?P<increment>[\d.]+))?$")


def _seconds(text: str) -> float:
    """``"90"``, ``"1.5"`` or ``"1:30"`` (minutes:seconds) as seconds."""
    if ":" in text:
        minutes, seconds = text.split(":", 1)
        return 60.0 * float(minutes) + float(seconds)
    return float(text)


def _format_seconds(seconds: float) -> str:
    return f"{seconds:g}"


@dataclass(frozen=True)
class TimeControl:
    """Limits for every move of a game. ``base`` is None when there is no game clock."""

    base: float | None = None
    increment: float = 0.0
    moves_per_period: int | None = None
    move_time: float | None = None
    nodes: int | None = None
    depth: int | None = None

    @property
    def has_clock(self) -> bool:
        """True when each side has a running game clock that can run out."""
        return self.base is not None

    def is_unlimited(self) -> bool:
        return self.base is None and self.move_time is None and self.nodes is None and self.depth is None

    def clock_text(self) -> str:
        """The clock part in cutechess-cli notation (``40/60+0.5``), or ``inf``."""
        if self.base is None:
            return "inf"
        text = _format_seconds(self.base)
        if self.moves_per_period:
            text = f"{self.moves_per_period}/{text}"
        if self.increment:
            text += f"+{_format_seconds(self.increment)}"
        return text

    def cutechess_options(self) -> list[str]:
        """The ``-each`` tokens that express this time control to cutechess-cli."""
        options: list[str] = []
        if self.move_time is not None:
            options.append(f"st={_format_seconds(self.move_time)}")
        else:
            options.append(f"tc={self.clock_text()}")
        if self.nodes is not None:
            options.append(f"nodes={self.nodes}")
        if self.depth is not None:
            options.append(f"depth={self.depth}")
        return options

    def pgn_tag(self) -> str:
        """The PGN ``TimeControl`` tag: ``moves/seconds``, ``base+inc``, ``*N`` for fixed time, ``-`` if none."""
        if self.base is not None:
            text = _format_seconds(self.base)
            if self.moves_per_period:
                text = f"{self.moves_per_period}/{text}"
            if self.increment:
                text += f"+{_format_seconds(self.increment)}"
            return text
        if self.move_time is not None:
            return f"*{_format_seconds(self.move_time)}"
        return "-"

    def __str__(self) -> str:
        return " ".join(self.cutechess_options())


def parse_time_control(text: str) -> TimeControl:
    """Parse a time control; raises ValueError with the offending token."""
    fields: dict[str, float | int | None] = {}
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise ValueError("empty time control")
    for token in tokens:
        key, separator, value = token.partition("=")
        if key == "tc" and separator:  # cutechess spelling "tc=10+0.1"
            token, separator = value, ""
        try:
            if separator:
                if key == "st":
                    fields["move_time"] = float(value)
                elif key == "nodes":
                    fields["nodes"] = int(value)
                elif key in ("depth", "plies"):
                    fields["depth"] = int(value)
                else:
                    raise ValueError
            elif token == "inf":
                continue
            else:
                match = _CLOCK_PATTERN.match(token)
                if match is None:
                    raise ValueError
                fields["base"] = _seconds(match["base"])
                fields["increment"] = float(match["increment"] or 0.0)
                fields["moves_per_period"] = int(match["moves"]) if match["moves"] else None
        except ValueError:
            raise ValueError(f"bad time control token {token!r} in {text!r}") from None
    control = TimeControl(**fields)  # type: ignore[arg-type]
    if control.base is not None and control.move_time is not None:
        raise ValueError("a game clock and st= cannot be combined")
    for name in ("base", "move_time", "nodes", "depth"):
        value = getattr(control, name)
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be positive in {text!r}")
    return control
