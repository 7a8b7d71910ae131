"""The board as text: from either side, Unicode or ASCII, the last move marked, colour only where wanted, a
narrow terminal's board."""

from __future__ import annotations

import io

import chess

from jitfish.play.drawing import draw_board, wants_colour


def after(*sans: str) -> chess.Board:
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def test_the_start_from_whites_side_with_coordinates_on_the_edges():
    lines = draw_board(chess.Board()).splitlines()
    assert lines[0].split() == list("abcdefgh") == lines[-1].split()
    assert lines[1].split() == ["8", *"♜♞♝♛♚♝♞♜", "8"]
    assert lines[8].split() == ["1", *"♖♘♗♕♔♗♘♖", "1"]
    assert lines[4].split() == ["5", *"········", "5"]


def test_from_blacks_side_in_ascii():
    lines = draw_board(chess.Board(), white_bottom=False, unicode=False).splitlines()
    assert lines[0].split() == list("hgfedcba")
    assert lines[1].split() == ["1", *"RNBKQBNR", "1"]
    assert lines[8].split() == ["8", *"rnbkqbnr", "8"]


def test_the_last_move_is_marked_on_both_squares():
    text = draw_board(after("e4", "Nf6"), unicode=False)
    assert " 6  .  .  .  .  . [n] .  .  6" in text.splitlines()
    assert " 8  r  n  b  q  k  b [.] r  8" in text.splitlines()
    assert text.count("[") == 2


def test_a_narrow_terminal_gets_a_board_of_two_columns_a_square():
    lines = draw_board(after("e4"), unicode=False, width=24).splitlines()
    assert len(lines) == 9 and max(len(line) for line in lines) <= 20
    assert lines[4] == " 4 . . . . P*. . . "
    assert lines[-1].split() == list("abcdefgh")


def test_colour_draws_squares_and_plain_text_has_no_escape():
    assert "\x1b[" in draw_board(after("e4"), colour=True)
    assert "\x1b[" not in draw_board(after("e4"))


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color():
    assert wants_colour(Tty(), {"TERM": "xterm"})
    assert not wants_colour(Tty(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not wants_colour(Tty(), {"TERM": "dumb"})
    assert not wants_colour(io.StringIO(), {"TERM": "xterm"})
