"""The board as text: Unicode pieces (or ASCII letters), from the player's side, coordinates on the edges,
the last move marked; coloured squares on a terminal that takes colour, plain text elsewhere.

Plain text marks the last move's squares with brackets (``[♞]``); colour marks them with a brighter square.
A terminal narrower than :data:`WIDE_BOARD` columns gets a board of two-column squares, coordinates on the
left and bottom only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO

import chess

# A square is three columns wide (`` ♞ ``): with the coordinates on both sides the board is 30 columns.
WIDE_BOARD = 30
# Both sides drawn with the solid glyphs on coloured squares; in plain text White's pieces are the hollow ones.
SOLID = dict(zip("pnbrqk", "♟♞♝♜♛♚"))
EMPTY = {True: "·", False: "."}  # Unicode, ASCII
# 256-colour backgrounds: light and dark squares, and the same for the last move's squares.
LIGHT, DARK, LIGHT_MOVED, DARK_MOVED = 180, 137, 186, 143
WHITE_PIECE, BLACK_PIECE = 231, 16
RESET = "\x1b[0m"


def wants_colour(stream: IO[str], environ: Mapping[str, str] | None = None) -> bool:
    """Colour only on a terminal, unless ``NO_COLOR`` is set (https://no-color.org) or ``TERM`` is dumb."""
    environ = os.environ if environ is None else environ
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def glyph(piece: chess.Piece | None, unicode: bool, colour: bool) -> str:
    """One character for a square's content."""
    if piece is None:
        return " " if colour else EMPTY[unicode]
    if not unicode:
        return piece.symbol()
    return SOLID[piece.symbol().lower()] if colour else piece.unicode_symbol()


def draw_board(
    board: chess.Board,
    *,
    white_bottom: bool = True,
    unicode: bool = True,
    colour: bool = False,
    width: int = 80,
) -> str:
    """The board as lines of text, ``white_bottom`` or from Black's side, the last move of ``board``'s
    stack marked; ``width``: the terminal's columns."""
    last = board.peek() if board.move_stack else None
    marked = {last.from_square, last.to_square} if last is not None else set()
    wide = width >= WIDE_BOARD
    files = range(8) if white_bottom else range(7, -1, -1)
    ranks = range(7, -1, -1) if white_bottom else range(8)
    cell = 3 if wide else 2
    letters = "".join(chess.FILE_NAMES[file].center(cell) if wide else f"{chess.FILE_NAMES[file]} " for file in files)
    edge = f"   {letters}".rstrip()
    lines = [edge] if wide else []
    for rank in ranks:
        row = []
        for file in files:
            square = chess.square(file, rank)
            text = glyph(board.piece_at(square), unicode, colour)
            row.append(_square(text, board.piece_at(square), square in marked, (file + rank) % 2 == 1, wide, colour))
        label = str(rank + 1)
        lines.append(f" {label} {''.join(row)}" + (f" {label}" if wide else ""))
    lines.append(edge)
    return "\n".join(lines)


def _square(text: str, piece: chess.Piece | None, moved: bool, light: bool, wide: bool, colour: bool) -> str:
    if colour:
        background = (LIGHT_MOVED if moved else LIGHT) if light else (DARK_MOVED if moved else DARK)
        foreground = WHITE_PIECE if piece is not None and piece.color == chess.WHITE else BLACK_PIECE
        body = f" {text} " if wide else f"{text} "
        return f"\x1b[48;5;{background};38;5;{foreground}m{body}{RESET}"
    if wide:
        return f"[{text}]" if moved else f" {text} "
    return f"{text}*" if moved else f"{text} "
