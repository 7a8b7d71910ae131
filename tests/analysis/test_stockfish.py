"""The blunders ``jitfish analyse`` marks at its default budget are the ones a deeper search marks.

The reference is Stockfish at depth 16 (one thread, a cleared 64 MiB table per position) whose scores go
through the very same judgement (:func:`jitfish.analysis.report.judge_game`: the WDL model, the same
thresholds): only the search differs.  The tolerance: every move either search calls a blunder (``??``),
the other calls a blunder or a mistake (``?``).  On the shipped game both mark 12. Qb7 alone as a blunder
(2026-12, Stockfish 15.1; docs/analyse.md has the table).  About a minute on a busy two-core machine.
"""

from __future__ import annotations

from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

import jitfish
from jitfish.analysis.judge import NAG_BLUNDER, NAG_MISTAKE
from jitfish.analysis.report import judge_game
from jitfish.analysis.searching import Evaluation
from tests.extras import needs_program, program_path

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "analyse" / "sunfish-jitfish.pgn"
STOCKFISH = program_path("stockfish")
REFERENCE_DEPTH = 16


def reference_evaluations(game: chess.pgn.Game) -> list[Evaluation]:
    """Stockfish's search of every position of the game, in the form ``judge_game`` takes."""
    board = game.board()
    boards = [board.copy()]
    for move in game.mainline_moves():
        board.push(move)
        boards.append(board.copy())
    evaluations = []
    with chess.engine.SimpleEngine.popen_uci(STOCKFISH) as engine:
        engine.configure({"Threads": 1, "Hash": 64})
        for position in boards:
            if position.is_checkmate():
                evaluations.append(Evaluation(None, 0, (), 0, 0))
                continue
            info = engine.analyse(position, chess.engine.Limit(depth=REFERENCE_DEPTH), game=object())
            score = info["score"].relative
            pv = tuple(move.uci() for move in info.get("pv", []))
            evaluations.append(Evaluation(score.score(), score.mate(), pv, REFERENCE_DEPTH, info.get("nodes", 0)))
    return evaluations


def marks(moves, nags) -> set[str]:
    return {move.label for move in moves if move.nag in nags}


@pytest.mark.slow
@needs_program("stockfish")
def test_the_blunders_agree_with_stockfish_at_depth_16():
    game = chess.pgn.read_game(SHIPPED.open())
    reference = judge_game(game, reference_evaluations(game))
    (analysed,) = jitfish.analyse(SHIPPED)  # the default budget
    ours = analysed.moves
    assert [move.label for move in ours] == [move.label for move in reference]
    reference_blunders = marks(reference, {NAG_BLUNDER})
    our_blunders = marks(ours, {NAG_BLUNDER})
    assert reference_blunders, "the shipped game must have a blunder to find"
    assert reference_blunders <= marks(ours, {NAG_BLUNDER, NAG_MISTAKE})
    assert our_blunders <= marks(reference, {NAG_BLUNDER, NAG_MISTAKE})
    assert "12. Qb7" in reference_blunders & our_blunders
