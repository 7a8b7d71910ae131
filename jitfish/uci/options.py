"""The UCI option table: the engine's options (:mod:`jitfish.options`) with the values set so far.

Each row of :data:`jitfish.options.OPTIONS` becomes an :class:`Option` that
writes its ``option name ...`` line and checks ``setoption`` values; nothing
about an option is written here.  A value is checked and stored here first;
the setter then applies it to the engine by name (at once when the engine
is loaded, or when it finishes loading).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from jitfish import options as engine_options

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

    @classmethod
    def of(cls, spec: engine_options.OptionSpec) -> Option:
        """The UCI option of an engine option; its setter applies a value by the option's name."""
        return cls(spec.name, spec.type, spec.default, spec.min, spec.max,
                   lambda engine, value: engine.set_option(spec.name, value), spec.choices)


def default_options() -> list[Option]:
    """A fresh option table, in the order ``uci`` lists it."""
    return [Option.of(spec) for spec in engine_options.OPTIONS]


def search_param_options() -> list[Option]:
    """``--tune`` mode's options: one ``spin`` per search parameter; a value set applies to the next search,
    with no recompiling."""
    return [Option.of(spec) for spec in engine_options.search_param_options()]


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
