"""Loading the engine in the background, so that ``uci`` is answered at once.

The protocol imports nothing heavy; :class:`EngineLoader` imports the engine
(and Numba with it) and warms up its search in a thread of its own.  Commands
that need the engine wait for it (:meth:`EngineLoader.wait`); ``isready``
answers ``readyok`` once it has finished.

The loader loads the search's kernels and nothing else, and nothing loads in
the background after ``readyok``: a kernel loading (let alone compiling)
holds the GIL, so a search started meanwhile could not stop in time.  A warm
start that compiled the ``eval`` report's kernels after ``readyok`` made a
game's second move take 3.9 s against a hard limit of 0.7 s, and lost a
clocked game on time.  ``eval`` and ``go perft`` load their kernels when
first asked, and say so when that means compiling; an option that needs
other kernels (``SyzygyPath``) loads them when it is set, before the
``readyok`` that follows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from jitfish.uci.output import Output, short

if TYPE_CHECKING:
    from jitfish.engine.engine import Engine
    from jitfish.engine.turn import EngineCallbacks
    from jitfish.runtime.compile import CompileCounter

# A warm start compiling for longer than this says so, and again every LOAD_PROGRESS_SECONDS.
SLOW_LOAD_SECONDS = 5.0
LOAD_PROGRESS_SECONDS = 15.0


def is_cached(group: str) -> bool:
    """Whether a kernel group of :mod:`jitfish.runtime.compile` loads from the cache (compiles nothing)."""
    from jitfish.runtime.compile import is_cached

    return is_cached(group)


class EngineLoader:
    """Builds the engine once, in the background.

    ``callbacks()`` makes the engine's callbacks (called in the loading thread,
    which imports the engine module); ``factory`` builds the engine from them
    (by default the real :class:`~jitfish.engine.engine.Engine`); ``ready(engine)``
    runs once the kernels are loaded, before any command may use the engine
    (the protocol applies the options set meanwhile), under :attr:`lock`.
    """

    def __init__(
        self,
        output: Output,
        callbacks: Callable[[], EngineCallbacks],
        ready: Callable[[Engine], None],
        factory: Callable[..., Engine] | None = None,
    ) -> None:
        self._output = output
        self._callbacks = callbacks
        self._ready = ready
        self._factory = factory
        self.engine: Engine | None = None
        self.lock = threading.Lock()  # held while the engine is published: ``engine`` read under it is final
        self._loaded = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Import, build and warm up the engine in a background thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._load, name="jitfish-loader", daemon=True)
            self._thread.start()

    def wait(self) -> Engine:
        """The loaded engine (waiting for the loader); ``RuntimeError`` if loading failed."""
        self.start()
        self._loaded.wait()
        if self.engine is None:
            raise RuntimeError(f"the engine is not loaded ({short(self._error)})")
        return self.engine

    def wait_loaded(self) -> None:
        """Wait until loading has ended, loaded or failed."""
        self.start()
        self._loaded.wait()

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            from jitfish.runtime.compile import COLD_START_SECONDS, CompileCounter, start_helper

            counter = CompileCounter()
            cold = not is_cached("search")
            if cold:
                self._output.message(f"compiling the search kernels (first start only, about {COLD_START_SECONDS} s)")
            else:  # a cache Numba rejects (e.g. another Numba version) also compiles: say so if it is slow
                threading.Thread(
                    target=self._report_slow_load, args=(started, counter), name="jitfish-load-progress", daemon=True
                ).start()
            from jitfish.engine.engine import Engine

            callbacks = self._callbacks()
            helper = start_helper() if cold else None  # before the engine's board builds the lookup tables
            engine = (self._factory or Engine)(callbacks)
            with counter:
                engine.warm_up(helper)
            with self.lock:  # no setoption slips between the two steps
                self._ready(engine)
                self.engine = engine
            if not cold and counter.started:
                self._output.message(f"kernels compiled and cached in {time.perf_counter() - started:.1f} s")
        except BaseException as error:  # reported at the next command that needs the engine
            self._error = error
            self._output.error(f"the engine failed to load: {short(error)}")
        finally:
            self._loaded.set()

    def _report_slow_load(self, started: float, counter: CompileCounter) -> None:
        """Say why ``readyok`` is late when kernels compile (a stale cache); a slow machine alone is not news."""
        if self._loaded.wait(SLOW_LOAD_SECONDS):
            return
        while not counter.started:
            if self._loaded.wait(1.0):
                return
        self._output.message(
            "kernels are compiling (first start after an install or a source change); "
            "readyok follows when they are cached"
        )
        while not self._loaded.wait(LOAD_PROGRESS_SECONDS):
            self._output.message(f"still compiling kernels: {time.perf_counter() - started:.0f} s so far")

    def announce_first_use(self, group: str) -> None:
        """Say that a rare command's kernel group (``eval``, ``perft``) compiles now, when it is not cached."""
        from jitfish.runtime.compile import FIRST_USE_SECONDS

        if not is_cached(group):
            self._output.message(f"compiling the {group} kernels (first use only, about {FIRST_USE_SECONDS[group]} s)")
