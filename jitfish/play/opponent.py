"""Jitfish across the board: the engine facade (:class:`jitfish.engine.engine.Engine`) asked for a move on
the game's clocks, a hint or an evaluation, the way a GUI asks it.

The move is searched at the level chosen (``UCI_LimitStrength`` and ``UCI_Elo``, or full strength) with the
clocks of a GUI game (``wtime``/``btime``/``winc``/``binc``, the engine's own time management) or a fixed
time a move.  A hint and an evaluation are searched at full strength, with :data:`HINT_NODES` nodes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import chess

from jitfish.engine.engine import Engine
from jitfish.engine.turn import EngineCallbacks, GoParams
from jitfish.engine.wdl import win_draw_loss
from jitfish.search import SearchInfo

HINT_NODES = 300_000  # a hint's or an evaluation's search (about a third of a second on a free core)
HINT_MOVETIME_MS = 3000  # and never longer than this
WAIT_STEP_S = 0.05  # how often a wait for the engine wakes up (so that Ctrl-C is heard at once)


@dataclass(frozen=True)
class Thought:
    """A search's answer: the move (UCI; ``None`` when there is none), its line and score, from the side to
    move, and the chances of a win, a draw and a loss in per mille."""

    move: str | None
    pv: list[str]
    score_cp: int | None
    score_mate: int | None
    wdl: tuple[int, int, int]


class Opponent:
    """The engine, at a level (``elo``: ``None`` for full strength)."""

    def __init__(self, elo: int | None = None, engine: Engine | None = None) -> None:
        self._done = threading.Event()
        self._best: str | None = None
        self._info: SearchInfo | None = None
        callbacks = EngineCallbacks(on_info=self._on_info, on_bestmove=self._on_bestmove)
        if engine is None:
            engine = Engine(callbacks)
            engine.warm_up()
        else:
            engine.callbacks = callbacks
        self.engine = engine
        self.elo = elo
        self.engine.set_option("UCI_LimitStrength", elo is not None)
        if elo is not None:
            self.engine.set_option("UCI_Elo", elo)
        self.engine.new_game()

    def _on_info(self, info: SearchInfo) -> None:
        if info.multipv == 1 and info.bound == "":
            self._info = info

    def _on_bestmove(self, best: str, ponder: str | None) -> None:
        self._best = best
        self._done.set()

    def play(self, board: chess.Board, params: GoParams) -> Thought:
        """The engine's move in ``board`` (at its level) for a ``go`` with ``params``."""
        return self._think(board, params)

    def hint(self, board: chess.Board) -> Thought:
        """The best move at full strength, its line and score (for a hint or ``eval``)."""
        limited = self.engine.settings.limit_strength
        self.engine.set_option("UCI_LimitStrength", False)
        try:
            return self._think(board, GoParams(nodes=HINT_NODES, movetime=HINT_MOVETIME_MS))
        finally:
            self.engine.set_option("UCI_LimitStrength", limited)

    def _think(self, board: chess.Board, params: GoParams) -> Thought:
        root = board.root()
        self.engine.set_position(root.fen(), [move.uci() for move in board.move_stack])
        self._done.clear()
        self._best, self._info = None, None
        self.engine.go(params)
        try:
            while not self._done.wait(WAIT_STEP_S):
                pass
        except BaseException:  # Ctrl-C while the engine thinks: stop it, then go on ending the program
            self.engine.stop()
            self.engine.wait(1.0)
            raise
        self.engine.wait(1.0)
        info = self._info
        move = self._best if self._best not in (None, "0000") else None
        score_cp, score_mate = (info.score_cp, info.score_mate) if info is not None else (0, None)
        wdl = win_draw_loss(score_cp, score_mate, self.engine.game.board)
        pv: list[str] = list(info.pv) if info is not None and info.pv else ([move] if move else [])
        if move is not None and pv[:1] != [move]:
            pv = [move]  # a weakened pick is not the searched line's first move
        return Thought(move, pv, score_cp, score_mate, wdl)

    def close(self) -> None:
        """Stop any search (at the end of the program)."""
        self.engine.stop()
        self.engine.wait(1.0)
