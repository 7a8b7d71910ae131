"""``Board``: the public, python-chess-like face of a position.

Moves cross this boundary as UCI strings.  Castling is written the standard
way (``e1g1``) unless the board is Chess960, where it is king-takes-rook
(``e1h1``); on a standard board both spellings are accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move, unmake_move
from jitfish.board.movegen import gives_check, is_in_check
from jitfish.board.moves import MOVE_CASTLING, check_uci_syntax, move_kind, move_to_uci
from jitfish.board.perft import divide_position, perft_position
from jitfish.board.position import STARTING_FEN, Position
from jitfish.board.squares import NO_PIECE, PIECE_SYMBOLS, WHITE
from jitfish.board.tables import lookup_tables
from jitfish.board.zobrist import compute_key

if TYPE_CHECKING:
    import chess


class Board:
    """A chess position with its move history.

    >>> board = Board()
    >>> board.push_uci("e2e4")
    >>> board.fen()
    'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'

    Raises ``ValueError`` for a bad FEN or an illegal move, and leaves the
    board unchanged when it does.
    """

    def __init__(self, fen: str = STARTING_FEN, chess960: bool = False) -> None:
        self._position = Position.from_fen(fen, chess960)
        self._root_fen = self._position.fen()
        self._moves: list[int] = []

    # --- interop -------------------------------------------------------
    @classmethod
    def from_chess(cls, board: chess.Board) -> Board:
        """A copy of a python-chess board, its move stack included."""
        root = board.root()
        result = cls(root.fen(), chess960=board.chess960)
        for move in board.move_stack:
            result.push_uci(move.uci())
        return result

    def to_chess(self) -> chess.Board:
        """The same position (and move stack) as a ``chess.Board``."""
        import chess

        board = chess.Board(self._root_fen, chess960=self.chess960)
        for uci in self.move_stack:
            board.push_uci(uci)
        return board

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other._position = self._position.copy()
        other._root_fen = self._root_fen
        other._moves = list(self._moves)
        return other

    # --- queries -------------------------------------------------------
    @property
    def position(self) -> Position:
        """The underlying arrays, for kernels."""
        return self._position

    @property
    def chess960(self) -> bool:
        return self._position.chess960

    @property
    def turn(self) -> bool:
        """``True`` when white is to move (python-chess's ``chess.WHITE``)."""
        return self._position.turn == WHITE

    @property
    def move_stack(self) -> list[str]:
        """The moves pushed since the board was set up, as UCI strings."""
        return [move_to_uci(m, self.chess960) for m in self._moves]

    def fen(self, *, shredder: bool = False) -> str:
        return self._position.fen(shredder=shredder)

    def _encoded_legal_moves(self) -> np.ndarray:
        return self._position.legal_moves()

    def legal_moves(self) -> list[str]:
        """Every legal move as UCI text, in generation order."""
        return [move_to_uci(int(m), self.chess960) for m in self._encoded_legal_moves()]

    def is_legal(self, uci: str) -> bool:
        return uci in self._uci_map()

    def is_check(self) -> bool:
        p = self._position
        return bool(is_in_check(p.bbs, p.state, lookup_tables()))

    def gives_check(self, uci: str) -> bool:
        """Whether the legal move ``uci`` would put the opponent in check (``ValueError`` if illegal)."""
        p = self._position
        return bool(gives_check(p.bbs, p.state, lookup_tables(), self.parse_uci(uci)))

    def is_checkmate(self) -> bool:
        return self.is_check() and not len(self._encoded_legal_moves())

    def is_stalemate(self) -> bool:
        return not self.is_check() and not len(self._encoded_legal_moves())

    def zobrist(self) -> int:
        """The Polyglot key (python-chess's ``chess.polyglot.zobrist_hash``)."""
        return int(self._position.bbs[L.KEY])

    def zobrist_from_scratch(self) -> int:
        """The key recomputed from the pieces; always equal to :meth:`zobrist`."""
        p = self._position
        return int(compute_key(p.bbs, p.state, lookup_tables()))

    @property
    def halfmove_clock(self) -> int:
        return int(self._position.state[L.HALFMOVE_CLOCK])

    @property
    def fullmove_number(self) -> int:
        return int(self._position.state[L.FULLMOVE_NUMBER])

    # --- moves ---------------------------------------------------------
    def _uci_map(self) -> dict[str, int]:
        mapping = {}
        for move in self._encoded_legal_moves():
            move = int(move)
            mapping[move_to_uci(move, self.chess960)] = move
            if move_kind(move) == MOVE_CASTLING and not self.chess960:
                mapping[move_to_uci(move, True)] = move  # king-takes-rook also accepted
        return mapping

    def parse_uci(self, uci: str) -> int:
        """The encoded legal move for ``uci``; ``ValueError`` when malformed or illegal."""
        check_uci_syntax(uci)
        move = self._uci_map().get(uci)
        if move is None:
            raise ValueError(f"illegal move {uci!r} in {self.fen()}")
        return move

    def push_uci(self, uci: str) -> None:
        """Play a move given as UCI text."""
        self.push(self.parse_uci(uci))

    def push(self, move: int) -> None:
        """Play an encoded legal move (see :meth:`parse_uci`)."""
        if len(self._moves) >= L.MAX_GAME_PLY - 1:
            raise ValueError(f"game too long: at most {L.MAX_GAME_PLY - 1} moves can be pushed")
        p = self._position
        make_move(p.bbs, p.state, p.undo, p.key_history, lookup_tables(), move)
        self._moves.append(move)

    def pop(self) -> str:
        """Take back the last move and return it as UCI text."""
        if not self._moves:
            raise IndexError("pop from a board with an empty move stack")
        p = self._position
        unmake_move(p.bbs, p.state, p.undo, p.key_history, lookup_tables())
        return move_to_uci(self._moves.pop(), self.chess960)

    # --- perft ---------------------------------------------------------
    def perft(self, depth: int, *, bulk: bool = True) -> int:
        return perft_position(self._position, depth, bulk)

    def perft_divide(self, depth: int, *, bulk: bool = True) -> dict[str, int]:
        return divide_position(self._position, depth, bulk)

    # --- display -------------------------------------------------------
    def __str__(self) -> str:
        rows = []
        for rank in range(7, -1, -1):
            pieces = [self._position.piece_at(rank * 8 + file) for file in range(8)]
            rows.append(" ".join("." if p == NO_PIECE else PIECE_SYMBOLS[p] for p in pieces))
        return "\n".join(rows)

    def __repr__(self) -> str:
        extra = ", chess960=True" if self.chess960 else ""
        return f"Board({self.fen()!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.fen() == other.fen()

    __hash__ = None  # type: ignore[assignment]  # mutable: a board is not hashable
