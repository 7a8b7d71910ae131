"""The engine's options, each written once: its UCI name, type and range, and the setting that holds its value.

:class:`Settings` is the one store of the current values, typed, starting at the defaults.  :data:`OPTIONS`
is the one list of options: a row names its ``Settings`` field (its default is that field's).  What an
option does beyond storing its value is bound where the engine is built (:meth:`Engine._bind_actions
<jitfish.engine.engine.Engine._bind_actions>`, as Stockfish's ``engine.cpp`` binds its options' actions in its
constructor): ``set_hash`` resizes the table, ``load_network`` and ``set_syzygy_path`` load files,
``clear_hash`` is a button's.  So this module needs nothing of the engine.

Every option takes effect the same way, when it is set: :meth:`Engine.set_option
<jitfish.engine.engine.Engine.set_option>` stores the value in ``Settings``, then calls the option's action;
if that raises ``ValueError`` or ``OSError`` the old value is put back and the error goes to the protocol.
What outlives a ``go`` (the table, the threads, the book, the network, the tables and how they are probed)
is changed by the action at once, before the ``readyok`` that follows; nothing is applied again at ``go``.
An option without an action is a value the next ``go`` reads from ``Settings`` (its ``Turn`` gets it
whole).  ``--tune``'s search parameters are rows too (:func:`search_param_options`), without a field: their
action sets the searcher's parameter.  The UCI layer derives its ``option name ...`` lines and its checks
of ``setoption`` values from the same rows (:mod:`jitfish.uci.options`).  So a new option is one field
here, one row, and an engine method bound to it when storing is not enough (``docs/contributing.md``,
"Adding a UCI option").

Imports nothing heavy and nothing of the engine: ``uci`` lists the options before any kernel is loaded.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

from jitfish.engine.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL

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
    button, or a ``--tune`` search parameter)."""

    name: str
    type: str  # "check", "spin", "button", "string", "combo"
    key: str | None
    default: Any = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()


def _option(name: str, type: str, key: str | None, min: int | None = None, max: int | None = None) -> OptionSpec:
    """A row of :data:`OPTIONS`, its default read from :class:`Settings`."""
    return OptionSpec(name, type, key, None if key is None else getattr(_DEFAULTS, key), min, max)


# In the order ``uci`` lists them.
OPTIONS: tuple[OptionSpec, ...] = (
    _option("Threads", "spin", "threads", 1, MAX_THREADS),
    _option("Hash", "spin", "hash_mb", 1, MAX_HASH_MB),
    _option("Clear Hash", "button", None),
    _option("Ponder", "check", "ponder"),
    _option("MultiPV", "spin", "multipv", 1, MAX_MULTIPV),
    _option("Move Overhead", "spin", "move_overhead_ms", 0, MAX_MOVE_OVERHEAD_MS),
    _option("Skill Level", "spin", "skill_level", 0, SKILL_MAX_LEVEL),
    _option("UCI_LimitStrength", "check", "limit_strength"),
    _option("UCI_Elo", "spin", "elo", MIN_ELO, MAX_ELO),
    _option("UCI_Chess960", "check", "chess960"),
    _option("UCI_ShowWDL", "check", "show_wdl"),
    _option("OwnBook", "check", "own_book"),
    _option("BookFile", "string", "book_file"),
    _option("EvalFile", "string", "eval_file"),
    _option("Use NNUE", "check", "use_nnue"),
    _option("SyzygyPath", "string", "syzygy_path"),
    _option("SyzygyProbeDepth", "spin", "syzygy_probe_depth", 1, 100),
    _option("Syzygy50MoveRule", "check", "syzygy_50_move_rule"),
    _option("SyzygyProbeLimit", "spin", "syzygy_probe_limit", 0, 7),
)

BY_NAME = {spec.name.lower(): spec for spec in OPTIONS}  # UCI option names are case-insensitive


@functools.cache
def search_param_options() -> tuple[OptionSpec, ...]:
    """``--tune`` mode's options: one ``spin`` per search parameter (:mod:`jitfish.search.params`), with the
    parameter's range.  Setting one sets the searcher's parameter by name
    (:meth:`jitfish.search.Searcher.set_param`, bound by the engine): they are not stored in :class:`Settings`."""
    from jitfish.search.params import FIELDS, default_params

    defaults = default_params()
    return tuple(
        OptionSpec(field.name, "spin", None, int(defaults[index]), field.low, field.high)
        for index, field in enumerate(FIELDS)
    )


def option_named(name: str) -> OptionSpec:
    """The option (or ``--tune`` search parameter) called ``name``, in any case; ``ValueError`` for none."""
    spec = BY_NAME.get(name.lower())
    if spec is None:
        spec = {spec.name.lower(): spec for spec in search_param_options()}.get(name.lower())
    if spec is None:
        raise ValueError(f"unknown option {name!r}")
    return spec
