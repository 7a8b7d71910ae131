"""The engine's options (:mod:`jitfish.engine.options`) as UCI writes and reads them.

Nothing about an option is written here, and no value is kept here: the
``option name ...`` line of a row (:func:`uci_line`) and the typed value of
a ``setoption`` text (:func:`parse_value`) are derived from the row; the
value goes to the engine (:meth:`jitfish.engine.engine.Engine.set_option`), whose
:class:`~jitfish.engine.options.Settings` is the one store of the current values.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jitfish.engine.options import OPTIONS, OptionSpec, search_param_options
from jitfish.uci.commands import CommandError


class OptionError(CommandError):
    """A ``setoption`` that cannot be applied: unknown name, missing or bad value."""


def uci_line(spec: OptionSpec) -> str:
    """The ``option name ...`` line of the ``uci`` reply."""
    line = f"option name {spec.name} type {spec.type}"
    if spec.type == "button":
        return line
    default = spec.default
    if spec.type == "check":
        default = "true" if default else "false"
    elif spec.type == "string" and default == "":
        default = "<empty>"
    line += f" default {default}"
    if spec.type == "spin":
        line += f" min {spec.min} max {spec.max}"
    for choice in spec.choices:
        line += f" var {choice}"
    return line


def parse_value(spec: OptionSpec, text: str | None) -> Any:
    """The typed value of ``text`` for ``spec`` (None for a button); ``OptionError`` when it does not fit."""
    if spec.type == "button":
        return None
    if text is None:
        if spec.type == "string":
            return ""
        raise OptionError(f"option '{spec.name}' needs a value")
    if spec.type == "check":
        lowered = text.lower()
        if lowered not in ("true", "false"):
            raise OptionError(f"option '{spec.name}' takes true or false, got '{text}'")
        return lowered == "true"
    if spec.type == "spin":
        try:
            number = int(text)
        except ValueError:
            raise OptionError(f"option '{spec.name}' takes an integer, got '{text}'") from None
        low = number if spec.min is None else spec.min
        high = number if spec.max is None else spec.max
        if not low <= number <= high:
            raise OptionError(f"option '{spec.name}' value {number} is out of range [{spec.min}, {spec.max}]")
        return number
    if spec.type == "combo":
        for choice in spec.choices:
            if choice.lower() == text.lower():
                return choice
        raise OptionError(f"option '{spec.name}' takes one of {', '.join(spec.choices)}, got '{text}'")
    return "" if text == "<empty>" else text


class OptionTable:
    """The options ``uci`` lists, by case-insensitive name: the engine's, and in ``--tune`` mode
    (``tune=True``) one ``spin`` per search parameter (changed for the next search, with no recompiling)."""

    def __init__(self, tune: bool = False) -> None:
        self.specs = [*OPTIONS, *(search_param_options() if tune else ())]
        self._by_name = {spec.name.lower(): spec for spec in self.specs}

    def __iter__(self) -> Iterator[OptionSpec]:
        return iter(self.specs)

    def parse(self, name: str, text: str | None) -> tuple[OptionSpec, Any]:
        """The option called ``name`` and the typed value of ``text``; ``OptionError`` for an unknown name or
        a value that does not fit."""
        spec = self._by_name.get(name.lower())
        if spec is None:
            raise OptionError(f"unknown option '{name}'")
        return spec, parse_value(spec, text)


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
    value = " ".join(tokens[split + 1 :]) if split < len(tokens) else None
    return name, value
