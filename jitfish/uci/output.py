"""Writing UCI: the lines of a search's reports, and ``info string`` messages held until the GUI has spoken.

The formatting functions turn the engine's results into lines; :class:`Output`
writes lines and messages through the one ``send`` the session was given (the
caller serialises and flushes).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.board.board import Board
    from jitfish.search import SearchInfo


def info_line(info: SearchInfo, wdl_root: Board | None) -> str:
    """The ``info depth ...`` line of one search report; with ``wdl W D L`` (``UCI_ShowWDL``) when given the
    search's root board ``wdl_root``, whose material the model reads."""
    parts = [f"info depth {info.depth} seldepth {info.seldepth} multipv {info.multipv}"]
    if info.score_mate is not None:
        parts.append(f"score mate {info.score_mate}")
    else:
        parts.append(f"score cp {info.score_cp if info.score_cp is not None else 0}")
    if info.bound:
        parts.append(info.bound)
    if wdl_root is not None:
        from jitfish.engine.wdl import win_draw_loss

        win, draw, loss = win_draw_loss(info.score_cp, info.score_mate, wdl_root)
        parts.append(f"wdl {win} {draw} {loss}")
    parts.append(f"nodes {info.nodes} nps {info.nps} hashfull {info.hashfull} time {int(info.time * 1000)}")
    if info.tbhits is not None:
        parts.append(f"tbhits {info.tbhits}")
    if info.pv:
        parts.append("pv " + " ".join(info.pv))
    return " ".join(parts)


def currmove_line(depth: int, move: str, number: int) -> str:
    return f"info depth {depth} currmove {move} currmovenumber {number}"


def bestmove_line(best: str, ponder: str | None) -> str:
    return f"bestmove {best} ponder {ponder}" if ponder else f"bestmove {best}"


def short(error: BaseException | None, limit: int = 200) -> str:
    """One line of an exception, for an ``info string``."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", f"{type(error).__name__}: {error}")
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


class Output:
    """Where a session writes: lines as they are, messages as ``info string`` lines.

    A message written before the GUI's first command (the loader's, at start-up)
    is held until :meth:`release_held`: a GUI that has not spoken yet may take
    any line for the answer to ``uci``.  ``debug`` (``debug on``) shows the
    engine's debug messages.
    """

    def __init__(self, send: Callable[[str], None]) -> None:
        self.send = send
        self.debug = False
        self._held: list[str] | None = []
        self._held_lock = threading.Lock()

    def message(self, text: str) -> None:
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

    @property
    def holding(self) -> bool:
        return self._held is not None

    def release_held(self) -> None:
        """Write the messages held so far; from now on messages go out at once."""
        with self._held_lock:
            held, self._held = self._held, None
        for text in held or []:
            self.message(text)
