"""The order UCI commands run in: no command is dropped for arriving early, and none overtakes a search.

A GUI may write ``stop``, ``position`` and ``go`` in one burst (Polyglot does
on a ponder miss), so the ``go`` arrives while the stopped search is still
winding down.  Commands fall in three kinds:

- *at once*, in the reading thread: ``uci``, ``debug``, ``isready``,
  ``register`` and ``quit`` (the protocol never asks here).  ``isready``
  waits for the commands before it (:meth:`CommandOrder.wait_ready`) unless
  a search is running, when it is answered at once, as GUIs expect;
  ``quit`` drops what is held (:meth:`CommandOrder.quit`).
- *search control*: ``stop`` and ``ponderhit`` act on the search of the last
  ``go`` before them, at once, or held until that ``go``'s search has started.
  A ``stop`` ends every search of a ``go`` received before it, whatever its
  limit: the running one at once, and each held one starts stopped (the
  ``stop`` held for it is taken as it starts), so that it answers with the
  move of its first iteration however fast the search is.  After ``stop`` and
  ``readyok`` the engine is idle, and the next ``go`` searches to its own
  limit (Polyglot's burst: the ``go`` after the ``stop`` is the one that
  counts).  ``isready`` after a ``stop`` waits for those answers.
- *everything else* needs an idle engine.  While a search runs (until its
  ``bestmove`` is sent) or commands are held, it is held, and the held
  commands run in order in a worker thread.  A ``go`` never ends the search
  before it: behind a search that waits for ``stop`` it waits for that ``stop``
  (Stockfish's ``go`` also waits for the running search).

Commands run in one thread at a time: the reading thread runs them only when
nothing is held, no search runs and the worker is idle.  All the state is
guarded by one condition variable.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from jitfish.uci.commands import after_ponderhit, releasers, starts_search

if TYPE_CHECKING:
    from jitfish.engine.turn import GoParams

Command = tuple[str, list[str]]  # (name, the words after it)
SEARCH_CONTROL = ("stop", "ponderhit")


class CommandOrder:
    """When each command of a session runs; ``run(command, args)`` runs a held one (in the worker)."""

    def __init__(self, run: Callable[[str, list[str]], object]) -> None:
        self._run = run
        self._changed = threading.Condition()
        self._pending: deque[Command] = deque()  # commands held, oldest first
        self._in_flight: Command | None = None  # the held command the worker runs
        self._searching = False  # from starting a search until its bestmove is sent
        self._answering = False  # the bestmove is being sent: isready waits for held commands
        self._releasers: tuple[str, ...] = ()  # what the running search waits for before it may end
        self._stopped = False  # the running search was sent a stop
        self._after_ponderhit: tuple[str, ...] = ()
        self._quitting = False
        self._worker: threading.Thread | None = None

    def hold(self, command: str, args: list[str]) -> bool:
        """Take ``command`` if it must not run now (held, or a ``stop`` already placed); ``False``: run it."""
        with self._changed:
            if command == "stop":
                wait = self._place_stop()
            elif command == "ponderhit":
                wait = self._not_started() != []
            else:
                wait = self._searching or self._in_flight is not None or bool(self._pending)
            if wait and command != "stop":
                self._queue(len(self._pending), (command, args))
            return wait

    def _queue(self, index: int, command: Command) -> None:
        self._pending.insert(index, command)
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="jitfish-held-commands", daemon=True)
            self._worker.start()
        self._changed.notify_all()

    def _not_started(self) -> list[tuple[Command, int]]:
        """Each ``go`` that has yet to start its search, with the place in the queue where the commands that
        belong to its search end (the next ``go``, or the end)."""
        gos = [index for index, (command, args) in enumerate(self._pending) if starts_search(command, args)]
        ends = gos[1:] + [len(self._pending)]
        found = [(self._pending[index], end) for index, end in zip(gos, ends)]
        if self._in_flight is not None and starts_search(*self._in_flight) and not self._searching:
            found.insert(0, (self._in_flight, gos[0] if gos else len(self._pending)))
        return found

    def _place_stop(self) -> bool:
        """Place an arriving ``stop`` (the rules are in the module docstring): one right after each held
        ``go`` that has none, so that its search ends as soon as it starts; ``False``: it runs now, on the
        running search."""
        for _, end in reversed(self._not_started()):  # from the back, so that the places before stay right
            start = end - 1
            while start >= 0 and not starts_search(*self._pending[start]):
                start -= 1
            if not any(command == "stop" for command, _ in list(self._pending)[start + 1 : end]):
                self._queue(end, ("stop", []))
        return not self._searching and bool(self._pending or self._in_flight)

    def _held_for_search(self, names: tuple[str, ...]) -> int | None:
        """The place in the queue of the first held command named in ``names`` that belongs to the
        running search, or to the one about to start: one held before any ``go``, since a ``go`` starts
        the search the later ones belong to."""
        for index, (command, args) in enumerate(self._pending):
            if starts_search(command, args):
                return None
            if command in names:
                return index
        return None

    def _work(self) -> None:
        """The worker: run the held commands in order, each once no search is running.  While one runs,
        a ``stop`` or ``ponderhit`` held for it goes at once, ahead of the commands that wait for it to end
        (they start no search, so the ``stop`` still meets the search it was sent for)."""
        while True:
            with self._changed:
                self._changed.wait_for(
                    lambda: (
                        self._quitting
                        or (self._pending and not self._searching)
                        or (self._searching and self._held_for_search(SEARCH_CONTROL) is not None)
                    )
                )
                if self._quitting:
                    return
                control = self._held_for_search(SEARCH_CONTROL) if self._searching else None
                index = 0 if control is None else control  # no search: the oldest held command
                command, args = self._in_flight = self._pending[index]
                del self._pending[index]
            try:
                self._run(command, args)
            finally:
                with self._changed:
                    self._in_flight = None
                    self._changed.notify_all()

    # --- the protocol's steps -------------------------------------------------------------------------
    def start_search(self, params: GoParams, start: Callable[[bool], None]) -> None:
        """Call ``start(stopped)`` (which starts the search of ``params``) unless ``quit`` came first.
        ``stopped``: a ``stop`` is held for this search, and is taken here, so that the search starts
        stopped and answers from its first iteration however fast it is."""
        with self._changed:  # quit cannot come between the check and the start
            if self._quitting:
                return
            held_stop = self._held_for_search(("stop",))
            if held_stop is not None:
                del self._pending[held_stop]
            self._stopped = held_stop is not None
            self._releasers = () if self._stopped else releasers(params)
            self._after_ponderhit = after_ponderhit(params)
            self._searching = True  # before the search can end and send its bestmove
            try:
                start(self._stopped)
            except BaseException:
                self._searching, self._releasers = False, ()
                raise
            self._changed.notify_all()

    def control(self, command: str, act: Callable[[], None]) -> None:
        """Run ``stop`` or ``ponderhit`` (``act``), and note that the running search no longer waits for it."""
        with self._changed:
            if command == "stop":
                self._releasers, self._stopped = (), self._searching
            elif "ponderhit" in self._releasers:
                self._releasers = self._after_ponderhit
            act()

    def answer(self, send: Callable[[], None]) -> None:
        """Send the search's ``bestmove`` (``send``).  The search counts as running until the line is out, so
        no held command runs before it; the line is written outside the lock, so that a GUI slow to read it
        holds up no command that may go at once.  A GUI may answer it at once (``setoption``, ``isready``):
        from here on ``isready`` waits for what it sent."""
        with self._changed:
            self._answering = True
        send()
        with self._changed:
            self._searching = self._answering = False
            self._releasers = ()
            self._changed.notify_all()

    def _ending(self) -> bool:
        """Whether the running search ends by itself soon: its ``bestmove`` is being sent, or it was sent a
        ``stop`` or has one held for it."""
        if self._answering or self._stopped or (self._in_flight is not None and self._in_flight[0] == "stop"):
            return True
        return self._held_for_search(("stop",)) is not None

    def wait_ready(self) -> None:
        """Wait until the commands before an ``isready`` have run, or wait behind a running search that does
        not end by itself soon (``go infinite`` and the like are answered at once, as GUIs expect)."""
        with self._changed:
            self._changed.wait_for(
                lambda: (
                    self._quitting
                    or (self._searching and not self._ending())
                    or not (self._pending or self._in_flight or self._searching)
                )
            )

    def wait_idle(self) -> None:
        """Wait until the commands taken so far have run and no search runs, except one that waits for
        ``stop``."""
        with self._changed:
            self._changed.wait_for(
                lambda: (
                    self._quitting
                    or not (self._pending or self._in_flight or (self._searching and not self._releasers))
                )
            )

    def quit(self, stop: Callable[[], None]) -> None:
        """Drop what is held, start nothing more, and ``stop`` the search."""
        with self._changed:
            self._quitting = True
            self._pending.clear()
            self._changed.notify_all()
            stop()
