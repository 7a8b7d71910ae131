"""The UCI loop: stdin lines in the main thread, replies on stdout, each line flushed.

Only light modules are imported before the first reply; the engine and its
kernels load in a background thread (see :mod:`jitfish.uci.protocol`).
Searches run in a thread of their own, and commands that arrive during one wait
in the protocol's worker thread (see :mod:`jitfish.uci.protocol`), so every write
goes through one lock.
End of input means ``quit``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from jitfish.uci.protocol import MAX_LINE_CHARS, UciProtocol


class LineWriter:
    """Whole lines to a text stream, one writer at a time, flushed at once."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def __call__(self, line: str) -> None:
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.broken = True  # the GUI went away: the loop ends at end of input


def read_lines(stream: BinaryIO) -> Iterator[str]:
    """Decoded input lines; a line longer than MAX_LINE_CHARS comes out as its first part,
    over-long (the protocol reports and ignores it) without holding it all in memory."""
    while True:
        chunk = stream.readline(MAX_LINE_CHARS + 1)
        if not chunk:
            return
        if len(chunk) > MAX_LINE_CHARS and not chunk.endswith(b"\n"):
            while True:  # skip the rest of the line
                rest = stream.readline(MAX_LINE_CHARS)
                if not rest or rest.endswith(b"\n"):
                    break
        yield chunk.decode("utf-8", errors="replace").rstrip("\r\n")


def run(
    stdin: BinaryIO | None = None, stdout: TextIO | None = None, tune: bool = False, commands: list[str] | None = None
) -> int:
    """Run the loop until ``quit`` or end of input; returns the exit status.

    ``tune`` lists the search parameters as options too (``jitfish --tune``).  ``commands`` (the command
    line's UCI commands) replace the input: each runs once the one before it is done, a search to its
    ``bestmove`` (one that waits for ``stop``, as ``go infinite``, only until it has started).
    """
    writer = LineWriter(stdout if stdout is not None else sys.stdout)
    protocol = UciProtocol(writer, tune=tune)
    protocol.start_loading()
    lines = commands if commands is not None else read_lines(stdin if stdin is not None else sys.stdin.buffer)
    for line in lines:
        if not protocol.handle(line):
            break
        if commands is not None:
            protocol.wait_until_done()
    else:
        protocol.handle("quit")
    # A daemon thread may still be compiling or searching: leave without waiting.
    if threading.active_count() > 1 and stdout is None:
        sys.stdout.flush()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(run())
