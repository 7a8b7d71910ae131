"""Engine specifications in cutechess-cli's ``-engine`` notation.

``cmd=stockfish name=SF proto=uci dir=/tmp option.Hash=64 arg=--flag`` becomes an :class:`EngineSpec`.
``cmd`` may carry its own arguments (``"cmd=python -m jitfish"``, split like a shell would) when no ``arg=`` is
given. Protocols are ``uci`` and ``xboard``; ``option.NAME=VALUE`` sets a UCI option (or an xboard ``option``).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

Protocol = Literal["uci", "xboard"]
PROTOCOLS: tuple[Protocol, ...] = ("uci", "xboard")


@dataclass(frozen=True)
class EngineSpec:
    """How to start one engine and configure it."""

    command: str
    name: str
    protocol: Protocol = "uci"
    working_dir: str | None = None
    arguments: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)

    def argv(self) -> list[str]:
        """The program and its arguments: ``cmd`` plus ``arg=`` values, or ``cmd`` split like a shell."""
        if self.arguments:
            return [self.command, *self.arguments]
        return shlex.split(self.command)

    def cutechess_tokens(self, include_protocol: bool = True) -> list[str]:
        """The tokens that follow ``-engine`` on a cutechess-cli command line."""
        tokens = [f"cmd={self.command}", f"name={self.name}"]
        if self.working_dir:
            tokens.append(f"dir={self.working_dir}")
        tokens.extend(f"arg={argument}" for argument in self.arguments)
        if include_protocol:
            tokens.append(f"proto={self.protocol}")
        tokens.extend(f"option.{key}={value}" for key, value in self.options.items())
        return tokens


def _default_name(command: str) -> str:
    words = shlex.split(command) or [command]
    name = os.path.basename(words[0])
    if name.startswith("python") and len(words) >= 3 and words[1] == "-m":
        return words[2]  # "python -m jitfish" -> "jitfish"
    if name.startswith("python") and len(words) >= 2:
        return os.path.splitext(os.path.basename(words[1]))[0]
    return name


def parse_engine_spec(tokens: Iterable[str]) -> EngineSpec:
    """Parse ``key=value`` tokens; raises ValueError on an unknown key or a missing ``cmd``."""
    command: str | None = None
    name: str | None = None
    protocol: str = "uci"
    working_dir: str | None = None
    arguments: list[str] = []
    options: dict[str, str] = {}
    for token in tokens:
        key, separator, value = token.partition("=")
        if not separator:
            raise ValueError(f"engine option {token!r} is not key=value")
        if key == "cmd":
            command = value
        elif key == "name":
            name = value
        elif key == "proto":
            protocol = value
        elif key == "dir":
            working_dir = value
        elif key == "arg":
            arguments.append(value)
        elif key.startswith("option.") and len(key) > len("option."):
            options[key[len("option.") :]] = value
        else:
            raise ValueError(f"unknown engine option {key!r} (known: cmd, name, proto, dir, arg, option.X)")
    if not command:
        raise ValueError("engine needs cmd=")
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; expected uci or xboard")
    return EngineSpec(
        command=command,
        name=name or _default_name(command),
        protocol=protocol,  # type: ignore[arg-type]
        working_dir=working_dir,
        arguments=tuple(arguments),
        options=options,
    )


def with_unique_names(specs: Sequence[EngineSpec]) -> list[EngineSpec]:
    """The same engines, renamed ``name-2``, ``name-3`` where names repeat (results are keyed by name)."""
    seen: dict[str, int] = {}
    unique: list[EngineSpec] = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        if count == 1:
            unique.append(spec)
        else:
            unique.append(
                EngineSpec(
                    spec.command,
                    f"{spec.name}-{count}",
                    spec.protocol,
                    spec.working_dir,
                    spec.arguments,
                    dict(spec.options),
                )
            )
    return unique
