"""The UCI option table: name, type, default, range and the engine setter of each option.

The table is plain data and imports nothing heavy, so ``uci`` can list it
before any kernel is loaded.  A value is checked and stored here first; the
setter then applies it to the engine (at once when the engine is loaded, or
when it finishes loading).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from jitfish.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL

# The largest transposition table, in MiB, and the most search threads.
MAX_HASH_MB = 32768
MAX_THREADS = 64
MAX_MULTIPV = 256

Setter = Callable[[Any, Any], None]  # (engine, value)


class OptionError(ValueError):
    """A ``setoption`` that cannot be applied: unknown name, missing or bad value."""


@dataclass
class Option:
    name: str
    type: str  # "check", "spin", "button", "string", "combo"
    default: Any = None
    min: int | None = None
    max: int | None = None
    setter: Setter | None = None
    choices: tuple[str, ...] = ()
    value: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.value = self.default

    def uci_line(self) -> str:
        """The ``option name ...`` line of the ``uci`` reply."""
        line = f"option name {self.name} type {self.type}"
        if self.type == "button":
            return line
        default = self.default
        if self.type == "check":
            default = "true" if default else "false"
        elif self.type == "string" and default == "":
            default = "<empty>"
        line += f" default {default}"
        if self.type == "spin":
            line += f" min {self.min} max {self.max}"
        for choice in self.choices:
            line += f" var {choice}"
        return line

    def parse(self, text: str | None) -> Any:
        """The typed value of ``text``; ``OptionError`` when it does not fit."""
        if self.type == "button":
            return None
        if text is None:
            if self.type == "string":
                return ""
            raise OptionError(f"option '{self.name}' needs a value")
        if self.type == "check":
            lowered = text.lower()
            if lowered not in ("true", "false"):
                raise OptionError(f"option '{self.name}' takes true or false, got '{text}'")
            return lowered == "true"
        if self.type == "spin":
            try:
                number = int(text)
            except ValueError:
                raise OptionError(f"option '{self.name}' takes an integer, got '{text}'") from None
            if not self.min <= number <= self.max:
                raise OptionError(f"option '{self.name}' value {number} is out of range "
                                  f"[{self.min}, {self.max}]")
            return number
        if self.type == "combo":
            for choice in self.choices:
                if choice.lower() == text.lower():
                    return choice
            raise OptionError(f"option '{self.name}' takes one of {', '.join(self.choices)}, got '{text}'")
        return "" if text == "<empty>" else text


def default_options() -> list[Option]:
    """A fresh option table, in the order ``uci`` lists it."""
    return [
        Option("Threads", "spin", 1, 1, MAX_THREADS, lambda e, v: e.set_threads(v)),
        Option("Hash", "spin", 16, 1, MAX_HASH_MB, lambda e, v: e.set_hash(v)),
        Option("Clear Hash", "button", setter=lambda e, v: e.clear_hash()),
        Option("Ponder", "check", False, setter=lambda e, v: e.settings.update(ponder=v)),
        Option("MultiPV", "spin", 1, 1, MAX_MULTIPV, lambda e, v: e.settings.update(multipv=v)),
        Option("Move Overhead", "spin", 20, 0, 5000, lambda e, v: e.settings.update(move_overhead_ms=v)),
        Option("Skill Level", "spin", SKILL_MAX_LEVEL, 0, SKILL_MAX_LEVEL,
               lambda e, v: e.settings.update(skill_level=v)),
        Option("UCI_LimitStrength", "check", False, setter=lambda e, v: e.settings.update(limit_strength=v)),
        Option("UCI_Elo", "spin", 1500, MIN_ELO, MAX_ELO, lambda e, v: e.settings.update(elo=v)),
        Option("UCI_Chess960", "check", False, setter=lambda e, v: e.set_chess960(v)),
        Option("UCI_ShowWDL", "check", False, setter=lambda e, v: e.settings.update(show_wdl=v)),
        Option("OwnBook", "check", False, setter=lambda e, v: e.settings.update(own_book=v)),
        Option("BookFile", "string", "", setter=lambda e, v: e.set_book_file(v)),
        Option("EvalFile", "string", "", setter=lambda e, v: e.set_eval_file(v)),
        Option("Use NNUE", "check", False, setter=lambda e, v: e.set_use_nnue(v)),
        Option("SyzygyPath", "string", "", setter=lambda e, v: e.set_syzygy_path(v)),
        Option("SyzygyProbeDepth", "spin", 1, 1, 100, lambda e, v: e.settings.update(syzygy_probe_depth=v)),
        Option("Syzygy50MoveRule", "check", True, setter=lambda e, v: e.settings.update(syzygy_50_move_rule=v)),
        Option("SyzygyProbeLimit", "spin", 7, 0, 7, lambda e, v: e.settings.update(syzygy_probe_limit=v)),
    ]


def search_param_options() -> list[Option]:
    """``--tune`` mode's options: one ``spin`` per search parameter (:mod:`jitfish.search.params`), its range
    the parameter's; a value set applies to the next search, with no recompiling."""
    from jitfish.search.params import FIELDS, default_params

    defaults = default_params()
    return [Option(field.name, "spin", int(defaults[index]), field.low, field.high,
                   lambda e, v, name=field.name: e.set_search_param(name, v))
            for index, field in enumerate(FIELDS)]


class OptionTable:
    """Options by case-insensitive name, with the values set so far."""

    def __init__(self, options: list[Option] | None = None) -> None:
        self.options = options if options is not None else default_options()
        self._by_name = {option.name.lower(): option for option in self.options}

    def __iter__(self):
        return iter(self.options)

    def __getitem__(self, name: str) -> Option:
        return self._by_name[name.lower()]

    def get(self, name: str) -> Option | None:
        return self._by_name.get(name.lower())

    def value(self, name: str) -> Any:
        return self[name].value

    def set(self, name: str, text: str | None) -> Option:
        """Check and store a value; ``OptionError`` leaves the old one in place."""
        option = self.get(name)
        if option is None:
            raise OptionError(f"unknown option '{name}'")
        option.value = option.parse(text) if option.type != "button" else None
        return option


def parse_setoption(tokens: list[str]) -> tuple[str, str | None]:
    """Name and value of ``setoption name <name with spaces> [value <value with spaces>]``.

    ``tokens`` are the words after ``setoption``.  Raises ``OptionError`` when
    there is no name.
    """
    if not tokens or tokens[0] != "name":
        raise OptionError("setoption needs 'name <option name>'")
    try:
        split = tokens.index("value")
    except ValueError:
        split = len(tokens)
    name = " ".join(tokens[1:split])
    if not name:
        raise OptionError("setoption needs 'name <option name>'")
    value = " ".join(tokens[split + 1:]) if split < len(tokens) else None
    return name, value
