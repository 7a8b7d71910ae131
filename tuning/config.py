"""What a match is: engines, time control, openings, schedule and adjudication rules.

:class:`MatchConfig` is the one object both backends receive. :func:`schedule` turns it into encounters (one
opening played twice, colours swapped), in the order cutechess-cli plays them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from tuning.engines import EngineSpec
from tuning.openings import Opening, OpeningOrder, opening_sequence
from tuning.sprt import SprtConfig
from tuning.tc import TimeControl

TournamentType = Literal["round-robin", "gauntlet"]
GAMES_PER_ENCOUNTER = 2


def _parse_key_values(tokens: Sequence[str], allowed: dict[str, type]) -> dict[str, object]:
    values: dict[str, object] = {}
    for token in tokens:
        key, separator, value = token.partition("=")
        if not separator or key not in allowed:
            raise ValueError(f"bad option {token!r}; expected one of {', '.join(k + '=' for k in allowed)}")
        kind = allowed[key]
        values[key] = value.lower() in ("1", "true", "yes", "on") if kind is bool else kind(value)
    return values


@dataclass(frozen=True)
class DrawAdjudication:
    """Draw once ``move_number`` full moves are played and both sides' scores stayed within ``score``
    centipawns of zero for ``move_count`` consecutive moves each (cutechess-cli ``-draw``)."""

    move_number: int = 40
    move_count: int = 8
    score: int = 10

    @classmethod
    def parse(cls, tokens: Sequence[str]) -> DrawAdjudication:
        values = _parse_key_values(tokens, {"movenumber": int, "movecount": int, "score": int})
        return cls(
            move_number=int(values.get("movenumber", cls.move_number)),  # type: ignore[call-overload]
            move_count=int(values.get("movecount", cls.move_count)),  # type: ignore[call-overload]
            score=int(values.get("score", cls.score)),  # type: ignore[call-overload]
        )

    def cutechess_tokens(self) -> list[str]:
        return [f"movenumber={self.move_number}", f"movecount={self.move_count}", f"score={self.score}"]


@dataclass(frozen=True)
class ResignAdjudication:
    """A loss for a side whose score was at least ``score`` centipawns below zero for ``move_count``
    consecutive moves; with ``two_sided`` the opponent must agree (cutechess-cli ``-resign``)."""

    move_count: int = 3
    score: int = 1000
    two_sided: bool = False

    @classmethod
    def parse(cls, tokens: Sequence[str]) -> ResignAdjudication:
        values = _parse_key_values(tokens, {"movecount": int, "score": int, "twosided": bool})
        return cls(
            move_count=int(values.get("movecount", cls.move_count)),  # type: ignore[call-overload]
            score=int(values.get("score", cls.score)),  # type: ignore[call-overload]
            two_sided=bool(values.get("twosided", cls.two_sided)),
        )

    def cutechess_tokens(self) -> list[str]:
        tokens = [f"movecount={self.move_count}", f"score={self.score}"]
        if self.two_sided:
            tokens.append("twosided=true")
        return tokens


@dataclass(frozen=True)
class MatchConfig:
    """Everything needed to run a match; times in seconds."""

    engines: tuple[EngineSpec, ...]
    time_control: TimeControl
    rounds: int = 1
    concurrency: int = 1
    openings_file: str | None = None
    openings: tuple[Opening, ...] = ()
    opening_order: OpeningOrder = "random"
    opening_plies: int | None = None
    seed: int | None = None
    tournament: TournamentType = "round-robin"
    pgn_out: str | None = None
    sprt: SprtConfig | None = None
    draw: DrawAdjudication | None = None
    resign: ResignAdjudication | None = None
    max_moves: int | None = None
    time_margin: float = 0.0
    stall_timeout: float = 5.0
    move_timeout: float = 60.0
    startup_timeout: float = 60.0
    event: str = "Jitfish match"
    extra: dict[str, str] = field(default_factory=dict)
    played: frozenset[int] = frozenset()
    """Encounters already played (``--resume``, :mod:`tuning.resume`): the schedule leaves them out."""

    def __post_init__(self) -> None:
        if len(self.engines) < 2:
            raise ValueError("a match needs at least two engines")
        if self.rounds < 1 or self.concurrency < 1:
            raise ValueError("rounds and concurrency must be at least 1")
        if self.sprt is not None and len(self.engines) != 2:
            raise ValueError("SPRT needs exactly two engines")

    def pairings(self) -> list[tuple[int, int]]:
        """Engine index pairs that meet: everyone against everyone, or the first engine against the rest."""
        count = len(self.engines)
        if self.tournament == "gauntlet":
            return [(0, other) for other in range(1, count)]
        return [(first, second) for first in range(count) for second in range(first + 1, count)]

    @property
    def total_games(self) -> int:
        return self.rounds * len(self.pairings()) * GAMES_PER_ENCOUNTER


@dataclass(frozen=True)
class Encounter:
    """One opening played twice between two engines: game 0 with ``first`` as White, game 1 swapped."""

    number: int
    round: int
    first: int
    second: int
    opening: Opening

    def game_number(self, game_index: int) -> int:
        """The match's 1-based number of game ``game_index`` (0 or 1) of this encounter."""
        return GAMES_PER_ENCOUNTER * self.number + game_index + 1


def schedule(config: MatchConfig) -> list[Encounter]:
    """All encounters still to play, in playing order: round by round, pairing by pairing (an encounter keeps
    its number, and so its opening, when the ones before it were played by an earlier run)."""
    pairings = config.pairings()
    count = config.rounds * len(pairings)
    openings = opening_sequence(list(config.openings), count, config.opening_order, config.seed)
    encounters: list[Encounter] = []
    for round_index in range(config.rounds):
        for pairing_index, (first, second) in enumerate(pairings):
            number = round_index * len(pairings) + pairing_index
            if number not in config.played:
                encounters.append(Encounter(number, round_index + 1, first, second, openings[number]))
    return encounters
