"""``jitfish.analyse`` on real games: the PGN it writes reads back whole, and its figures are reproducible."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import chess
import chess.engine
import chess.pgn
import pytest

import jitfish
from jitfish.analysis.games import write_pgn

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "analyse" / "sunfish-jitfish.pgn"
NODES = 5_000  # small: these tests check the writing, not the judgement (tests/analysis/test_stockfish.py does)


def read(text: str) -> list[chess.pgn.Game]:
    handle, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        assert game.errors == []
        games.append(game)
    return games


@pytest.fixture(scope="module")
def shipped():
    return jitfish.analyse(SHIPPED, nodes=NODES)[0]


def test_the_output_reads_back_with_every_comment_intact(shipped):
    (original,) = read(SHIPPED.read_text())
    (written,) = read(shipped.pgn())
    assert dict(written.headers) == dict(original.headers)
    assert list(written.mainline_moves()) == list(original.mainline_moves())
    assert "Analysed by Jitfish" in written.comment and "Accuracy" in written.comment
    for before, after, move in zip(original.mainline(), written.mainline(), shipped.moves, strict=True):
        assert before.comment in after.comment  # the engine's own "-0.26/12 0.212s"
        if move.score is None:
            assert after.eval() is None and after.board().is_checkmate()
        else:
            assert after.eval() is not None and after.eval().white() == move.score.white()
        if move.nag is None:
            assert after.nags == set() and len(after.parent.variations) == 1
        else:
            assert after.nags == {move.nag}
            word = {6: "Inaccuracy", 2: "Mistake", 4: "Blunder"}[move.nag]
            assert f"{word}. {move.best_san} was best." in after.comment
            best = after.parent.variations[1]
            assert best.san() == move.best_san and best.san() != after.san()
            assert [best.san()] + [node.san() for node in best.mainline()] == move.best_line


def test_the_moves_are_judged_from_the_searches(shipped):
    assert len(shipped.moves) == 35 and shipped.moves[0].label == "1... cxd4"
    for move, after in zip(shipped.moves, shipped.moves[1:]):
        assert after.chances_before == move.chances_after
    for move in shipped.moves:
        sign = 1 if move.white else -1
        assert move.loss == pytest.approx(sign * (move.chances_before - move.chances_after) / 100)
    assert shipped.moves[-1].score is None and shipped.moves[-1].chances_after == 0.0  # 18... Qxh2#
    assert 0 <= shipped.white_accuracy <= 100 and 0 <= shipped.black_accuracy <= 100


def test_figures_are_reproducible_with_a_node_budget_on_any_number_of_workers(shipped):
    again = jitfish.analyse(SHIPPED, nodes=NODES)[0]
    spread = jitfish.analyse(SHIPPED, nodes=NODES, workers=2)[0]
    assert again.pgn() == shipped.pgn() == spread.pgn()
    assert (again.white_accuracy, again.black_accuracy) == (shipped.white_accuracy, shipped.black_accuracy)
    assert (spread.white_accuracy, spread.black_accuracy) == (shipped.white_accuracy, shipped.black_accuracy)


def test_an_analysed_game_analysed_again_is_the_same_text(shipped, tmp_path):
    path = tmp_path / "analysed.pgn"
    path.write_text(shipped.pgn())
    assert jitfish.analyse(path, nodes=NODES)[0].pgn() == shipped.pgn()


def test_a_mate_allowed_is_a_blunder_and_mates_read_as_certain(tmp_path):
    path = tmp_path / "scholar.pgn"
    path.write_text("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n")
    (game,) = jitfish.analyse(path, nodes=20_000)
    nf6, mate = game.moves[-2:]
    assert nf6.label == "3... Nf6" and nf6.nag == 4 and nf6.chances_after == 100.0
    assert nf6.score.white() == chess.engine.Mate(1)
    assert nf6.best_san in ("g6", "Qe7", "Qf6")
    assert mate.score is None and mate.chances_after == 100.0 and mate.nag is None
    title, white, black = game.summary().splitlines()
    assert title == "game 1, 1-0" and white.startswith("  White: accuracy ")  # no players in the tags
    # Whether 1... e5 or 2... Nc6 is an inaccuracy is the network's opinion (J-1 marks one, I-1 marked none).
    opening = "(0 inaccuracies|1 inaccuracy)"
    accuracy = re.escape(f"{game.black_accuracy:.1f}")
    blunder = re.escape("1 blunder (3... Nf6)")
    assert re.fullmatch(rf"  Black: accuracy {accuracy} %, {opening}, 0 mistakes, {blunder}", black), black
    (written,) = read(game.pgn())
    assert list(written.mainline())[-2].comment == "[%eval #1] Blunder. " + nf6.best_san + " was best."


def test_nothing_of_a_game_is_lost(tmp_path):
    text = (
        '[Event "club"]\n[White "Ann"]\n[Black "Bob"]\n[Result "1-0"]\n[Annotator "Coach"]\n\n'
        "{ Played on Tuesday. } 1. e4 { [%clk 0:10:00] King's pawn. } 1... e5 $1 2. Bc4 (2. Nf3 Nc6) 2... Nc6 "
        "3. Qh5 Nf6 4. Qxf7# 1-0\n"
    )
    path = tmp_path / "club.pgn"
    path.write_text(text)
    (written,) = read(jitfish.analyse(path, nodes=NODES)[0].pgn())
    assert written.headers["Annotator"] == "Coach" and written.headers["Event"] == "club"
    assert written.comment.startswith("Played on Tuesday. Analysed by Jitfish")
    e4 = written.next()
    assert "[%clk 0:10:00]" in e4.comment and "King's pawn." in e4.comment and e4.clock() == 600
    assert e4.next().nags == {chess.pgn.NAG_GOOD_MOVE}
    nf3 = e4.next().variations[1]
    assert [nf3.san()] + [node.san() for node in nf3.mainline()] == ["Nf3", "Nc6"]


def test_a_bad_game_is_kept_as_it_was_and_the_others_analysed(tmp_path):
    bad = '[Event "broken"]\n[White "Carl"]\n[Black "Dora"]\n\n1. d4 d5 2. Ke3 *'
    path = tmp_path / "three.pgn"
    path.write_text(f"1. e4 e5 *\n\n{bad}\n\n1. d4 Nf6 *\n")
    with pytest.raises(ValueError, match=r"^game 2 \(Carl - Dora\): 2\. Ke3 is not a legal move$"):
        jitfish.analyse(path, nodes=NODES)
    games = jitfish.analyse(path, nodes=NODES, skip_bad_games=True)
    assert [game.error for game in games] == [None, "game 2 (Carl - Dora): 2. Ke3 is not a legal move", None]
    assert games[1].game is None and games[1].moves == []
    text = write_pgn(games)
    assert bad in text
    handle, lengths = io.StringIO(text), []
    while (game := chess.pgn.read_game(handle)) is not None:
        lengths.append(len(list(game.mainline_moves())))
    assert lengths == [2, 2, 2]  # the broken game as python-chess reads it: up to its illegal move


def test_a_chess960_game_with_castling(tmp_path):
    fen = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1"
    board = chess.Board(fen, chess960=True)
    game = chess.pgn.Game.from_board(board)
    for san in ["Nh3", "Nh6", "O-O", "O-O"]:  # the king takes its rook on f1: e1f1 in UCI
        game.end().add_main_variation(game.end().board().parse_san(san))
    path = tmp_path / "960.pgn"
    path.write_text(str(game))
    (analysed,) = jitfish.analyse(path, nodes=NODES)
    assert [move.san for move in analysed.moves][-2:] == ["O-O", "O-O"]
    (written,) = read(analysed.pgn())
    assert written.board().chess960 and written.end().board().fen() == game.end().board().fen()


@pytest.mark.parametrize(
    "limits, message",
    [
        ({"nodes": 0}, "nodes must be at least 1, got 0"),
        ({"depth": 0}, "depth must be between 1 and"),
        ({"movetime": -1.0}, "movetime must be positive, got -1.0"),
        ({"workers": 0}, "workers must be at least 1, got 0"),
    ],
)
def test_bad_limits(limits, message):
    with pytest.raises(ValueError, match=message):
        jitfish.analyse(SHIPPED, **limits)


def test_analyse_is_public_and_loads_on_first_use():
    checks = "'jitfish.analysis' not in sys.modules and 'analyse' in jitfish.__all__ and 'analyse' in dir(jitfish)"
    code = f"import sys, jitfish; assert {checks}; assert callable(jitfish.analyse)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
