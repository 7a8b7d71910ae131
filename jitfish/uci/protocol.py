"""The UCI protocol: input lines become :class:`~jitfish.engine.engine.Engine` calls, results become lines.

:class:`UciProtocol` handles each command, from four parts, each readable
alone: :mod:`jitfish.uci.commands` reads a command's words,
:mod:`jitfish.uci.ordering` decides when it runs (no command is dropped for
arriving early, none overtakes a search), :mod:`jitfish.uci.output` writes
the lines, and :mod:`jitfish.uci.loading` builds the engine in the
background, so that ``uci`` is answered at once.  This module holds no chess
logic and imports nothing heavy at load time.

Bad input never stops the loop: it is answered with ``info string error: ...``
and the engine stays as it was (or as the protocol says, e.g. a ``position``
with a bad move keeps the moves before it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jitfish._version import __version__
from jitfish.engine.options import OptionSpec
from jitfish.uci.commands import (
    MAX_BENCH_DEPTH,
    MAX_PERFT_DEPTH,
    CommandError,
    parse_depth,
    parse_go,
    parse_position,
    starts_search,
)
from jitfish.uci.loading import EngineLoader
from jitfish.uci.options import OptionTable, parse_setoption, uci_line
from jitfish.uci.ordering import CommandOrder
from jitfish.uci.output import Output, bestmove_line, currmove_line, info_line, short

if TYPE_CHECKING:
    from jitfish.engine.engine import Engine
    from jitfish.engine.turn import EngineCallbacks
    from jitfish.search import SearchInfo

ENGINE_NAME = f"Jitfish {__version__}"
ENGINE_AUTHOR = "the Jitfish developers"
# Longest accepted input line: a game of MAX_GAME_PLY moves fits many times over.
MAX_LINE_CHARS = 1 << 20
# Commands answered at once in the reading thread (jitfish.uci.ordering).
AT_ONCE = ("uci", "debug", "isready", "register", "quit")


class UciProtocol:
    """One UCI session: call :meth:`handle` with each input line.

    ``send`` writes one line (the caller serialises and flushes).
    ``engine_factory`` builds the engine from its callbacks; by default the
    real :class:`~jitfish.engine.engine.Engine`.  ``tune`` (``jitfish --tune``) adds
    the search parameters as options, for tuners such as ``tuning.spsa``.
    """

    def __init__(
        self, send: Callable[[str], None], engine_factory: Callable[..., Engine] | None = None, tune: bool = False
    ) -> None:
        self.output = Output(send)
        self.options = OptionTable(tune)
        self._early_options: list[tuple[OptionSpec, Any]] = []  # set before the engine was loaded, in order
        self._loader = EngineLoader(self.output, self._callbacks, self._apply_early_options, engine_factory)
        self._order = CommandOrder(self._run)

    @property
    def engine(self) -> Engine | None:
        """The engine, once loaded."""
        return self._loader.engine

    def start_loading(self) -> None:
        """Import, build and warm up the engine in a background thread."""
        self._loader.start()

    def wait_engine(self) -> Engine:
        """The loaded engine (waiting for the loader); ``RuntimeError`` if loading failed."""
        return self._loader.wait()

    # --- the engine's reports ----------------------------------------------------------------------
    def _callbacks(self) -> EngineCallbacks:
        from jitfish.engine.turn import EngineCallbacks

        output = self.output
        return EngineCallbacks(
            on_info=self._on_info,
            on_bestmove=self._on_bestmove,
            on_message=output.message,
            on_currmove=lambda depth, move, number: output.send(currmove_line(depth, move, number)),
            on_debug=output.debug_message,
        )

    def _on_info(self, info: SearchInfo) -> None:
        engine = self.engine  # loaded: it is searching
        show_wdl = engine is not None and engine.settings.show_wdl
        self.output.send(info_line(info, engine.game.board if engine is not None and show_wdl else None))

    def _on_bestmove(self, best: str, ponder: str | None) -> None:
        self._order.answer(lambda: self.output.send(bestmove_line(best, ponder)))

    # --- dispatch ----------------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; ``False`` after ``quit``."""
        try:
            return self._dispatch(line)
        finally:
            if self.output.holding:
                self.output.release_held()

    def _dispatch(self, line: str) -> bool:
        if len(line) > MAX_LINE_CHARS:
            self.output.error(f"line of {len(line)} characters ignored (at most {MAX_LINE_CHARS})")
            return True
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command not in self._COMMANDS:
            shown = command if len(command) <= 40 else command[:40] + "..."
            self.output.error(f"unknown command '{shown}'")
            return True
        if command not in AT_ONCE and self._order.hold(command, args):
            return True
        return self._run(command, args)

    def _run(self, command: str, args: list[str]) -> bool:
        try:
            return self._COMMANDS[command](self, args) is not False
        except CommandError as error:  # words that cannot be used (an option's too): the command is ignored
            self.output.error(str(error))
            return True
        except Exception as error:  # a bug must not end the session
            self.output.error(f"{command}: {short(error)}")
            return True

    def wait_until_done(self) -> None:
        """Wait until the commands handled so far have run and no search runs, except one that waits for
        ``stop`` (for commands given as arguments, :func:`jitfish.uci.main.run`)."""
        self._order.wait_idle()

    # --- commands ----------------------------------------------------------------------------------
    def _uci(self, args: list[str]) -> None:
        self.output.send(f"id name {ENGINE_NAME}")
        self.output.send(f"id author {ENGINE_AUTHOR}")
        for spec in self.options:
            self.output.send(uci_line(spec))
        self.output.send("uciok")

    def _debug(self, args: list[str]) -> None:
        if args and args[0] in ("on", "off"):
            self.output.debug = args[0] == "on"
        else:
            self.output.error("debug takes 'on' or 'off'")

    def _isready(self, args: list[str]) -> None:
        self._loader.wait_loaded()
        self._order.wait_ready()
        self.output.send("readyok")

    def _register(self, args: list[str]) -> None:
        self.output.message("Jitfish is free software: no registration needed")

    def _setoption(self, args: list[str]) -> None:
        spec, value = self.options.parse(*parse_setoption(args))
        with self._loader.lock:
            engine = self.engine
            if engine is None:  # applied once the engine is loaded, before readyok
                self._early_options.append((spec, value))
                return
        self._apply(engine, spec, value)

    def _apply_early_options(self, engine: Engine) -> None:
        for spec, value in self._early_options:
            self._apply(engine, spec, value)
        self._early_options.clear()

    def _apply(self, engine: Engine, spec: OptionSpec, value: Any) -> None:
        try:
            engine.set_option(spec.name, value)
        except (OSError, ValueError, MemoryError) as error:
            self.output.error(f"option '{spec.name}': {error}")

    def _ucinewgame(self, args: list[str]) -> None:
        self.wait_engine().new_game()

    def _position(self, args: list[str]) -> None:
        engine = self.wait_engine()
        fen, moves = parse_position(args)
        try:
            engine.set_position(fen, moves)
        except ValueError as error:
            self.output.error(f"position: {error}")

    def _go(self, args: list[str]) -> None:
        engine = self.wait_engine()
        if not starts_search("go", args):
            self._perft(engine, args[1:])
            return
        params, problems = parse_go(args)
        for problem in problems:
            self.output.error(problem)
        if not engine.game.has_position:
            self.output.error("go before position: searching the start position")
            engine.set_position(None, [])
        self._order.start_search(params, lambda stopped: engine.go(params, stopped=stopped))

    def _perft(self, engine: Engine, args: list[str]) -> None:
        depth = parse_depth(args, "go perft", MAX_PERFT_DEPTH)
        self._loader.announce_first_use("perft")
        started = time.perf_counter()
        counts = engine.perft(depth)
        for move, count in counts.items():
            self.output.send(f"{move}: {count}")
        self.output.send("")
        self.output.send(f"Nodes searched: {sum(counts.values())}")
        self.output.debug_message(f"perft took {time.perf_counter() - started:.3f} s")

    def _stop(self, args: list[str]) -> None:
        self._order.control("stop", self._stop_engine)

    def _stop_engine(self) -> None:
        if self.engine is not None:
            self.engine.stop()

    def _ponderhit(self, args: list[str]) -> None:
        if self.engine is not None:
            self._order.control("ponderhit", self.engine.ponderhit)

    def _quit(self, args: list[str]) -> bool:
        self._order.quit(self._stop_engine)
        if self.engine is not None:
            self.engine.wait(5.0)  # the stopped search's bestmove goes out first
        return False

    def _d(self, args: list[str]) -> None:
        from jitfish.engine.report import describe

        self._send_lines(describe(self.wait_engine().game.board))

    def _eval(self, args: list[str]) -> None:
        engine = self.wait_engine()
        self._loader.announce_first_use("eval")
        self._send_lines(engine.eval_report())

    def _genfens(self, args: list[str]) -> None:
        from jitfish.engine.genfens import genfens

        try:
            genfens(self.wait_engine(), args, self.output.send)
        except ValueError as error:
            self.output.error(f"genfens: {error}")

    def _bench(self, args: list[str]) -> None:
        depth = parse_depth(args, "bench", MAX_BENCH_DEPTH, optional=True)
        self._send_lines(self.wait_engine().bench(depth))

    def _send_lines(self, text: str) -> None:
        for line in text.splitlines():
            self.output.send(line)

    _COMMANDS = {
        "uci": _uci,
        "debug": _debug,
        "isready": _isready,
        "setoption": _setoption,
        "register": _register,
        "ucinewgame": _ucinewgame,
        "position": _position,
        "go": _go,
        "stop": _stop,
        "ponderhit": _ponderhit,
        "quit": _quit,
        "d": _d,
        "eval": _eval,
        "bench": _bench,
        "genfens": _genfens,
    }
