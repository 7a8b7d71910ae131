"""The position a protocol sets: ``position [startpos | fen F] moves ...``, kept as one :class:`Board`.

A GUI sends the whole game before every move, so :class:`Game` remembers
what its board was set from and, when the new command only adds moves,
plays just those.  A bad FEN leaves the previous position; a bad move leaves
the position after the moves before it (as Stockfish does).  The Chess960
flag is the board's own: every board built here inherits it.
"""

from __future__ import annotations

from jitfish.board.board import Board
from jitfish.board.position import STARTING_FEN


class Game:
    """The board after the last ``position`` command, and the FEN and moves it was set from."""

    def __init__(self) -> None:
        self.board = Board()
        self.has_position = False
        self._set_from: tuple[str, list[str]] = ("", [])  # the FEN and moves self.board holds

    def set_chess960(self, enabled: bool) -> None:
        """Chess960 castling (king takes rook) for the positions set from now on."""
        if enabled != self.board.chess960:
            self.board = Board(self.board.fen(), chess960=enabled)
            self._set_from = ("", [])

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """Set the position (``None``: the start position); ``ValueError`` on a bad FEN or move."""
        fen = STARTING_FEN if fen is None else fen
        known_fen, known_moves = self._set_from
        start = 0
        if fen == known_fen and moves[: len(known_moves)] == known_moves and self.has_position:
            # The usual case in a game: the last position plus a move or two.
            board = self.board.copy()
            start = len(known_moves)
        else:
            try:
                board = Board(fen, chess960=self.board.chess960)
            except ValueError as error:
                raise ValueError(f"{error}; position unchanged") from None
        self.board = board
        self.has_position = True
        self._set_from = ("", [])  # until every move is in
        for index in range(start, len(moves)):
            move = moves[index]
            try:
                board.push_uci(move)
            except ValueError as error:
                raise ValueError(f"move {index + 1} '{move}': {error}; position set up to the move before") from None
        self._set_from = (fen, list(moves))
