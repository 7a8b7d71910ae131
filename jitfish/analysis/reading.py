"""A PGN file read for analysis: every game with its original text, or the one line that says what is wrong.

python-chess's reader collects what it cannot read in ``game.errors`` and goes on; here each game is
checked before any search starts, so that a bad file is reported at once.  A problem of the file (empty,
binary, no game in it) raises ``ValueError``; a problem of one game (an illegal, ambiguous or malformed
move, a bad ``FEN`` tag, a variant other than Chess960, no move at all) is that game's ``error``, a
line naming the game (its number in the file and its players) and the move (number and SAN).
"""

from __future__ import annotations

import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import chess
import chess.pgn

PgnSource = str | os.PathLike[str] | TextIO


@dataclass
class PgnGame:
    """One game of the file: its number (from 1), the text it was read from, and the game or its error."""

    number: int
    text: str
    game: chess.pgn.Game | None
    error: str | None = None

    @property
    def name(self) -> str:
        """``game 2 (Alice - Bob)``: the number, and the players when the tags name them."""
        headers = self.game.headers if self.game is not None else {}
        players = [headers.get(side, "?") for side in ("White", "Black")]
        return f"game {self.number}" + (f" ({players[0]} - {players[1]})" if players != ["?", "?"] else "")


def move_name(board: chess.Board, san: str) -> str:
    """``12. Nf3`` or ``12... Nf6``: a move as a reader finds it in the score sheet."""
    return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'} {san}"


class _Builder(chess.pgn.GameBuilder[chess.pgn.Game]):
    """python-chess's game builder, quiet (no log line per error), noting the first unreadable move."""

    def begin_game(self) -> None:
        super().begin_game()
        self.tags = 0
        self.problem: str | None = None

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags += 1
        super().visit_header(tagname, tagvalue)

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return board.parse_san(san)
        except chess.AmbiguousMoveError:
            self._note(f"{move_name(board, san)} is ambiguous")
            raise
        except chess.IllegalMoveError:
            self._note(f"{move_name(board, san)} is not a legal move")
            raise
        except ValueError:
            self._note(f"{move_name(board, san)} is not a move")
            raise

    def _note(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem + (" (in a variation)" if len(self.variation_stack) > 1 else "")

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _game_error(game: chess.pgn.Game, builder: _Builder) -> str | None:
    """What keeps ``game`` from being analysed, or None."""
    if game.errors:
        return builder.problem or f"cannot be read: {game.errors[0]}"
    try:
        board = game.board()
    except ValueError as error:
        return f"its FEN tag is not a position: {error}"
    if board.uci_variant != "chess":
        return f"its variant ({game.headers.get('Variant')}) is not one Jitfish plays"
    if game.next() is None:
        return "has no move to analyse"
    return None


def _read_text(source: PgnSource) -> tuple[str, str]:
    """The file's text and the name to show for it."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise ValueError(f"{path}: {error.strerror or error}") from None
        label = str(path)
    else:
        text = source.read()
        data = text.encode() if isinstance(text, str) else text
        label = getattr(source, "name", "the PGN")
    if b"\0" in data:
        raise ValueError(f"{label} is not a PGN file: it is binary")
    try:
        return data.decode("utf-8-sig"), str(label)
    except UnicodeDecodeError:
        return data.decode("latin-1"), str(label)  # the PGN standard's own character set


def read_games(source: PgnSource) -> list[PgnGame]:
    """Every game of a PGN file (a path or an open text file), each checked; ``ValueError`` when the file
    itself is unreadable, empty or not PGN at all."""
    text, label = _read_text(source)
    if not text.strip():
        raise ValueError(f"{label} is empty: there is no game to analyse")
    handle = io.StringIO(text)
    games: list[PgnGame] = []
    builders: list[_Builder] = []
    readable = False

    def builder() -> _Builder:
        builders.append(_Builder())
        return builders[-1]

    while True:
        start = handle.tell()
        game = chess.pgn.read_game(handle, Visitor=builder)
        if game is None:
            break
        entry = PgnGame(len(games) + 1, text[start : handle.tell()], game)
        made = builders[-1]
        if made.tags == 0 and game.next() is None and not game.errors:
            entry.error = "is not PGN: no tag and no move in " + repr(entry.text.strip()[:40])
        else:
            readable = True
            entry.error = _game_error(game, made)
        games.append(entry)
    if not readable:
        raise ValueError(f"{label} is not a PGN file: no tag and no move in it")
    return games
