"""The engine's options, each written once: UCI name, type, default, range, and the setting it holds.

:data:`OPTIONS` is the one list.  The engine starts its :class:`Settings`
from the defaults and sets a value by the option's UCI name
(:meth:`jitfish.engine.Engine.set_option`): the row's ``apply`` function, if
it has one, does what the value changes (resize the table, load a file),
then the value is stored under the row's ``key``, where each ``go`` reads it.
The UCI layer derives its ``option name ...`` lines and its checks of
``setoption`` values from the same rows (:mod:`jitfish.uci.options`).  So a
new option is one row here, and a function when storing is not enough.

Imports nothing heavy (the ``apply`` functions import what they need when
called): ``uci`` lists the options before any kernel is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NamedTuple

from jitfish.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL

# The largest transposition table in MiB, the most search threads and the most lines shown.
MAX_HASH_MB = 32768
MAX_THREADS = 64
MAX_MULTIPV = 256
MAX_MOVE_OVERHEAD_MS = 5000

if TYPE_CHECKING:
    from jitfish.engine import Engine


class OptionSpec(NamedTuple):
    """One option as UCI lists it, ``key``: the :class:`Settings` attribute that holds its value, and
    ``apply(engine, value)``: what setting it does beyond storing the value (an error keeps the old value)."""

    name: str
    type: str  # "check", "spin", "button", "string", "combo"
    key: str
    default: Any = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()
    apply: Callable[[Engine, Any], None] | None = None


def _load_network(engine: Engine, path: str) -> str:
    """Load the network of ``path`` (empty: the one shipped in the package) as the engine's; its path."""
    from jitfish.nnue.format import SHIPPED_NETWORK, read_network
    from jitfish.nnue.inference import kernel_network

    path = path or str(SHIPPED_NETWORK)
    engine.network = kernel_network(read_network(path))
    return path


def _set_eval_file(engine: Engine, path: str) -> None:
    """Load the network of ``path`` (empty: the one shipped in the package); ``OSError``/``ValueError`` keep
    the one loaded."""
    path = _load_network(engine, path)
    engine.callbacks.on_message(f"network {path}: 768 -> {engine.network.hidden} -> 1")
    _search_with(engine, engine.settings.use_nnue)


def _set_use_nnue(engine: Engine, enabled: bool) -> None:
    """Search with the network of ``EvalFile`` (the shipped one if none was set), or the hand-written
    evaluation."""
    if enabled and engine.network is None:
        _set_eval_file(engine, "")
    _search_with(engine, enabled)


def _search_with(engine: Engine, use_nnue: bool) -> None:
    network = engine.network if use_nnue else None
    if network is not engine.searcher.network:
        engine.searcher.set_network(network)


def _set_book_file(engine: Engine, path: str) -> None:
    from jitfish.book import Book

    engine.book = None
    if path:
        engine.book = Book(path)  # OSError / ValueError reach the protocol
        engine.callbacks.on_message(f"book {path}: {len(engine.book)} entries")


# The settings the search's tablebase probes read, in the order Searcher.set_tablebase takes them.
_PROBE_KEYS = ("syzygy_probe_limit", "syzygy_probe_depth", "syzygy_50_move_rule")


def _probe_with(engine: Engine, tablebase, **changed) -> None:
    """Hand ``tablebase`` (None: no tables) and the probe settings to the searcher; ``changed``: the value of an
    option being set (its ``apply`` runs before the value is stored)."""
    values = {key: getattr(engine.settings, key) for key in _PROBE_KEYS} | changed
    engine.searcher.set_tablebase(tablebase, *(values[key] for key in _PROBE_KEYS))


def _set_probe_option(key: str) -> Callable[[Engine, Any], None]:
    """The ``apply`` of a probe setting: the searcher probes with the new value from the next search on."""
    return lambda engine, value: _probe_with(engine, engine.searcher.tablebase, **{key: value})


def _set_syzygy_path(engine: Engine, text: str) -> None:
    """Load the Syzygy tables of ``text``'s folders (``os.pathsep``-separated; empty: none).  A folder that
    does not exist or holds no tables, and a file that is not a table, are reported, and the tables found
    are used.  Without any table found the search stays the one without tables (lichess-bot's default
    ``./syzygy/`` usually does not exist); with tables, the search that probes them is compiled or loaded
    now, before the ``readyok`` that follows, never in a timed search."""
    from jitfish.syzygy import Tablebase, split_paths

    previous = engine.searcher.tablebase
    found = Tablebase(text) if split_paths(text) else None
    tablebase = found if found is not None and (found.wdl_count or found.dtz_count) else None
    if tablebase is not None:
        from jitfish.compile import FIRST_USE_SECONDS, is_cached, warm_tablebases

        if not is_cached("tablebases"):
            engine.callbacks.on_message("compiling the search with tables (first use only, about "
                                        f"{FIRST_USE_SECONDS['tablebases']} s)")
        warm_tablebases(tablebase)
    _probe_with(engine, tablebase)
    if previous is not None:
        previous.close()
    if found is not None:
        for problem in found.problems:
            engine.callbacks.on_message(f"error: {problem}")
        if tablebase is None:
            found.close()
            engine.callbacks.on_message("Syzygy: no tables found; the search goes on without tables")
        else:
            engine.callbacks.on_message(found.summary())


# In the order ``uci`` lists them.
OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("Threads", "spin", "threads", 1, 1, MAX_THREADS,
               apply=lambda engine, value: engine.searcher.set_threads(value)),
    OptionSpec("Hash", "spin", "hash_mb", 16, 1, MAX_HASH_MB,
               apply=lambda engine, value: engine.searcher.resize(value)),
    OptionSpec("Clear Hash", "button", "clear_hash", apply=lambda engine, value: engine.searcher.clear()),
    OptionSpec("Ponder", "check", "ponder", False),
    OptionSpec("MultiPV", "spin", "multipv", 1, 1, MAX_MULTIPV),
    OptionSpec("Move Overhead", "spin", "move_overhead_ms", 20, 0, MAX_MOVE_OVERHEAD_MS),
    OptionSpec("Skill Level", "spin", "skill_level", SKILL_MAX_LEVEL, 0, SKILL_MAX_LEVEL),
    OptionSpec("UCI_LimitStrength", "check", "limit_strength", False),
    OptionSpec("UCI_Elo", "spin", "elo", 1500, MIN_ELO, MAX_ELO),
    OptionSpec("UCI_Chess960", "check", "chess960", False,
               apply=lambda engine, value: engine.game.set_chess960(value)),
    OptionSpec("UCI_ShowWDL", "check", "show_wdl", False),
    OptionSpec("OwnBook", "check", "own_book", False),
    OptionSpec("BookFile", "string", "book_file", "", apply=_set_book_file),
    OptionSpec("EvalFile", "string", "eval_file", "", apply=_set_eval_file),
    OptionSpec("Use NNUE", "check", "use_nnue", True, apply=_set_use_nnue),
    OptionSpec("SyzygyPath", "string", "syzygy_path", "", apply=_set_syzygy_path),
    OptionSpec("SyzygyProbeDepth", "spin", "syzygy_probe_depth", 1, 1, 100,
               apply=_set_probe_option("syzygy_probe_depth")),
    OptionSpec("Syzygy50MoveRule", "check", "syzygy_50_move_rule", True,
               apply=_set_probe_option("syzygy_50_move_rule")),
    OptionSpec("SyzygyProbeLimit", "spin", "syzygy_probe_limit", 7, 0, 7,
               apply=_set_probe_option("syzygy_probe_limit")),
)

BY_NAME = {spec.name.lower(): spec for spec in OPTIONS}  # UCI option names are case-insensitive


def search_param_options() -> list[OptionSpec]:
    """``--tune`` mode's options: one ``spin`` per search parameter (:mod:`jitfish.search.params`), with the
    parameter's range.  The engine sets them by name (:meth:`jitfish.search.Searcher.set_param`): they are
not stored in :class:`Settings`."""
    from jitfish.search.params import FIELDS, default_params

    defaults = default_params()
    return [OptionSpec(field.name, "spin", field.name, int(defaults[index]), field.low, field.high)
            for index, field in enumerate(FIELDS)]


def apply_defaults(engine: Engine) -> None:
    """What a new engine's default values set up beyond being stored: the shipped network, which
    ``Use NNUE`` searches with by default (loaded quietly: a start says nothing before ``readyok``)."""
    if engine.settings.use_nnue:
        _load_network(engine, engine.settings.eval_file)
        _search_with(engine, True)


class Settings:
    """The value of every option by its key (``settings.multipv``), starting at the defaults."""

    def __init__(self) -> None:
        for spec in OPTIONS:
            setattr(self, spec.key, spec.default)
