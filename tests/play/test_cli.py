"""``jitfish play``'s options: each bad one is one ``error:`` line and exit status 2, before any engine loads;
good ones become the game's set-up."""

from __future__ import annotations

import argparse

import chess
import pytest

from jitfish.cli import build_parser, main
from jitfish.play.cli import setup_from


def parsed(*args: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", *args])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--elo", "3000"], "error: --elo must be between 825 and 2270 (the calibrated levels), got 3000"),
        (["--elo", "strong"], "error: --elo must be a whole number, got 'strong'"),
        (["--color", "green"], "error: --color must be white, black or random, got 'green'"),
        (["--tc", "5-3"], "error: --tc: time control must be MINUTES+SECONDS such as 5+3, got '5-3'"),
        (["--movetime", "0"], "error: --movetime must be positive, got 0"),
        (["--movetime", "soon"], "error: --movetime must be a number, got 'soon'"),
        (["--fen", "not a fen"], "error: bad FEN: "),
        (["--fen", "4k3/8/8/8/8/8/8/8 w - - 0 1"], "error: the FEN is not a legal position (no white king"),
        (["--pgn", "/nonexistent/game.pgn"], "error: cannot read /nonexistent/game.pgn: "),
        (["--save", "/nonexistent/folder/game.pgn"], "error: --save: the folder /nonexistent/folder does not exist"),
    ],
)
def test_a_bad_option_is_one_line_and_status_2(capsys, args, message):
    assert main(["play", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message) and captured.err.count("\n") == 1 and captured.out == ""


def test_a_pgn_without_a_game_is_refused(tmp_path, capsys):
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    assert main(["play", "--pgn", str(empty)]) == 2
    assert capsys.readouterr().err == f"error: {empty} holds no game\n"


def test_the_defaults_are_white_at_full_strength_from_the_start():
    setup = setup_from(parsed(), stdout_colour=False)
    assert setup.board == chess.Board() and setup.human == chess.WHITE
    assert (setup.elo, setup.control, setup.movetime, setup.unicode, setup.save_path) == (None, None, None, True, None)


def test_a_position_or_a_game_is_played_by_the_side_to_move(tmp_path):
    fen = "k7/8/1K6/8/8/8/8/7R b - - 0 1"
    assert setup_from(parsed("--fen", fen), False).human == chess.BLACK
    game = tmp_path / "game.pgn"
    game.write_text('[Event "x"]\n\n1. e4 e5 2. Nf3 *\n')
    setup = setup_from(parsed("--pgn", str(game), "--color", "white", "--elo", "825", "--tc", "5+3", "--ascii"), False)
    assert [move.uci() for move in setup.board.move_stack] == ["e2e4", "e7e5", "g1f3"]
    assert setup.human == chess.WHITE and setup.elo == 825 and setup.control.base == 300 and not setup.unicode
    assert setup_from(parsed("--color", "random"), False).human in (chess.WHITE, chess.BLACK)
