"""A game's searches read as a player reads them: each move's evaluation, loss and mark, written into the PGN.

Each move gets ``[%eval …]`` (White's view, after the move, as Lichess writes it: pawns, or ``#N`` for a
mate), and a move that lost ground (a NAG of :mod:`jitfish.analysis.judge`) gets the NAG, a sentence
(``Mistake. Nf3 was best.``) and the search's best line as a variation.  What the game had is kept: its
tags, comments (a previous ``[%eval]`` is replaced), NAGs other than a move assessment, and variations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import chess
import chess.engine
import chess.pgn

from jitfish._version import __version__
from jitfish.analysis.judge import WORD_OF_NAG, game_accuracy, verdict, winning_chances
from jitfish.analysis.searching import Evaluation
from jitfish.engine.wdl import material_of_fen

BEST_LINE_PLIES = 10  # the length of a best line written as a variation
MOVE_ASSESSMENTS = range(1, 7)  # $1..$6: !, ?, !!, ??, !?, ?!
_ADVICE = re.compile(r"\s*(Inaccuracy|Mistake|Blunder)\. \S+ was best\.")
_NOTE = re.compile(r"\s*Analysed by Jitfish .*? model\): White (-|[\d.]+ %), Black (-|[\d.]+ %)\.")


@dataclass
class MoveAnalysis:
    """One move of the game as the analysis judged it (chances in per cent, White's view)."""

    ply: int  # from 0, in the game's moves
    move_number: int
    white: bool  # White made the move
    san: str
    score: chess.engine.PovScore | None  # the position after the move (None: mate on the board)
    chances_before: float
    chances_after: float
    loss: float  # the mover's drop in expected score (0 to 1; negative: it gained)
    nag: int | None  # ?! $6, ? $2, ?? $4, or None
    best_san: str | None  # the search's choice before the move
    best_line: list[str]  # its line, SAN

    @property
    def label(self) -> str:
        return f"{self.move_number}{'.' if self.white else '...'} {self.san}"


def _score(evaluation: Evaluation, turn: chess.Color) -> chess.engine.PovScore | None:
    if evaluation.score_mate is not None:
        if evaluation.score_mate == 0:
            return None
        return chess.engine.PovScore(chess.engine.Mate(evaluation.score_mate), turn)
    return chess.engine.PovScore(chess.engine.Cp(evaluation.score_cp or 0), turn)


def _white_chances(board: chess.Board, evaluation: Evaluation) -> float:
    chances = winning_chances(evaluation.score_cp, evaluation.score_mate, material_of_fen(board.fen()))
    return 100 * (chances if board.turn == chess.WHITE else 1 - chances)


def legal_line(board: chess.Board, pv: Sequence[str]) -> list[chess.Move]:
    """The legal prefix of a line of UCI moves from ``board``, as moves: it stops before the first move that
    is not legal there (a weakened pick's line, or a line from another position)."""
    board = board.copy(stack=False)
    moves = []
    for uci in pv:
        try:
            move = board.parse_uci(uci)
        except ValueError:
            break
        moves.append(move)
        board.push(move)
    return moves


def _sans(board: chess.Board, moves: list[chess.Move]) -> list[str]:
    board = board.copy(stack=False)
    sans = []
    for move in moves:
        sans.append(board.san(move))
        board.push(move)
    return sans


def judge_game(game: chess.pgn.Game, evaluations: list[Evaluation]) -> list[MoveAnalysis]:
    """The mainline's moves judged from the searches of every position (``len(moves) + 1`` of them)."""
    board = game.board()
    chances = [_white_chances(board, evaluations[0])]
    analysed = []
    for ply, move in enumerate(game.mainline_moves()):
        before = evaluations[ply]
        best = legal_line(board, before.pv[:BEST_LINE_PLIES])
        number, white, san = board.fullmove_number, board.turn == chess.WHITE, board.san(move)
        best_san = board.san(best[0]) if best else None
        best_line = _sans(board, best)
        board.push(move)
        chances.append(_white_chances(board, evaluations[ply + 1]))
        loss = (chances[-2] - chances[-1]) / 100 * (1 if white else -1)
        analysed.append(
            MoveAnalysis(
                ply,
                number,
                white,
                san,
                _score(evaluations[ply + 1], board.turn),
                chances[-2],
                chances[-1],
                loss,
                verdict(loss, best_played=bool(best) and best[0] == move),
                best_san,
                best_line,
            )
        )
    return analysed


def accuracies(game: chess.pgn.Game, moves: list[MoveAnalysis]) -> tuple[float | None, float | None]:
    """(White's, Black's) accuracy, per cent (:func:`jitfish.analysis.judge.game_accuracy`)."""
    if not moves:
        return None, None
    chances = [moves[0].chances_before] + [move.chances_after for move in moves]
    return game_accuracy(chances, game.board().turn == chess.WHITE)


def percent(value: float | None) -> str:
    """``84.1 %``, or ``-`` for a side without a move."""
    return "-" if value is None else f"{value:.1f} %"


def analysis_note(budget: str, white: float | None, black: float | None) -> str:
    """The game's comment: who analysed it, how deep, and each side's accuracy."""
    return (
        f"Analysed by Jitfish {__version__}, {budget}. Accuracy (Lichess's formula on Jitfish's WDL model): "
        f"White {percent(white)}, Black {percent(black)}."
    )


def annotate(game: chess.pgn.Game, moves: list[MoveAnalysis], summary: str) -> None:
    """Write the analysis into ``game``'s mainline: evals, NAGs, sentences, best lines, and ``summary`` as the
    game's comment (after any the game had).  A previous analysis's evals, sentences and summary are replaced,
    so that analysing an analysed game again gives the same text."""
    for node, move in zip(game.mainline(), moves):
        node.set_eval(None)  # a previous analysis's
        parts = [_ADVICE.sub("", node.comment).strip()]
        if move.nag is not None:
            node.nags = {nag for nag in node.nags if nag not in MOVE_ASSESSMENTS} | {move.nag}
            parts.insert(0, f"{WORD_OF_NAG[move.nag]}. {move.best_san} was best.")
            _add_best_line(node, move)
        node.comment = ""
        node.set_eval(move.score)
        node.comment = " ".join(part for part in [node.comment, *parts] if part)
    game.comment = f"{_NOTE.sub('', game.comment).strip()} {summary}".strip()


def _add_best_line(node: chess.pgn.ChildNode, move: MoveAnalysis) -> None:
    """The best line as a variation of the move, unless the game has one that starts with its first move."""
    parent = node.parent
    board = parent.board()
    line = []
    for san in move.best_line:
        line.append(board.push_san(san))
    if line and not parent.has_variation(line[0]):
        parent.add_variation(line[0]).add_line(line[1:])
