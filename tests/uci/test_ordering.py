"""``CommandOrder`` on its own, with a fake engine: which command runs when, and how a held search starts."""

import threading

from jitfish.uci.commands import parse_go
from jitfish.uci.ordering import CommandOrder

WAIT_S = 10.0


class FakeSession:
    """Runs commands as the protocol does, but a search is only a flag until :meth:`finish` answers it."""

    def __init__(self) -> None:
        self.order = CommandOrder(self.run)
        self.log: list[str] = []
        self.started = threading.Semaphore(0)

    def send(self, line: str) -> None:
        command, *args = line.split()
        if not self.order.hold(command, args):
            self.run(command, args)

    def run(self, command: str, args: list[str]) -> None:
        if command == "go":
            params, _ = parse_go(args)
            self.order.start_search(params, self.start)
        elif command == "stop":
            self.order.control("stop", lambda: self.log.append("stop"))
        else:
            self.log.append(" ".join([command, *args]))

    def start(self, stopped: bool) -> None:
        self.log.append("go stopped" if stopped else "go")
        self.started.release()

    def finish(self) -> None:
        self.order.answer(lambda: self.log.append("bestmove"))


def test_a_held_go_with_a_stop_held_for_it_starts_stopped():
    """The stop is not left to race the search it was sent for: that search starts with it."""
    session = FakeSession()
    session.send("go infinite")
    assert session.started.acquire(timeout=WAIT_S)
    for line in ("position startpos", "go depth 3", "stop"):
        session.send(line)
    assert session.log == ["go", "stop"]  # the running search is stopped at once, the held go waits
    session.finish()
    assert session.started.acquire(timeout=WAIT_S)
    session.finish()
    session.order.wait_ready()
    assert session.log == ["go", "stop", "bestmove", "position startpos", "go stopped", "bestmove"]


def test_a_held_go_without_a_stop_searches_to_its_limit():
    session = FakeSession()
    session.send("go infinite")
    assert session.started.acquire(timeout=WAIT_S)
    session.send("stop")
    session.send("go depth 3")  # after the stop: the go that counts
    session.finish()
    assert session.started.acquire(timeout=WAIT_S)
    session.finish()
    session.order.wait_ready()
    assert session.log == ["go", "stop", "bestmove", "go", "bestmove"]
