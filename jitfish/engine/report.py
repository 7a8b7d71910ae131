"""Text for people: the board (``d``) and the evaluation report (``eval``).

Kept apart from :mod:`jitfish.engine.engine`, which coordinates and builds no text.
Each report is a function of what it shows (a board, a network), so the UCI
layer and scripts can call it without an engine.  The evaluation kernels load
on first use: nothing here is imported by a search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from jitfish.board.board import Board
    from jitfish.nnue.inference import KernelNetwork


def describe(board: Board) -> str:
    """``d``: the board, its FEN, Polyglot key and checkers."""
    import chess

    rows = ["", " +---+---+---+---+---+---+---+---+"]
    for rank_index, rank in enumerate(str(board).splitlines()):
        cells = rank.split()
        rows.append(" | " + " | ".join(" " if c == "." else c for c in cells) + f" | {8 - rank_index}")
        rows.append(" +---+---+---+---+---+---+---+---+")
    rows.append("   a   b   c   d   e   f   g   h")
    rows.append("")
    rows.append(f"Fen: {board.fen()}")
    rows.append(f"Key: {board.zobrist():016X}")
    checkers: Iterable[int] = board.to_chess().checkers() if board.is_check() else []
    rows.append("Checkers: " + " ".join(chess.square_name(sq) for sq in checkers))
    return "\n".join(rows)


def _score_line(label: str, score: int, white_to_move: bool) -> str:
    """A score for the side to move, shown from white's side too."""
    white_score = score if white_to_move else -score
    return f"{label}: {white_score / 100:+.2f} (white side) [{score:+d} cp side to move]"


def eval_report(board: Board, network: KernelNetwork | None = None, use_nnue: bool = False) -> str:
    """``eval``: each term (middlegame, endgame, from white) and the final score; with a network loaded,
    the network's score too and whether the search uses it."""
    from jitfish.eval import evaluate, evaluate_terms

    score = evaluate(board)
    terms = evaluate_terms(board)
    rows = [f"{'Term':<16}{'MG':>8}{'EG':>8}", "-" * 32]
    for name, (mg, eg) in terms.items():
        if name == "phase":
            continue
        if name == "total":
            rows.append("-" * 32)
        rows.append(f"{name:<16}{mg:>8}{eg:>8}")
    if "phase" in terms:
        phase, full = terms["phase"]
        rows.append(f"Phase: {phase}/{full} (middlegame share)")
    rows.append(_score_line("Final evaluation", score, board.turn))
    if network is not None:
        from jitfish.nnue.inference import evaluate as network_evaluate

        used = "searched with" if use_nnue else "not used: Use NNUE is off"
        rows.append(_score_line("NNUE evaluation", network_evaluate(network, board), board.turn) + f" ({used})")
    return "\n".join(rows)
