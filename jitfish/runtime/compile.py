"""Compile every kernel ahead of time, group by group, into the on-disk cache.

A cold start (first run after an install or a source change) compiles the
search before ``readyok``; ``jitfish compile`` pays that cost at install time
instead.  The groups are the entry points a session calls: each group's
warm-up calls its top kernel, which compiles (or loads) everything below it.

``is_cached`` answers, without compiling anything, whether a group would load
from the cache: its top kernel has a file there.

A cold search compile is one long chain on one core: Numba compiles each
callee when it first types a call to it.  :func:`warm_search` splits it with a
helper process on the other core.  The helper compiles the quiescence search,
and its largest callees (the kernels declared ``cold_start=HELPER``) into
the shared cache; this process meanwhile compiles the other callees quiescence
needs (``ENGINE_FIRST``, which the helper then loads), the lookup tables and
the root's evaluation, then the main search's own small callees
(``WHILE_WAITING``), then waits for the helper and types the main search,
which loads quiescence instead of compiling it.  Each kernel declares its
role where it is defined (:func:`jitfish.runtime.jit.kernel`); the types it is
compiled for are read off its parameter names (:func:`_argument_types`).  The helper runs at a lower priority
(``HELPER_NICENESS``), so that on a busy machine it takes only time no other
process wants; a helper that gets too little of a core is not waited for, and
whatever it has not saved this process compiles itself.

The search that probes Syzygy tables in its tree is compiled apart
(:mod:`jitfish.search.context` says why), when tables are first set
(:func:`warm_tablebases`), so a start without tables never pays for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jitfish.syzygy import Tablebase

# Numba names a cached overload ``<module>.<function>-<line>.py<ver>.nbi``, in a
# subfolder of the cache per source folder.  Each group's top kernel: when it is
# cached, so is everything it calls (Numba saves callees first).  The eval group is
# known by its tracing kernel, which only the report compiles: any ``evaluate()``
# call caches ``evaluate_white`` alone.
ENTRY_FILES = {
    "search": "negamax.negamax-*.nbi",
    "eval": "evaluation.trace_evaluation-*.nbi",
    "perft": "perft._perft_kernel-*.nbi",
    "tablebases": "probe.probe_batch-*.nbi",
}
# The helper's priority below this process (POSIX ``nice``).
HELPER_NICENESS = 10
# How this process waits for the helper before compiling the main search (see ``_await_helper``).
HELPER_CHECK_SECONDS = 0.1
HELPER_POLL_SECONDS = 2.0
HELPER_MIN_CPU_SHARE = 0.3
HELPER_MAX_WAIT_SECONDS = 30.0
# A position of 5 pieces (``warm_tablebases``): few enough that a 3-4-piece table is probed after a capture.
TABLEBASE_WARM_UP_FEN = "8/8/3k4/8/3r4/8/3R1P2/4K3 w - - 0 1"
# What a cold start costs before ``readyok``, said on such a start (measured: README, "Start-up").
COLD_START_SECONDS = 20
# What the first ``eval`` and ``go perft`` cost when their kernels are not cached (measured: ``jitfish compile``).
FIRST_USE_SECONDS = {"eval": 8, "perft": 20, "tablebases": 15}


def _argument_types() -> dict[str, object]:
    """The Numba type of each argument name the search's callees use, from stand-ins of the search's arrays.

    A kernel's signature is read off its parameter names: the arrays by their names in the search
    context (the move list a callee fills, ``moves`` or ``heuristics``, is the work array; ``tb``,
    ``scratch`` and ``settings`` are the parts of its ``syzygy`` field), a TT entry's data word
    (``data``) a uint64, every other scalar an int64.
    """
    import numba
    import numpy as np

    from jitfish.board.position import Position
    from jitfish.eval.params import default_weights
    from jitfish.search.buffers import new_stack
    from jitfish.search.context import new_context
    from jitfish.search.evalstack import network_arrays
    from jitfish.search.params import default_params
    from jitfish.search.tt import new_table
    from jitfish.syzygy import probe_arrays

    tables = np.empty(0, dtype=np.uint64)  # the type of lookup_tables(), without building them
    params = default_params().copy()  # writable, as the searcher's own copy (a read-only array is another type)
    ctx = new_context(
        Position(),
        tables,
        default_weights(),
        network_arrays(None),
        params,
        new_table(1),
        np.empty(0, dtype=np.int32),
        np.empty(0, dtype=np.int64),
        new_stack(),
    )
    typeof: Any = numba.typeof  # untyped in Numba
    types = {name: typeof(value) for name, value in ctx._asdict().items()}
    types.update(ctx=typeof(ctx), moves=types["work"], heuristics=types["work"], data=numba.uint64)
    types.update(zip(("tb", "scratch", "settings"), map(typeof, probe_arrays(None))))
    types.update(squares=types["scratch"])
    return types


def _registered(role: str) -> list[Any]:
    """The kernels declared with ``cold_start=role``, in the order they were defined."""
    import jitfish.search.negamax  # noqa: F401  (imports every module that defines a search callee)
    from jitfish.runtime.jit import COLD_START

    return COLD_START[role]


def _search_callee_signatures() -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """{name: (kernel, argument types)} of the kernels a cold start splits, typed as the search calls them."""
    import inspect

    import numba

    from jitfish.runtime.jit import COLD_START

    types = _argument_types()
    return {
        kernel.__name__: (
            kernel,
            tuple(types.get(name, numba.int64) for name in inspect.signature(kernel.py_func).parameters),
        )
        for role in COLD_START
        for kernel in _registered(role)
    }


def _split(role: str) -> tuple[str, ...]:
    """The names of one role's kernels, in the order they are compiled."""
    return tuple(kernel.__name__ for kernel in _registered(role))


def _helper_result_file() -> str:
    """The cache file name pattern of the helper's last kernel: once that file is there, its work is done."""
    from jitfish.runtime.jit import HELPER

    last = _registered(HELPER)[-1].py_func
    return f"{last.__module__.rpartition('.')[2]}.{last.__name__}-*.nbi"


def _compile_callees(*roles: str) -> None:
    """Compile (or load) the kernels of these roles of the split, each for the types the search calls it with."""
    signatures = _search_callee_signatures()
    for role in roles:
        for name in _split(role):
            kernel, signature = signatures[name]
            kernel.compile(signature)


def start_helper() -> subprocess.Popen[bytes] | None:
    """The cold-start helper (``python -m jitfish.runtime.compile``, on the same cache and package), started now
    if the search is not cached and there is a spare core, else None.

    Start it as early as possible (before building a ``Board``, which compiles the
    lookup tables on a cold start) and hand it to :func:`warm_search`.
    """
    if is_cached("search") or (os.cpu_count() or 1) < 2:
        return None
    package_parent = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")])))
    return subprocess.Popen(
        [sys.executable, "-m", "jitfish.runtime.compile"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _cpu_seconds(pid: int) -> float | None:
    """The CPU time process ``pid`` has used so far, where ``/proc`` tells (Linux), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _await_helper(helper: subprocess.Popen[bytes], cache_dir: Path | None = None) -> None:
    """Wait for the helper to finish while it is making progress.

    Its work is done when its last kernel is in the cache (:func:`_helper_result_file`;
    the process itself takes most of a second more to exit) or when it has exited.
    The helper gets a core to itself on an idle machine; on a busy one, at its
    lower priority, it may barely run, and this process is better off compiling
    the rest itself.  So the wait ends early when the helper has had less than
    ``HELPER_MIN_CPU_SHARE`` of a core over the last ``HELPER_POLL_SECONDS``, and
    in any case after ``HELPER_MAX_WAIT_SECONDS`` (the only limit where its CPU
    time cannot be read).
    """
    cache_dir = cache_dir or _kernel_cache()
    result_file = _helper_result_file()
    started = last_poll = time.monotonic()
    used = _cpu_seconds(helper.pid)
    while time.monotonic() - started < HELPER_MAX_WAIT_SECONDS:
        if helper.poll() is not None or any(cache_dir.rglob(result_file)):
            return
        time.sleep(HELPER_CHECK_SECONDS)
        if time.monotonic() - last_poll >= HELPER_POLL_SECONDS:
            now = _cpu_seconds(helper.pid)
            if used is not None and now is not None and now - used < HELPER_MIN_CPU_SHARE * HELPER_POLL_SECONDS:
                return
            used, last_poll = now, time.monotonic()


def _finish_with(helper: subprocess.Popen[bytes]) -> None:
    """What this process does once its first part of a cold start is done: the main search's own
    callees, then wait for the helper."""
    from jitfish.runtime.jit import WHILE_WAITING

    _compile_callees(WHILE_WAITING)
    _await_helper(helper)


def warm_up_search(before_search: Callable[[], None] | None = None) -> None:
    """Load (or compile) every kernel the search uses, with a small searcher of its own.

    ``before_search`` is called once the kernels the search calls from Python are
    ready (the lookup tables, the root move generator, the root's evaluation) and
    before the search's own kernels are: a cold start waits there for its helper
    process (:func:`warm_search`).
    """
    from jitfish.board.board import Board
    from jitfish.eval.params import default_weights
    from jitfish.search.params import default_params
    from jitfish.search.results import SearchLimits
    from jitfish.search.searcher import Searcher
    from jitfish.search.worker import SearchWorker

    board = Board("r3k2r/pp3ppp/8/3q4/8/8/PPP2PPP/R2QK2R w KQkq - 0 1")
    if before_search is not None:
        board.position.legal_moves()
        worker = SearchWorker(default_params(), None)
        worker.prepare(board.position, 0, 1, [])
        worker.evaluate_root(default_weights())
        before_search()
    searcher = Searcher(hash_mb=1)
    searcher.search(board, SearchLimits(depth=3))
    # A PV of one move (a depth-1 or early-stopped search) takes its ponder move from the table, through
    # kernels called from Python: load them now, not in the first such search.
    searcher.extend_pv(board.position, [int(board.position.legal_moves()[0])])


def warm_search(helper: bool = True, started: subprocess.Popen[bytes] | None = None) -> None:
    """Load (or compile) the search; on a cold cache with a spare core, with a helper process (see above).

    ``started``: the helper :func:`start_helper` already started (else one is started
    here if ``helper``).
    """
    from jitfish.runtime.jit import ENGINE_FIRST

    process = started or (start_helper() if helper else None)
    try:
        if process is not None:
            _compile_callees(ENGINE_FIRST)
        warm_up_search(before_search=None if process is None else lambda: _finish_with(process))
    finally:
        if process is not None and process.poll() is None:
            process.terminate()  # behind: its work is done here already (Numba writes cache files atomically)
            process.wait()


def warm_tablebases(tablebase: Tablebase | None = None) -> None:
    """Load (or compile) what Syzygy tables add to a search: negamax with tables in its context (the
    search without them has no prober), the batch prober and the decoder the root's ranking uses
    (python-chess's DTZ probe calls it).

    Their types do not depend on which tables are loaded, so ``tablebase`` (a
    :class:`jitfish.syzygy.Tablebase`) may be any, and without one an empty one serves.
    """
    import numba

    from jitfish.board.board import Board
    from jitfish.search import Searcher, SearchLimits
    from jitfish.syzygy import Tablebase
    from jitfish.syzygy.probe import decode_symbol

    tablebase = Tablebase(()) if tablebase is None else tablebase
    board = Board(TABLEBASE_WARM_UP_FEN)
    searcher = Searcher(hash_mb=1)
    searcher.set_tablebase(tablebase, 7, 1, True)
    searcher.search(board, SearchLimits(depth=3))
    tablebase.probe_wdl_many([board.position])
    # The root's DTZ ranking calls the decoder from Python (jitfish.syzygy.dtz): a search loaded from the
    # cache brings the decoder's machine code inside its own, not as a kernel Python can call.
    decode_symbol.compile((numba.int64[::1], numba.int64, numba.int64))


def _warm_eval() -> None:
    from jitfish.board.board import Board
    from jitfish.eval import evaluate, evaluate_terms

    board = Board()
    evaluate(board)
    evaluate_terms(board)


def _warm_board() -> None:
    from jitfish.board.board import Board

    for chess960 in (False, True):
        board = Board(chess960=chess960)
        board.push_uci("e2e4")
        board.legal_moves()
        board.is_check()
        board.fen()
        board.pop()


def _warm_perft() -> None:
    from jitfish.board.board import Board

    board = Board()
    board.perft(2)
    board.perft(2, bulk=False)
    board.perft_divide(2)


# (name, what it is for, warm-up).  The search comes first: UCI needs it before ``readyok``.
GROUPS: list[tuple[str, str, Callable[[], None]]] = [
    ("search", "the search, before readyok", warm_search),
    ("eval", "the evaluation report (UCI 'eval', jitfish.eval)", _warm_eval),
    ("board", "the Board API (moves, check, FEN)", _warm_board),
    ("perft", "perft (UCI 'go perft', jitfish perft)", _warm_perft),
    ("tablebases", "the search with Syzygy tables (SyzygyPath)", warm_tablebases),
]


class CompileCounter:
    """Counts the kernels Numba compiles (not those it loads from the cache) while installed.

    ``with CompileCounter() as counter: ...``; ``counter.started`` may be read
    from another thread meanwhile.  It listens to Numba's ``numba:compile``
    event, which fires only when a kernel is really compiled.
    """

    def __init__(self) -> None:
        self.started = 0
        self._installed: Any = None  # Numba's listener context

    def __enter__(self) -> CompileCounter:
        from numba.core import event

        counter = self

        class Listener(event.Listener):
            def on_start(self, ev: object) -> None:
                counter.started += 1

            def on_end(self, ev: object) -> None:
                pass

        self._installed = event.install_listener("numba:compile", Listener())
        self._installed.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._installed.__exit__(*exc)


def _kernel_cache() -> Path:
    """The kernel cache of this process (:data:`jitfish.runtime.jit.CACHE_DIR`), imported only when asked for."""
    from jitfish.runtime.jit import CACHE_DIR

    return CACHE_DIR


def is_cached(group: str, cache_dir: Path | None = None) -> bool:
    """Whether ``group`` (a key of ``ENTRY_FILES``) loads from the cache, i.e. its top kernel is there."""
    cache_dir = cache_dir or _kernel_cache()
    return cache_dir.is_dir() and any(cache_dir.rglob(ENTRY_FILES[group]))


@contextmanager
def one_compile_at_a_time(cache_dir: Path | None = None, group: str | None = None) -> Iterator[None]:
    """Hold the kernel cache's lock: of the processes that share a cache, one compiles at a time, and the
    others wait, then load what it saved instead of compiling the same kernels again.

    OpenBench starts one ``bench`` per thread at once, maybe on an empty cache: without the lock each copy
    compiles everything (two at once took about twice as long as one on two cores); with it the first
    compiles with its helper on the spare core and the others load.  ``group``: a lock of that group of
    :data:`GROUPS` alone, so that processes compiling different groups go on side by side (the test
    workers).  Where ``fcntl`` is missing (Windows) there is no lock, only the duplicated work.
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    cache_dir = cache_dir or _kernel_cache()
    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ("compile.lock" if group is None else f"compile-{group}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed, or the process dies
        yield


def compile_all(report: Callable[[str], None] = print, groups: list[str] | None = None, helper: bool = True) -> float:
    """Compile (or load) each group's kernels into the cache; return the total seconds.

    ``helper=False`` compiles the search in this process alone (to time each kernel).
    """
    from jitfish.runtime.jit import CACHE_DIR, PREBUILT

    report(f"kernel cache: {CACHE_DIR}")
    report(f"kernels for: {'this CPU' if PREBUILT is None else PREBUILT.cpu_name + ' (the wheel ships them)'}")
    total = 0.0
    for name, purpose, warm in GROUPS:
        if groups is not None and name not in groups:
            continue
        started = time.perf_counter()
        warm_search(helper) if warm is warm_search else warm()
        elapsed = time.perf_counter() - started
        total += elapsed
        report(f"{name:7s} {elapsed:6.1f} s  {purpose}")
    report(f"total   {total:6.1f} s")
    return total


if __name__ == "__main__":  # the helper process of warm_search
    if hasattr(os, "nice"):
        os.nice(HELPER_NICENESS)
    from jitfish.runtime.jit import HELPER

    _compile_callees(HELPER)
