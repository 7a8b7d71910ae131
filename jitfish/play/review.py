"""After the game: ``jitfish analyse`` run on the saved PGN, its summary printed with each marked move and
the line Jitfish preferred, and the analysed game written beside the game (``GAME-analysed.pgn``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import chess

REVIEW_NODES = 100_000  # a position's search: a game of 40 moves in well under a minute
ANNOTATION = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def review(path: Path, say: Callable[[str], None], nodes: int = REVIEW_NODES) -> Path | None:
    """Analyse the game of ``path``, print what a player reads, write the analysed game; its path."""
    from jitfish.analysis.cli import default_output
    from jitfish.analysis.games import COUNTED, analyse, write_pgn

    results = analyse(str(path), nodes=nodes, say=say)
    result = results[0]
    if result.error is not None or result.game is None:
        say(f"error: {result.error}")
        return None
    say(result.summary())
    board = result.game.board()
    words = {nag: word for nag, word, _ in COUNTED}
    for move, node in zip(result.moves, result.game.mainline()):
        before = board.copy()
        board.push(node.move)
        if move.nag is None or move.nag not in words:
            continue
        line = _numbered(before, move.best_line)
        say(f"  {move.label}{ANNOTATION[words[move.nag]]} {words[move.nag]}; better: {line}")
    output = default_output(str(path))
    output.write_text(write_pgn(results))
    say(f"Analysed game written to {output} (jitfish analyse {path} --nodes 1000000 looks deeper)")
    return output


def _numbered(board: chess.Board, sans: list[str]) -> str:
    """A line of SAN moves with move numbers, from ``board``."""
    after, moves = board.copy(), []
    for san in sans[:6]:
        moves.append(after.push_san(san))
    return board.variation_san(moves) if moves else "-"
