"""Root probing: which root moves keep the tablebase result, and what to report.

When the root position is in the tables, each legal move is ranked by the
distance to zeroing (DTZ) of the position it leads to, counting the plies
already on the rule-50 clock (python-chess probes DTZ: one probe per root
move, so speed does not matter here).  The search then sees only the best
group:

* winning moves that still win before the 50-move rule can strike: all of
  them, so the search can pick the quickest mate, since each keeps the win
  in hand and the set shrinks as the clock runs;
* otherwise the moves of the best rank: a win the clock may spoil is tried
  by its shortest DTZ, draws all together, a loss by its longest resistance.

Without DTZ tables (or if a DTZ probe fails) the moves are ranked by the WDL
value alone.  With ``Syzygy50MoveRule`` off a cursed win counts as a win and
a blessed loss as a loss.

DTZ values can be one ply long (the format rounds them), so a win is
counted safe only if DTZ plus the clock stays within 99 plies, as Stockfish
counts it.
"""

from __future__ import annotations

from dataclasses import dataclass

import chess

from jitfish.syzygy import Tablebase
from jitfish.types import TB_WIN

SAFE_WIN = 1 << 18  # the rank of a win the 50-move rule cannot spoil
RULE50_PLIES = 100
# The DTZ a zeroing move has from the WDL after it: it zeroes at once (one ply), 100 more for the clock's verdict.
WDL_AS_DTZ = {2: 1, 1: 101, 0: 0, -1: -101, -2: -1}


@dataclass
class RootProbe:
    moves: list[str]  # the root moves to search (UCI), best group only
    outcome: int  # 2 win, 0 draw, -2 loss for the side to move; 1 / -1 when the clock decides
    method: str  # "dtz" or "wdl"

    def score(self, score_cp: int | None, score_mate: int | None) -> tuple[int | None, int | None]:
        """The ``(cp, mate)`` to report for a search's score: a mate the search proved stands; otherwise a
        certain result replaces the search's guess (a win as ``TB_WIN`` centipawns, below every mate)."""
        if score_mate is not None or self.outcome in (1, -1):
            return score_cp, score_mate
        return {2: TB_WIN - 1, 0: 0, -2: -(TB_WIN - 1)}[self.outcome], None


def _rank(dtz: int, clock: int, rule50: bool) -> int:
    """A sortable rank of a move's DTZ (from the mover's view, the move included) at this clock."""
    if dtz > 0:
        if not rule50 or dtz + clock <= RULE50_PLIES - 1:
            return SAFE_WIN
        return SAFE_WIN - (dtz + clock)
    if dtz < 0:
        if not rule50 or -dtz + clock <= RULE50_PLIES - 1:
            return -SAFE_WIN
        return -SAFE_WIN + (-dtz + clock)
    return 0


def move_dtz(prober, board: chess.Board, move: chess.Move) -> int:
    """DTZ of ``move`` from the mover's view, counting the move itself."""
    board.push(move)
    try:
        if board.is_checkmate():
            return 1
        if board.halfmove_clock == 0:
            # A zeroing move: the rest is the WDL of the new position with a fresh clock.
            return WDL_AS_DTZ[-prober.probe_wdl(board)]
        dtz = -prober.probe_dtz(board)
        return dtz + 1 if dtz > 0 else dtz - 1 if dtz < 0 else 0
    finally:
        board.pop()


def _outcome(rank: int, rule50: bool) -> int:
    if rank >= SAFE_WIN:
        return 2
    if rank <= -SAFE_WIN:
        return -2
    if rank == 0:
        return 0
    return 1 if rank > 0 else -1


def probe_root(tablebase: Tablebase, fen: str, rule50: bool = True) -> RootProbe | None:
    """The root moves to search and the expected result, or ``None`` when the root is not in the tables."""
    board = chess.Board(fen)
    if board.castling_rights or chess.popcount(board.occupied) > tablebase.max_pieces:
        return None
    moves = list(board.legal_moves)
    if not moves:
        return None
    clock = board.halfmove_clock
    ranked = None
    if tablebase.dtz_count:
        try:
            prober = tablebase.dtz_prober()
            ranked = [(move, move_dtz(prober, board, move)) for move in moves]
            method = "dtz"
        except (KeyError, OSError, ValueError, IndexError):
            ranked = None  # a DTZ table missing or unreadable: rank by WDL below
    if ranked is None:
        ranked = _rank_by_wdl(tablebase, board, moves)
        if ranked is None:
            return None
        method = "wdl"
    ranks = {move: _rank(dtz, clock if method == "dtz" else 0, rule50) for move, dtz in ranked}
    best = max(ranks.values())
    keep = [move for move in moves if ranks[move] == best]
    if best == -SAFE_WIN and method == "dtz":
        # Every move loses: resist longest.
        longest = min(dtz for move, dtz in ranked if move in keep)
        keep = [move for move, dtz in ranked if move in keep and dtz == longest]
    return RootProbe([move.uci() for move in keep], _outcome(best, rule50), method)


def _rank_by_wdl(tablebase: Tablebase, board: chess.Board, moves: list[chess.Move]):
    """``(move, pseudo-DTZ)`` from the WDL of each move's position (``WDL_AS_DTZ``), or ``None`` when a
    position is not in the tables."""
    ranked = []
    for move in moves:
        board.push(move)
        try:
            wdl = -2 if board.is_checkmate() else tablebase.probe_wdl(board)
        finally:
            board.pop()
        if wdl is None:
            return None
        ranked.append((move, WDL_AS_DTZ[-wdl]))
    return ranked
