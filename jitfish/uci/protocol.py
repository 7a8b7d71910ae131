"""The UCI protocol: input lines become :class:`~jitfish.engine.Engine` calls, results become lines.

This module holds no chess logic and imports nothing heavy at load time: the
engine (and Numba with it) is imported and warmed up in a background thread
started by :meth:`UciProtocol.start_loading`, so ``uci`` is answered at once.
Commands that need the engine wait for that thread; ``isready`` answers
``readyok`` as soon as it has finished.

That thread loads the search's kernels and nothing else, and nothing loads
in the background after ``readyok``: a kernel loading (let alone compiling)
holds the GIL, so a search started meanwhile could not stop in time.  A warm
start that compiled the ``eval`` report's kernels after ``readyok`` made a
game's second move take 3.9 s against a hard limit of 0.7 s, and lost a
clocked game on time.  ``eval`` and ``go perft`` load their kernels when
first asked, and say so when that means compiling.

Bad input never stops the loop: it is answered with ``info string error: ...``
and the engine stays as it was (or as the protocol says, e.g. a ``position``
with a bad move keeps the moves before it).

No command is dropped for arriving early.  A GUI may write ``stop``,
``position`` and ``go`` in one burst (Polyglot does on a ponder miss), so the
``go`` arrives while the stopped search is still winding down.  Commands fall
in three kinds:

- *at once*, in the reading thread: ``uci``, ``debug``, ``isready``,
  ``register`` and ``quit``.  ``isready`` waits for the commands before it
  unless a search is running (then it is answered at once, as GUIs expect);
  ``quit`` stops the search, waits for its ``bestmove`` and drops what is held.
- *search control*: ``stop`` and ``ponderhit`` belong to the search of the
  last ``go`` before them.  They act at once, unless that ``go`` is still
  held: then they are held too, and act as soon as its search has started.
  One exception keeps a GUI's slip from hanging the engine: a ``stop`` ends a
  ``go infinite``/``go ponder`` search that still waits for one even when a
  ``go`` is held, since nothing else would end it.
- *everything else* needs an idle engine.  While a search runs (until its
  ``bestmove`` is sent) or commands are held, it is held, and the held
  commands run in order in a worker thread.  A ``go`` never ends the search
  before it: behind a ponder or infinite search it waits until ``stop``
  comes (Stockfish's ``go`` also waits for the running search).

Commands run in one thread at a time: the reading thread runs them directly
only when nothing is held, no search runs and the worker is idle.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Callable

from jitfish._version import __version__
from jitfish.uci.options import OptionError, OptionTable, default_options, parse_setoption, search_param_options

if TYPE_CHECKING:
    from jitfish.engine import Engine, GoParams
    from jitfish.search import SearchInfo

ENGINE_NAME = f"Jitfish {__version__}"
ENGINE_AUTHOR = "the Jitfish developers"
# Longest accepted input line: a game of MAX_GAME_PLY moves fits many times over.
MAX_LINE_CHARS = 1 << 20
# A warm start compiling for longer than this says so, and again every LOAD_PROGRESS_SECONDS.
SLOW_LOAD_SECONDS = 5.0
LOAD_PROGRESS_SECONDS = 15.0
# go parameters followed by an integer, and those that stand alone.
GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "mate", "movetime")
GO_FLAGS = ("infinite", "ponder")
GO_KEYWORDS = GO_INT_PARAMS + GO_FLAGS + ("searchmoves", "perft")
# Values that must be positive (clocks may be zero or negative: some GUIs overdraw them).
GO_POSITIVE = ("movestogo", "depth", "nodes", "mate", "movetime")
# Commands answered at once in the reading thread, and those that act on the running search.
AT_ONCE = ("uci", "debug", "isready", "register", "quit")
SEARCH_CONTROL = ("stop", "ponderhit")


def _short(error: BaseException | None, limit: int = 200) -> str:
    """One line of an exception, for an ``info string``."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(error).__name__}: {error}")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _starts_search(command: str, args: list[str]) -> bool:
    """Whether a command starts a search (``go perft`` counts moves instead)."""
    return command == "go" and args[:1] != ["perft"]


def _is_cached(group: str) -> bool:
    """Whether a kernel group of :mod:`jitfish.compile` loads from the cache (compiles nothing)."""
    from jitfish.compile import is_cached

    return is_cached(group)


class UciProtocol:
    """One UCI session: call :meth:`handle` with each input line.

    ``send`` writes one line (the caller serialises and flushes).
    ``engine_factory`` builds the engine from its callbacks; by default the
    real :class:`~jitfish.engine.Engine`.  ``tune`` (``jitfish --tune``) adds
    the search parameters as options, for tuners such as ``tuning.spsa``.
    """

    def __init__(self, send: Callable[[str], None],
                 engine_factory: Callable[..., "Engine"] | None = None, tune: bool = False) -> None:
        self._send = send
        self._engine_factory = engine_factory
        self.options = OptionTable(default_options() + (search_param_options() if tune else []))
        self.debug = False
        self.engine: Engine | None = None
        self._loaded = threading.Event()
        self._load_error: BaseException | None = None
        self._loader: threading.Thread | None = None
        self._held: list[str] | None = []  # messages held until the first command is answered
        self._held_lock = threading.Lock()
        self._options_lock = threading.Lock()
        # The order of commands (see the module docstring), all guarded by one condition.
        self._order = threading.Condition()
        self._pending: deque[tuple[str, list[str]]] = deque()  # commands held, oldest first
        self._in_flight: tuple[str, list[str]] | None = None    # the held command the worker runs
        self._searching = False         # from starting a search until its bestmove is sent
        self._answering = False         # the search's bestmove is being sent: isready waits for held commands
        self._releasers: tuple[str, ...] = ()  # what the running search waits for before it may end
        self._quitting = False
        self._worker: threading.Thread | None = None

    # --- output -------------------------------------------------------------
    def send(self, line: str) -> None:
        self._send(line)

    def message(self, text: str) -> None:
        """An ``info string`` line, held back until the GUI has spoken first."""
        with self._held_lock:
            if self._held is not None:
                self._held.append(text)
                return
        for line in text.splitlines() or [""]:
            self.send(f"info string {line}")

    def error(self, text: str) -> None:
        self.message(f"error: {text}")

    def debug_message(self, text: str) -> None:
        if self.debug:
            self.message(text)

    def _release_held(self) -> None:
        with self._held_lock:
            held, self._held = self._held, None
        for text in held or []:
            self.message(text)

    def on_currmove(self, depth: int, move: str, number: int) -> None:
        self.send(f"info depth {depth} currmove {move} currmovenumber {number}")

    def on_info(self, info: "SearchInfo") -> None:
        parts = [f"info depth {info.depth} seldepth {info.seldepth} multipv {info.multipv}"]
        if info.score_mate is not None:
            parts.append(f"score mate {info.score_mate}")
        else:
            parts.append(f"score cp {info.score_cp if info.score_cp is not None else 0}")
        if info.bound:
            parts.append(info.bound)
        if self.options.value("UCI_ShowWDL"):
            from jitfish.wdl import win_draw_loss

            win, draw, loss = win_draw_loss(info.score_cp, info.score_mate, self.engine.game.board)
            parts.append(f"wdl {win} {draw} {loss}")
        parts.append(f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} "
                     f"time {int(info.time * 1000)}")
        if info.tbhits is not None:
            parts.append(f"tbhits {info.tbhits}")
        if info.pv:
            parts.append("pv " + " ".join(info.pv))
        self.send(" ".join(parts))

    def on_bestmove(self, best: str, ponder: str | None) -> None:
        # The search counts as running until this line is out, so no held command runs before it; the
        # line is written outside the lock, so a GUI slow to read it holds up no command that may go at once.
        # A GUI may answer it at once (setoption, isready): from here on isready waits for what it sent.
        with self._order:
            self._answering = True
        self.send(f"bestmove {best} ponder {ponder}" if ponder else f"bestmove {best}")
        with self._order:
            self._searching = self._answering = False
            self._releasers = ()
            self._order.notify_all()

    # --- loading ------------------------------------------------------------
    def start_loading(self) -> None:
        """Import, build and warm up the engine in a background thread."""
        if self._loader is None:
            self._loader = threading.Thread(target=self._load, name="jitfish-loader", daemon=True)
            self._loader.start()

    def _load(self) -> None:
        started = time.perf_counter()
        cold = True
        try:
            from jitfish.compile import COLD_START_SECONDS, CompileCounter, start_helper

            counter = CompileCounter()
            cold = not _is_cached("search")
            if cold:
                self.message(f"compiling the search kernels (first start only, about {COLD_START_SECONDS} s)")
            else:  # a cache Numba rejects (e.g. another Numba version) also compiles: say so if it is slow
                threading.Thread(target=self._report_slow_load, args=(started, counter),
                                 name="jitfish-load-progress", daemon=True).start()
            from jitfish.engine import Engine, EngineCallbacks

            callbacks = EngineCallbacks(on_info=self.on_info, on_currmove=self.on_currmove,
                                        on_bestmove=self.on_bestmove, on_message=self.message,
                                        on_debug=self.debug_message)
            factory = self._engine_factory or Engine
            helper = start_helper() if cold else None  # before the engine's board builds the lookup tables
            engine = factory(callbacks)
            with counter:
                engine.warm_up(helper)
            with self._options_lock:  # no setoption slips between these two steps
                for option in self.options:  # values set while loading
                    if option.value != option.default and option.setter is not None:
                        self._apply(engine, option)
                self.engine = engine
            if not cold and counter.started:
                self.message(f"kernels compiled and cached in {time.perf_counter() - started:.1f} s")
        except BaseException as error:  # reported at the next command that needs the engine
            self._load_error = error
            self.error(f"the engine failed to load: {_short(error)}")
        finally:
            self._loaded.set()

    def _report_slow_load(self, started: float, counter) -> None:
        """Say why ``readyok`` is late when kernels compile (a stale cache); a slow machine alone is not news."""
        if self._loaded.wait(SLOW_LOAD_SECONDS):
            return
        while not counter.started:
            if self._loaded.wait(1.0):
                return
        self.message("kernels are compiling (first start after an install or a source change); "
                     "readyok follows when they are cached")
        while not self._loaded.wait(LOAD_PROGRESS_SECONDS):
            self.message(f"still compiling kernels: {time.perf_counter() - started:.0f} s so far")

    def wait_engine(self) -> "Engine":
        """The loaded engine (waiting for the loader); ``RuntimeError`` if loading failed."""
        self.start_loading()
        self._loaded.wait()
        if self.engine is None:
            raise RuntimeError(f"the engine is not loaded ({_short(self._load_error)})")
        return self.engine

    # --- dispatch -----------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Process one input line; ``False`` after ``quit``."""
        try:
            return self._dispatch(line)
        finally:
            if self._held is not None:
                self._release_held()

    def _dispatch(self, line: str) -> bool:
        if len(line) > MAX_LINE_CHARS:
            self.error(f"line of {len(line)} characters ignored (at most {MAX_LINE_CHARS})")
            return True
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        handler = self._COMMANDS.get(command)
        if handler is None:
            shown = command if len(command) <= 40 else command[:40] + "..."
            self.error(f"unknown command '{shown}'")
            return True
        if command not in AT_ONCE and self._hold(command, args):
            return True
        return self._run(command, args)

    def _run(self, command: str, args: list[str]) -> bool:
        try:
            return self._COMMANDS[command](self, args) is not False
        except Exception as error:  # a bug must not end the session
            self.error(f"{command}: {_short(error)}")
            return True

    def wait_until_done(self) -> None:
        """Wait until the commands handled so far have run and no search runs, except one that waits for
        ``stop`` (for commands given as arguments, :func:`jitfish.uci.main.run`)."""
        with self._order:
            self._order.wait_for(lambda: self._quitting or not (self._pending or self._in_flight or (
                self._searching and not self._releasers)))

    # --- holding commands ---------------------------------------------------
    def _hold(self, command: str, args: list[str]) -> bool:
        """Queue ``command`` if it must wait (the rules are in the module docstring); ``False``: run it now."""
        with self._order:
            if command in SEARCH_CONTROL:
                wait = self._go_waiting()
                if wait and command == "stop" and "stop" in self._releasers:
                    # The running search waits for a stop: unless one is held for it, this one ends it.
                    wait = self._next_control(self._releasers) is not None
            else:
                wait = self._searching or self._in_flight is not None or bool(self._pending)
            if wait:
                self._pending.append((command, args))
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="jitfish-held-commands", daemon=True)
                    self._worker.start()
                self._order.notify_all()
            return wait

    def _go_waiting(self) -> bool:
        """Whether a held ``go`` has yet to start its search."""
        held = list(self._pending) + ([self._in_flight] if self._in_flight is not None else [])
        return any(_starts_search(command, args) for command, args in held)

    def _next_control(self, commands: tuple[str, ...] = SEARCH_CONTROL) -> int | None:
        """The place in the queue of the first held command of ``commands`` that belongs to the running
        search: one held before any ``go``, since a ``go`` starts the search the later ones belong to."""
        for index, (command, args) in enumerate(self._pending):
            if _starts_search(command, args):
                return None
            if command in commands:
                return index
        return None

    def _work(self) -> None:
        """The worker: run the held commands in order, each once no search is running.  While one runs,
        a ``stop`` or ``ponderhit`` held for it goes at once, ahead of the commands that wait for it to end
        (they start no search, so the ``stop`` still meets the search it was sent for)."""
        while True:
            with self._order:
                self._order.wait_for(lambda: self._quitting or (self._pending and not self._searching)
                                     or (self._searching and self._next_control() is not None))
                if self._quitting:
                    return
                index = self._next_control() if self._searching else 0
                command, args = self._in_flight = self._pending[index]
                del self._pending[index]
            try:
                self._run(command, args)
            finally:
                with self._order:
                    self._in_flight = None
                    self._order.notify_all()

    # --- commands -----------------------------------------------------------
    def _uci(self, args: list[str]) -> None:
        self.send(f"id name {ENGINE_NAME}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in self.options:
            self.send(option.uci_line())
        self.send("uciok")

    def _debug(self, args: list[str]) -> None:
        if args and args[0] in ("on", "off"):
            self.debug = args[0] == "on"
        else:
            self.error("debug takes 'on' or 'off'")

    def _isready(self, args: list[str]) -> None:
        self.start_loading()
        self._loaded.wait()
        with self._order:  # the commands before it have run, or wait behind a running search
            self._order.wait_for(lambda: (self._searching and not self._answering) or self._quitting
                                 or not (self._pending or self._in_flight))
        self.send("readyok")

    def _register(self, args: list[str]) -> None:
        self.message("Jitfish is free software: no registration needed")

    def _setoption(self, args: list[str]) -> None:
        with self._options_lock:
            try:
                name, value = parse_setoption(args)
                option = self.options.get(name)
                if option is None:
                    raise OptionError(f"unknown option '{name}'")
                old = option.value
                self.options.set(name, value)
            except OptionError as error:
                self.error(str(error))
                return
            if self.engine is not None and option.setter is not None:
                if not self._apply(self.engine, option):
                    option.value = old

    def _apply(self, engine: "Engine", option) -> bool:
        try:
            option.setter(engine, option.value)
        except (OSError, ValueError, MemoryError) as error:
            self.error(f"option '{option.name}': {error}")
            return False
        return True

    def _ucinewgame(self, args: list[str]) -> None:
        self.wait_engine().new_game()

    def _position(self, args: list[str]) -> None:
        engine = self.wait_engine()
        if not args:
            self.error("position needs 'startpos' or 'fen <fen>'")
            return
        try:
            split = args.index("moves")
        except ValueError:
            split = len(args)
        head, moves = args[:split], args[split + 1:]
        if head[0] == "startpos" and len(head) == 1:
            fen = None
        elif head[0] == "fen" and len(head) > 1:
            fen = " ".join(head[1:])
        else:
            self.error("position needs 'startpos' or 'fen <fen>' before 'moves'")
            return
        try:
            engine.set_position(fen, moves)
        except ValueError as error:
            self.error(f"position: {error}")

    def _go(self, args: list[str]) -> None:
        engine = self.wait_engine()
        from jitfish.engine import GoParams

        params = GoParams()
        if args and args[0] == "perft":
            self._perft(engine, args[1:])
            return
        self._parse_go(args, params)
        if not engine.game.has_position:
            self.error("go before position: searching the start position")
            engine.set_position(None, [])
        with self._order:  # quit cannot come between the check and the start
            if self._quitting:
                return
            self._releasers = ("stop", "ponderhit") if params.ponder else ("stop",) if params.infinite else ()
            self._searching = True  # before the search can end and send its bestmove
            try:
                engine.go(params)
            except BaseException:
                self._searching, self._releasers = False, ()
                raise
            self._order.notify_all()

    def _parse_go(self, args: list[str], params: "GoParams") -> None:
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
                    self.error(f"go: '{token}' needs a number")
                    continue
                text = args[index]
                index += 1
                try:
                    value = int(text)
                except ValueError:
                    self.error(f"go: '{token}' needs an integer, got '{text[:40]}'; ignored")
                    if text in GO_KEYWORDS:
                        index -= 1
                    continue
                if token in GO_POSITIVE and value <= 0:
                    self.error(f"go: '{token} {value}' is out of range; ignored")
                    continue
                setattr(params, token, value)
            else:
                self.error(f"go: unknown parameter '{token[:40]}' ignored")

    def _perft(self, engine: "Engine", args: list[str]) -> None:
        if len(args) != 1 or not args[0].isdigit() or not 1 <= int(args[0]) <= 20:
            self.error("go perft needs a depth between 1 and 20")
            return
        self._announce_first_use("perft")
        started = time.perf_counter()
        counts = engine.perft(int(args[0]))
        for move, count in counts.items():
            self.send(f"{move}: {count}")
        self.send("")
        self.send(f"Nodes searched: {sum(counts.values())}")
        self.debug_message(f"perft took {time.perf_counter() - started:.3f} s")

    def _announce_first_use(self, group: str) -> None:
        """Say that a rare command's kernel group (``eval``, ``perft``) compiles now, when it is not in the cache."""
        from jitfish.compile import FIRST_USE_SECONDS

        if not _is_cached(group):
            self.message(f"compiling the {group} kernels (first use only, about {FIRST_USE_SECONDS[group]} s)")

    def _stop(self, args: list[str]) -> None:
        with self._order:
            self._releasers = ()
            if self.engine is not None:
                self.engine.stop()

    def _ponderhit(self, args: list[str]) -> None:
        with self._order:
            if "ponderhit" in self._releasers:
                self._releasers = ()
            if self.engine is not None:
                self.engine.ponderhit()

    def _quit(self, args: list[str]) -> bool:
        with self._order:  # nothing held runs after quit, and no search starts
            self._quitting = True
            self._pending.clear()
            self._order.notify_all()
            if self.engine is not None:
                self.engine.stop()
        if self.engine is not None:
            self.engine.wait(5.0)  # the stopped search's bestmove goes out first
        return False

    def _d(self, args: list[str]) -> None:
        from jitfish.report import describe

        for line in describe(self.wait_engine().game.board).splitlines():
            self.send(line)

    def _eval(self, args: list[str]) -> None:
        engine = self.wait_engine()
        self._announce_first_use("eval")
        for line in engine.eval_report().splitlines():
            self.send(line)

    def _genfens(self, args: list[str]) -> None:
        from jitfish.genfens import genfens

        try:
            genfens(self.wait_engine(), args, self.send)
        except ValueError as error:
            self.error(f"genfens: {error}")

    def _bench(self, args: list[str]) -> None:
        depth = None
        if args:
            if not args[0].isdigit() or not 1 <= int(args[0]) <= 64:
                self.error("bench takes an optional depth between 1 and 64")
                return
            depth = int(args[0])
        for line in self.wait_engine().bench(depth).splitlines():
            self.send(line)

    _COMMANDS = {
        "uci": _uci, "debug": _debug, "isready": _isready, "setoption": _setoption,
        "register": _register, "ucinewgame": _ucinewgame, "position": _position, "go": _go,
        "stop": _stop, "ponderhit": _ponderhit, "quit": _quit, "d": _d, "eval": _eval,
        "bench": _bench, "genfens": _genfens,
    }
