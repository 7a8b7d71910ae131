"""A real terminal for ``jitfish play``: the program runs on a pseudo-terminal (stdlib ``pty``), as a person's
shell runs it; the test types lines and reads the screen's text."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[=>]")


class Terminal:
    """``python -m jitfish ARGS`` on a pty of ``columns`` columns, run in ``cwd``; ``sigint``: the disposition
    of SIGINT the program starts with (a shell's job gets the default; a script's background job, ignore)."""

    def __init__(
        self,
        *args: str,
        cwd: Path,
        columns: int = 80,
        environ: dict[str, str] | None = None,
        sigint: signal.Handlers = signal.SIG_DFL,
    ) -> None:
        # COLUMNS and LINES would override the pty's size (pytest-xdist's workers set them): a terminal's own
        # size is what the program must read.
        inherited = {name: value for name, value in os.environ.items() if name not in ("COLUMNS", "LINES")}
        env = {**inherited, "PYTHONPATH": str(ROOT), "TERM": "xterm", **(environ or {})}
        pid, fd = pty.fork()
        if pid == 0:  # the child: the program, on the pty as its controlling terminal
            try:
                os.chdir(cwd)
                signal.signal(signal.SIGINT, sigint)  # not the test process's own (pytest's, or an ignore)
                os.execvpe(sys.executable, [sys.executable, "-m", "jitfish", *args], env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        self.text = ""  # everything shown so far, escapes removed
        self.read_to = 0  # where the next expect looks from
        self.status: int | None = None

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # the child ended: EIO
            return False
        if not data:
            return False
        self.text += ESCAPE.sub("", data.decode("utf-8", "replace")).replace("\r\n", "\n")
        return True

    def expect(self, wanted: str, timeout: float = 30.0) -> str:
        """Read until ``wanted`` is shown (after the last thing expected); the text up to its end."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.text.find(wanted, self.read_to)
            if found >= 0:
                seen = self.text[self.read_to : found + len(wanted)]
                self.read_to = found + len(wanted)
                return seen
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(min(left, 0.2)):
                if self.text.find(wanted, self.read_to) >= 0:
                    continue
                raise AssertionError(f"{wanted!r} not shown within {timeout} s; the screen:\n{self.text[-3000:]}")

    def type(self, line: str) -> None:
        """Type ``line`` and Enter."""
        os.write(self.fd, line.encode() + b"\r")

    def waits_for_a_key(self, timeout: float = 30.0) -> None:
        """Until the program sleeps in ``select``/``poll`` on the terminal, as readline does waiting for a key.

        A Ctrl-C that lands after the prompt is drawn but before CPython's readline waits is only seen at the
        next key (CPython's race, not the program's; a person is never that fast, a loaded test machine is).
        Read from Linux's ``/proc``; elsewhere a pause stands in for it."""
        wchan = Path(f"/proc/{self.pid}/wchan")
        deadline = time.monotonic() + timeout
        while wchan.exists() and time.monotonic() < deadline:
            if any(word in wchan.read_text() for word in ("poll", "select")):
                return
            time.sleep(0.02)
        time.sleep(0.5)

    def key(self, key: bytes) -> None:
        """Press a key: ``b"\\x03"`` is Ctrl-C, ``b"\\x04"`` Ctrl-D."""
        os.write(self.fd, key)

    def wait(self, timeout: float = 30.0) -> int:
        """Read to the end; the exit status (a signal's number negated)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._read(0.2):
                break
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self._drain()
                return self._code(status)
        else:
            self.kill()
            raise AssertionError(f"the program did not end within {timeout} s; the screen:\n{self.text[-3000:]}")
        _, status = os.waitpid(self.pid, 0)
        return self._code(status)

    def _drain(self) -> None:
        while self._read(0.05):
            ready, _, _ = select.select([self.fd], [], [], 0)
            if not ready:
                break

    def _code(self, status: int) -> int:
        os.close(self.fd)
        self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def kill(self) -> None:
        """End the program (a test that failed half-way)."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
            os.close(self.fd)
            self.status = -signal.SIGKILL
