"""The horizon effect: what a fixed-depth search cannot see, and how quiescence search sees it.

A search that stops at depth ``d`` and trusts the static evaluation there
believes whatever the last move did: a capture at the last ply looks like
won material even when the piece is defended, and a loss the opponent is
about to inflict is "avoided" by any move that pushes it beyond ``d`` (a
pawn thrust, a check, a desperado capture).  Quiescence search keeps
playing captures past the horizon until the position is quiet, so it sees
the recapture and the loss.

:func:`horizon` searches a position both ways at the same depth with the
same alpha-beta (move ordering, no other pruning) and reports both principal
variations, and what the quiescence search thinks of the move the
horizon-blind search chose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jitfish.teach.ladder import _Buffers
from jitfish.teach.positions import read_positions
from jitfish.teach.report import format_value
from jitfish.types import MATE

POSITIONS_FILE = Path(__file__).resolve().parent / "data" / "horizon.epd"


@dataclass
class Line:
    value: int  # centipawns for the side to move
    pv: list[str]  # UCI
    san: list[str]  # the same moves in standard notation


@dataclass
class HorizonResult:
    fen: str
    depth: int
    without_quiescence: Line
    with_quiescence: Line
    blind_move_value: int  # the quiescence search's value of the move chosen without it
    trace: Any = field(default=None, repr=False, compare=False)  # a jitfish.teach.trace.Trace, when traced

    def _repr_html_(self) -> str | None:
        """In a notebook, the page of the traced searches (none when they were not traced)."""
        from jitfish.teach.page import notebook_html

        return None if self.trace is None else notebook_html(self.trace)

    @property
    def differs(self) -> bool:
        return self.without_quiescence.pv[:1] != self.with_quiescence.pv[:1]

    @property
    def loss(self) -> int:
        """Centipawns the horizon-blind move gives away, by the quiescence search's reckoning."""
        return self.with_quiescence.value - self.blind_move_value

    def text(self) -> str:
        blind, seeing = self.without_quiescence, self.with_quiescence
        lines = [
            f"{self.fen}  (depth {self.depth})",
            f"  without quiescence: {format_value(blind.value):>6}  {' '.join(blind.san)}",
            f"  with quiescence:    {format_value(seeing.value):>6}  {' '.join(seeing.san)}",
        ]
        if self.differs:
            lines.append(
                f"  quiescence values {blind.san[0]} at {format_value(self.blind_move_value)}: "
                f"the fixed-depth search gives away {self.loss} cp it cannot see"
            )
        else:
            lines.append("  both searches choose the same move here")
        return "\n".join(lines)


def _search(board, depth: int, quiescence: bool, trace=None) -> tuple[int, list[str]]:
    """Alpha-beta with move ordering to ``depth``, with or without quiescence at the horizon (``trace``: recorded)."""
    from jitfish.teach import kernels as K
    from jitfish.teach.ladder import _call

    buffers = _Buffers(tt_entries=1 << 10)
    if trace is not None:
        from jitfish.teach.chess_trace import ChessRecorder

        buffers.recorder = ChessRecorder(trace, board.fen(), board.chess960)
        buffers.recorder.rung = "with quiescence" if quiescence else "without quiescence"
    features = K.QUIESCENCE if quiescence else 0
    value = _call("ordering", board.position.copy(), buffers, depth, features=features)
    return value, buffers.root_pv(board.chess960)


def _san(board, pv: list[str]) -> list[str]:
    chess_board = board.to_chess()
    sans = []
    for uci in pv:
        move = chess_board.parse_uci(uci)
        sans.append(chess_board.san(move))
        chess_board.push(move)
    return sans


def horizon(position, depth: int = 2, trace=None) -> HorizonResult:
    """Search ``position`` (a :class:`jitfish.Board` or a FEN) to ``depth`` without and with quiescence.

    A ``trace`` records both searches, one after the other.
    """
    from jitfish.board.board import Board

    if not 1 <= depth <= 8:
        raise ValueError(f"horizon depth must be between 1 and 8, got {depth}")
    board = position if isinstance(position, Board) else Board(position)
    if not board.legal_moves():
        raise ValueError(f"no legal moves in {board.fen()}")
    blind_value, blind_pv = _search(board, depth, quiescence=False, trace=trace)
    seeing_value, seeing_pv = _search(board, depth, quiescence=True, trace=trace)
    after = board.copy()
    after.push_uci(blind_pv[0])
    if after.legal_moves():
        reply_value, _ = _search(after, depth - 1, quiescence=True)
        blind_move_value = -reply_value
    else:
        blind_move_value = MATE - 1 if after.is_check() else 0
    result = HorizonResult(
        board.fen(),
        depth,
        Line(blind_value, blind_pv, _san(board, blind_pv)),
        Line(seeing_value, seeing_pv, _san(board, seeing_pv)),
        blind_move_value,
        trace,
    )
    if trace is not None:
        trace.summary = {
            "value without quiescence": blind_value,
            "value with quiescence": seeing_value,
            "move without": result.without_quiescence.san[0],
            "move with": result.with_quiescence.san[0],
        }
    return result


def load_positions(path: str | Path = POSITIONS_FILE) -> list[tuple[str, int, str]]:
    """(FEN, depth, comment) from a horizon file: ``FEN; depth N; comment``, ``#`` starts a comment line."""
    return read_positions(path, "depth")
