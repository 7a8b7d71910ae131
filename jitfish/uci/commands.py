"""Reading UCI commands: a line's words become a command's typed arguments, and bad words become messages.

Pure functions, no state and no engine: each returns what it read and the
problems it found (the protocol reports them as ``info string error: ...``
and goes on with what was read), or raises :class:`CommandError` when
nothing usable is left.  ``setoption`` is read by :mod:`jitfish.uci.options`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

if TYPE_CHECKING:
    from jitfish.engine.turn import GoParams

# go parameters followed by an integer, and those that stand alone.
GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")
GO_FLAGS = ("infinite", "ponder")
GO_KEYWORDS = GO_INT_PARAMS + GO_FLAGS + ("searchmoves", "perft")
# Values that must be positive (clocks may be zero or negative: some GUIs overdraw them).
GO_POSITIVE = ("movestogo", "depth", "nodes", "mate", "movetime")
# The go parameters that end a search by themselves (``mate`` alone does not: there may be no mate).
GO_LIMITS = ("wtime", "btime", "depth", "nodes", "movetime")
# Larger values (``go nodes 9223372036854775808``) are read as this much: no limit that large can be reached,
# and the search's counters are 64-bit.
MAX_GO_VALUE = 1 << 62
# The most plies ``go perft`` and ``bench`` take.
MAX_PERFT_DEPTH = 20
MAX_BENCH_DEPTH = 64


class CommandError(ValueError):
    """A command whose words cannot be used: the protocol reports the message and ignores the command."""


def starts_search(command: str, args: list[str]) -> bool:
    """Whether a command starts a search (``go perft`` counts moves instead)."""
    return command == "go" and args[:1] != ["perft"]


def parse_go(args: list[str]) -> tuple[GoParams, list[str]]:
    """The parameters of ``go <args>`` (not ``go perft``), and the problems with the words that were ignored."""
    from jitfish.engine.turn import GoParams

    params, problems = GoParams(), []
    index = 0
    while index < len(args):
        token = args[index]
        index += 1
        if token in GO_FLAGS:
            setattr(params, token, True)
        elif token == "searchmoves":
            while index < len(args) and args[index] not in GO_KEYWORDS:
                params.searchmoves.append(args[index])
                index += 1
        elif token in GO_INT_PARAMS:
            if index >= len(args):
                problems.append(f"go: '{token}' needs a number")
                continue
            text = args[index]
            index += 1
            try:
                value = int(text)
            except ValueError:
                problems.append(f"go: '{token}' needs an integer, got '{text[:40]}'; ignored")
                if text in GO_KEYWORDS:
                    index -= 1
                continue
            if token in GO_POSITIVE and value <= 0:
                problems.append(f"go: '{token} {value}' is out of range; ignored")
                continue
            setattr(params, token, max(-MAX_GO_VALUE, min(value, MAX_GO_VALUE)))
        else:
            problems.append(f"go: unknown parameter '{token[:40]}' ignored")
    return params, problems


def releasers(params: GoParams) -> tuple[str, ...]:
    """What a search of ``params`` waits for before it may end: ``go ponder`` for ``ponderhit`` or
    ``stop``; ``go infinite``, and a ``go`` with no limit at all, for ``stop``; any other ``go`` nothing."""
    if params.ponder:
        return ("stop", "ponderhit")
    return after_ponderhit(params)


def after_ponderhit(params: GoParams) -> tuple[str, ...]:
    """What a ``go ponder`` search waits for once the ``ponderhit`` came: as :func:`releasers` without it."""
    endless = params.infinite or all(getattr(params, name) is None for name in GO_LIMITS)
    return ("stop",) if endless else ()


def parse_position(args: list[str]) -> tuple[str | None, list[str]]:
    """The FEN (None: the start position) and the moves of ``position <args>``; ``CommandError`` when the
    words name no position."""
    if not args:
        raise CommandError("position needs 'startpos' or 'fen <fen>'")
    try:
        split = args.index("moves")
    except ValueError:
        split = len(args)
    head, moves = args[:split], args[split + 1 :]
    if head == ["startpos"]:
        return None, moves
    if head[:1] == ["fen"] and len(head) > 1:
        return " ".join(head[1:]), moves
    raise CommandError("position needs 'startpos' or 'fen <fen>' before 'moves'")


@overload
def parse_depth(args: list[str], command: str, highest: int, optional: Literal[False] = False) -> int: ...


@overload
def parse_depth(args: list[str], command: str, highest: int, optional: bool) -> int | None: ...


def parse_depth(args: list[str], command: str, highest: int, optional: bool = False) -> int | None:
    """The depth of ``go perft <depth>`` or ``bench [depth]`` (None: ``bench`` without one); ``CommandError``
    when it is missing or not in 1..``highest``."""
    if optional and not args:
        return None
    if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= highest:
        needs = "takes an optional depth" if optional else "needs a depth"
        raise CommandError(f"{command} {needs} between 1 and {highest}")
    return int(args[0])
