"""``Engine``: the facade between a protocol and the chess code; it coordinates and holds no chess rules.

It owns the game (:mod:`jitfish.engine.game`), the searcher, the book, the network and the option values
(:class:`jitfish.engine.options.Settings`); the options are declared in :mod:`jitfish.engine.options`, and
what each does beyond storing its value is bound here, to the method that acts on it (``set_hash``,
``load_network``, ``set_syzygy_path``, ...: :meth:`Engine._bind_actions`).  The network has one owner,
:attr:`Engine.network` (the one loaded, whether searched with or not): ``Use NNUE`` says whether the searcher
is handed it.  Each ``go`` gets a
:class:`~jitfish.search.timeman.TimeController`, the one owner of its clock, and runs as a
:class:`~jitfish.engine.turn.Turn` in a thread of its own, so that ``stop``, ``ponderhit`` and ``isready`` are
answered at any moment.  Results go back through :class:`~jitfish.engine.turn.EngineCallbacks`; report text is
:mod:`jitfish.engine.report`'s.  The engine layer never imports the protocol layer (:mod:`jitfish.uci`).
"""

from __future__ import annotations

import functools
import os
import random
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jitfish.engine.game import Game
from jitfish.engine.options import Settings, option_named, search_param_options
from jitfish.engine.turn import EngineCallbacks, GoParams, Turn
from jitfish.search import Searcher
from jitfish.search.timeman import TimeController

if TYPE_CHECKING:
    import subprocess

    from jitfish.board.board import Board
    from jitfish.engine.book import Book
    from jitfish.nnue.inference import KernelNetwork

BOOK_SEED = 0x5EED  # the book's and Skill Level's random picks restart from it at each new game
RAISE_SEARCH_ERRORS = "JITFISH_RAISE_SEARCH_ERRORS"  # set by the tests: a crashed search re-raises after its move


class Engine:
    """The game, searcher, book and options behind the calls a protocol makes.

    Called from one thread at a time (the protocol's reader, or its worker for commands
    held until a search ends), except :meth:`stop`, :meth:`ponderhit` and
    :meth:`is_searching`, which are safe while the search thread runs.
    """

    def __init__(self, callbacks: EngineCallbacks | None = None) -> None:
        self.callbacks = callbacks or EngineCallbacks()
        self.settings = Settings()
        self.searcher = Searcher(hash_mb=self.settings.hash_mb, threads=self.settings.threads)
        self.game = Game()
        self.book: Book | None = None  # set by BookFile
        self.network: KernelNetwork | None = None  # the network loaded (EvalFile); searched with if Use NNUE
        self._rng = random.Random(BOOK_SEED)
        self._thread: threading.Thread | None = None
        self._searching = False
        self._go: GoParams | None = None
        self._timer = TimeController()  # the clock of the current (or last) go
        self._actions = self._bind_actions()
        if self.settings.use_nnue:  # the default: the shipped network, loaded quietly (nothing before readyok)
            self.network = _read_network(self.settings.eval_file)
            self._hand_network_to_searcher()

    def warm_up(self, helper: subprocess.Popen[bytes] | None = None) -> None:
        """Load (or compile) the search kernels, so that the first ``go`` is fast; ``helper``: a cold-start
        helper process started before the engine was built (:func:`jitfish.runtime.compile.start_helper`)."""
        from jitfish.runtime.compile import warm_search

        warm_search(started=helper)

    def _bind_actions(self) -> dict[str, Callable[[Any], None]]:
        """What each option does beyond storing its value, by its UCI name, called with the typed value (None
        for a button); an option not named here is a value the next ``go`` reads from :attr:`settings`.
        ``--tune``'s search parameters set the searcher's parameter of their name."""
        return {
            "Threads": self.set_threads,
            "Hash": self.set_hash,
            "Clear Hash": lambda _: self.clear_hash(),
            "UCI_Chess960": self.set_chess960,
            "BookFile": self.set_book,
            "EvalFile": self.load_network,
            "Use NNUE": self.set_use_nnue,
            "SyzygyPath": self.set_syzygy_path,
            "SyzygyProbeDepth": lambda _: self.probe_as_set(),
            "Syzygy50MoveRule": lambda _: self.probe_as_set(),
            "SyzygyProbeLimit": lambda _: self.probe_as_set(),
            **{spec.name: functools.partial(self.searcher.set_param, spec.name) for spec in search_param_options()},
        }

    def set_option(self, name: str, value: Any) -> None:
        """Set an option of :data:`jitfish.engine.options.OPTIONS` by its UCI name, or in ``--tune`` mode a
        search parameter: :attr:`settings` stores the value, then the option's action acts on it (the one
        way an option takes effect); ``ValueError`` or ``OSError`` put the old value back."""
        spec = option_named(name)
        action = self._actions.get(spec.name)
        if spec.key is None:
            if action is not None:
                action(value)
            return
        old = getattr(self.settings, spec.key)
        setattr(self.settings, spec.key, value)
        try:
            if action is not None:
                action(value)
        except (ValueError, OSError):
            setattr(self.settings, spec.key, old)
            raise

    # --- what the options do beyond storing their value (bound to them by _bind_actions) ----------------------
    def set_threads(self, threads: int) -> None:
        self.searcher.set_threads(threads)

    def set_hash(self, hash_mb: int) -> None:
        self.searcher.resize(hash_mb)

    def clear_hash(self) -> None:
        self.searcher.clear()

    def set_chess960(self, enabled: bool) -> None:
        self.game.set_chess960(enabled)

    def set_book(self, path: str) -> None:
        """Play from the Polyglot book of ``path`` (empty: none) when ``OwnBook`` is on."""
        from jitfish.engine.book import Book

        self.book = None
        if path:
            self.book = Book(path)  # OSError / ValueError reach the protocol
            self.callbacks.on_message(f"book {path}: {len(self.book)} entries")

    def load_network(self, path: str) -> None:
        """Load the network of ``path`` (empty: the one shipped in the package), searched with while
        ``Use NNUE`` is on; ``OSError``/``ValueError`` keep the one loaded."""
        from jitfish.nnue.format import SHIPPED_NETWORK, network_shape

        network = _read_network(path)
        self.network = network
        self.callbacks.on_message(
            f"network {path or SHIPPED_NETWORK}: {network_shape(network.hidden, network.buckets)}"
        )
        self._hand_network_to_searcher()

    def set_use_nnue(self, enabled: bool) -> None:
        """Search with the network of ``EvalFile`` (loaded now if it is not yet), or the hand-written
        evaluation."""
        if enabled and self.network is None:
            self.load_network(self.settings.eval_file)
        self._hand_network_to_searcher()

    def _hand_network_to_searcher(self) -> None:
        """The searcher evaluates with :attr:`network` while ``Use NNUE`` is on, else by hand."""
        self.searcher.set_network(self.network if self.settings.use_nnue else None)

    def set_syzygy_path(self, text: str) -> None:
        """Probe the Syzygy tables of ``text``'s folders (``os.pathsep``-separated; empty: none).  Folders
        that do not exist or hold no tables, and files that are not tables, are reported; the tables found
        are used.  With no table found the search stays the one without tables (lichess-bot's default
        ``./syzygy/`` usually does not exist); with tables, the search that probes them is compiled (or
        loaded) now, before the ``readyok`` that follows, never inside a timed search."""
        from jitfish.syzygy import Tablebase, split_paths

        found = Tablebase(text) if split_paths(text) else None
        tablebase = found if found is not None and (found.wdl_count or found.dtz_count) else None
        if tablebase is not None:
            from jitfish.runtime.compile import FIRST_USE_SECONDS, is_cached, warm_tablebases

            if not is_cached("tablebases"):
                self.callbacks.on_message(
                    f"compiling the search with tables (first use only, about {FIRST_USE_SECONDS['tablebases']} s)"
                )
            warm_tablebases(tablebase)
        previous = self.searcher.tablebase
        self.searcher.set_tablebase(tablebase, *self._probe_settings())
        if previous is not None:
            previous.close()
        if found is None:
            return
        for problem in found.problems:
            self.callbacks.on_message(f"error: {problem}")
        if tablebase is None:
            found.close()
            self.callbacks.on_message("Syzygy: no tables found; the search goes on without tables")
        else:
            self.callbacks.on_message(found.summary())

    def probe_as_set(self) -> None:
        """``SyzygyProbeLimit``, ``SyzygyProbeDepth``, ``Syzygy50MoveRule``: probe the tables as the options
        now say from the next search on."""
        self.searcher.set_tablebase(self.searcher.tablebase, *self._probe_settings())

    def _probe_settings(self) -> tuple[int, int, bool]:
        """The probe options, in the order :meth:`jitfish.search.Searcher.set_tablebase` takes them."""
        settings = self.settings
        return settings.syzygy_probe_limit, settings.syzygy_probe_depth, settings.syzygy_50_move_rule

    def new_game(self) -> None:
        """``ucinewgame``: forget the table and histories."""
        self.searcher.clear()
        self._rng = random.Random(BOOK_SEED)

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """``position``: see :meth:`jitfish.engine.game.Game.set_position`."""
        self.game.set_position(fen, moves)

    def is_searching(self) -> bool:
        """``True`` from ``go`` until just before ``bestmove`` is reported."""
        return self._searching

    def go(self, params: GoParams, stopped: bool = False) -> None:
        """Start a search in a thread; the best move arrives through ``on_bestmove``.  ``stopped``: the
        search starts with its ``stop`` already received, and plays the move of its first iteration."""
        if self.is_searching():
            raise RuntimeError("a search is already running")
        board = self.game.board.copy()
        self._timer = params.timer(board.turn, self.settings.move_overhead_ms, self.searcher.params)
        if stopped:
            self._timer.stop()
        self._go = params
        self._searching = True
        turn = Turn(self.searcher, self.settings, self.book, self._rng, self.callbacks, self._timer)
        self._thread = threading.Thread(
            target=self._search_thread, args=(turn, board, params), name="jitfish-search", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """End the running search (or release a finished ponder/infinite one)."""
        self._timer.stop()

    def ponderhit(self) -> None:
        """The opponent played the pondered move: the search becomes a timed one."""
        if self._go is None or not self._go.ponder:
            return
        limits = self._timer.ponderhit()
        if limits is not None:
            self.callbacks.on_debug(f"ponderhit: soft {limits.soft:.3f} s hard {limits.hard:.3f} s")

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the search thread; ``True`` when it has ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _search_thread(self, turn: Turn, board: Board, params: GoParams) -> None:
        failure = None
        try:
            best, ponder = turn.think(board, params)
        except Exception as error:  # never leave a GUI waiting without a move
            self.callbacks.on_message(f"error: search failed: {type(error).__name__}: {error}")
            legal = board.legal_moves()
            best, ponder, failure = (legal[0] if legal else "0000"), None, error
            turn.timer.wait_released()
        # Idle before the GUI can read bestmove and send its next command.
        self._searching = False
        self.callbacks.on_bestmove(best, ponder)
        if failure is not None and os.environ.get(RAISE_SEARCH_ERRORS):
            raise failure

    def perft(self, depth: int) -> dict[str, int]:
        """``go perft``: leaf counts below each root move."""
        from jitfish.board.perft import divide_position

        return divide_position(self.game.board.position, depth) if depth >= 1 else {}

    def eval_report(self) -> str:
        """``eval``: the terms and score of the current position (:func:`jitfish.engine.report.eval_report`)."""
        from jitfish.engine.report import eval_report

        return eval_report(self.game.board, self.network, self.settings.use_nnue)

    def bench(self, depth: int | None = None) -> str:
        """``bench``: the bench positions searched to a fixed depth (a fresh table, one thread)."""
        from jitfish.search.bench import BENCH_DEPTH, bench_report, run_bench

        return bench_report(*run_bench(depth or BENCH_DEPTH, quiet=True))


def _read_network(path: str) -> KernelNetwork:
    """The network of ``path`` (empty: the one shipped in the package), in the search's arrays."""
    from jitfish.nnue.format import SHIPPED_NETWORK, read_network
    from jitfish.nnue.inference import kernel_network

    return kernel_network(read_network(path or SHIPPED_NETWORK))
