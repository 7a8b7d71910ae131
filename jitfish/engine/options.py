"""The engine's options, each written once: its UCI name, type and range, the setting that holds its value,
and what setting it does, as a callable on the row (as Stockfish's ``engine.cpp`` declares them).

:class:`Settings` is the one store of the current values, typed, starting at the defaults.  :data:`OPTIONS`
is the one list of options: a row names its ``Settings`` field (its default is that field's) and, when
storing the value is not all, its ``on_change``: a function of the engine and the new value that calls the
:class:`~jitfish.engine.engine.Engine` method acting on it (``set_hash`` resizes the table, ``load_network``
and ``set_syzygy_path`` load files, ``clear_hash`` is a button's).

Every option takes effect the same way, when it is set: :meth:`Engine.set_option
<jitfish.engine.engine.Engine.set_option>` stores the value in ``Settings``, then calls the row's
``on_change``; if that raises ``ValueError`` or ``OSError`` the old value is put back and the error goes
to the protocol.  What outlives a ``go`` (the table, the threads, the book, the network, the tables and
how they are probed) is changed by ``on_change`` at once, before the ``readyok`` that follows; nothing is
applied again at ``go``.  A row without ``on_change`` is a value the next ``go`` reads from ``Settings``
(its ``Turn`` gets it whole).  ``--tune``'s search parameters are rows too (:func:`search_param_options`),
without a field: their ``on_change`` sets the searcher's parameter.  The UCI layer derives its ``option
name ...`` lines and its checks of ``setoption`` values from the same rows (:mod:`jitfish.uci.options`).
So a new option is one field here, one row, and an engine method when storing is not enough
(``docs/contributing.md``, "Adding a UCI option").

Imports nothing heavy and nothing of the engine: ``uci`` lists the options before any kernel is loaded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from jitfish.engine.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL

if TYPE_CHECKING:
    from jitfish.engine.engine import Engine

# What setting an option does beyond storing its value: called with the engine and the typed value (None
# for a button).
OnChange = Callable[["Engine", Any], None]

# The largest transposition table in MiB, the most search threads and the most lines shown.
MAX_HASH_MB = 32768
MAX_THREADS = 64
MAX_MULTIPV = 256
MAX_MOVE_OVERHEAD_MS = 5000


@dataclass
class Settings:
    """The value of every option (the defaults here are the options' defaults)."""

    threads: int = 1  # Threads
    hash_mb: int = 16  # Hash
    ponder: bool = False  # Ponder: only tells the GUI it may send ``go ponder``
    multipv: int = 1  # MultiPV
    move_overhead_ms: int = 20  # Move Overhead
    skill_level: int = SKILL_MAX_LEVEL  # Skill Level
    limit_strength: bool = False  # UCI_LimitStrength
    elo: int = 1500  # UCI_Elo
    chess960: bool = False  # UCI_Chess960
    show_wdl: bool = False  # UCI_ShowWDL
    own_book: bool = False  # OwnBook
    book_file: str = ""  # BookFile
    eval_file: str = ""  # EvalFile (empty: the shipped network)
    use_nnue: bool = True  # Use NNUE
    syzygy_path: str = ""  # SyzygyPath
    syzygy_probe_depth: int = 1  # SyzygyProbeDepth
    syzygy_50_move_rule: bool = True  # Syzygy50MoveRule
    syzygy_probe_limit: int = 7  # SyzygyProbeLimit


_DEFAULTS = Settings()


class OptionSpec(NamedTuple):
    """One option as UCI lists it; ``key``: the :class:`Settings` field that holds its value (None: a
    button, or a ``--tune`` search parameter); ``on_change``: what setting it does once the value is stored
    (None: storing is all)."""

    name: str
    type: str  # "check", "spin", "button", "string", "combo"
    key: str | None
    default: Any = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    on_change: OnChange | None = None


def _option(
    name: str,
    type: str,
    key: str | None,
    min: int | None = None,
    max: int | None = None,
    on_change: OnChange | None = None,
) -> OptionSpec:
    """A row of :data:`OPTIONS`, its default read from :class:`Settings`."""
    return OptionSpec(name, type, key, None if key is None else getattr(_DEFAULTS, key), min, max, on_change=on_change)


# In the order ``uci`` lists them.
OPTIONS: tuple[OptionSpec, ...] = (
    _option(
        "Threads", "spin", "threads", 1, MAX_THREADS, on_change=lambda engine, threads: engine.set_threads(threads)
    ),
    _option("Hash", "spin", "hash_mb", 1, MAX_HASH_MB, on_change=lambda engine, hash_mb: engine.set_hash(hash_mb)),
    _option("Clear Hash", "button", None, on_change=lambda engine, _: engine.clear_hash()),
    _option("Ponder", "check", "ponder"),
    _option("MultiPV", "spin", "multipv", 1, MAX_MULTIPV),
    _option("Move Overhead", "spin", "move_overhead_ms", 0, MAX_MOVE_OVERHEAD_MS),
    _option("Skill Level", "spin", "skill_level", 0, SKILL_MAX_LEVEL),
    _option("UCI_LimitStrength", "check", "limit_strength"),
    _option("UCI_Elo", "spin", "elo", MIN_ELO, MAX_ELO),
    _option("UCI_Chess960", "check", "chess960", on_change=lambda engine, enabled: engine.set_chess960(enabled)),
    _option("UCI_ShowWDL", "check", "show_wdl"),
    _option("OwnBook", "check", "own_book"),
    _option("BookFile", "string", "book_file", on_change=lambda engine, path: engine.set_book(path)),
    _option("EvalFile", "string", "eval_file", on_change=lambda engine, path: engine.load_network(path)),
    _option("Use NNUE", "check", "use_nnue", on_change=lambda engine, enabled: engine.set_use_nnue(enabled)),
    _option("SyzygyPath", "string", "syzygy_path", on_change=lambda engine, text: engine.set_syzygy_path(text)),
    _option(
        "SyzygyProbeDepth", "spin", "syzygy_probe_depth", 1, 100, on_change=lambda engine, _: engine.probe_as_set()
    ),
    _option("Syzygy50MoveRule", "check", "syzygy_50_move_rule", on_change=lambda engine, _: engine.probe_as_set()),
    _option("SyzygyProbeLimit", "spin", "syzygy_probe_limit", 0, 7, on_change=lambda engine, _: engine.probe_as_set()),
)

BY_NAME = {spec.name.lower(): spec for spec in OPTIONS}  # UCI option names are case-insensitive


@functools.cache
def search_param_options() -> tuple[OptionSpec, ...]:
    """``--tune`` mode's options: one ``spin`` per search parameter (:mod:`jitfish.search.params`), with the
    parameter's range.  Setting one sets the searcher's parameter by name
    (:meth:`jitfish.search.Searcher.set_param`): they are not stored in :class:`Settings`."""
    from jitfish.search.params import FIELDS, default_params

    defaults = default_params()
    return tuple(
        OptionSpec(
            field.name,
            "spin",
            None,
            int(defaults[index]),
            field.low,
            field.high,
            on_change=functools.partial(_set_search_param, field.name),
        )
        for index, field in enumerate(FIELDS)
    )


def _set_search_param(name: str, engine: Engine, value: int) -> None:
    engine.searcher.set_param(name, value)


def option_named(name: str) -> OptionSpec:
    """The option (or ``--tune`` search parameter) called ``name``, in any case; ``ValueError`` for none."""
    spec = BY_NAME.get(name.lower())
    if spec is None:
        spec = {spec.name.lower(): spec for spec in search_param_options()}.get(name.lower())
    if spec is None:
        raise ValueError(f"unknown option {name!r}")
    return spec
