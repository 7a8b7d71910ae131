"""How a game ends, in words, and the game as PGN: the level and the clocks in its tags, each move's clock.

The rules are python-chess's: :func:`board_ending` reads checkmate, stalemate, insufficient material, the
fifty-move rule and threefold repetition (a draw that may be claimed is taken as soon as the position is
there, as a GUI takes it), and a flag
falls to a draw when the side with time left cannot mate (:func:`time_ending`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

from jitfish._version import __version__

ENGINE_NAME = f"Jitfish {__version__}"
PLAYER_NAME = "You"
# python-chess's terminations, in words.
DRAWS = {
    chess.Termination.STALEMATE: "stalemate",
    chess.Termination.INSUFFICIENT_MATERIAL: "insufficient material",
    chess.Termination.SEVENTYFIVE_MOVES: "the seventy-five-move rule",
    chess.Termination.FIVEFOLD_REPETITION: "fivefold repetition",
    chess.Termination.FIFTY_MOVES: "the fifty-move rule",
    chess.Termination.THREEFOLD_REPETITION: "threefold repetition",
}


@dataclass(frozen=True)
class Ending:
    """The result (``1-0``, ``0-1``, ``1/2-1/2``, ``*``), the sentence for the player, and the PGN
    ``Termination`` tag."""

    result: str
    words: str
    termination: str = "normal"


def _winner(color: chess.Color, human: chess.Color) -> str:
    return "you win" if color == human else "Jitfish wins"


def _result(winner: chess.Color | None) -> str:
    return "1/2-1/2" if winner is None else ("1-0" if winner == chess.WHITE else "0-1")


def board_ending(board: chess.Board, human: chess.Color) -> Ending | None:
    """The end the position itself brings (``None``: the game goes on)."""
    outcome = board.outcome()  # checkmate, stalemate, insufficient material, 75 moves, fivefold repetition
    if outcome is None:
        # A draw that may be claimed is taken once it is there (python-chess's claim would also count a
        # repetition one move away, which a GUI leaves to the player).
        if board.is_repetition(3):
            outcome = chess.Outcome(chess.Termination.THREEFOLD_REPETITION, None)
        elif board.is_fifty_moves():
            outcome = chess.Outcome(chess.Termination.FIFTY_MOVES, None)
        else:
            return None
    if outcome.winner is not None:
        return Ending(outcome.result(), f"Checkmate: {_winner(outcome.winner, human)}, {outcome.result()}.")
    return Ending("1/2-1/2", f"Draw by {DRAWS[outcome.termination]}, 1/2-1/2.")


def time_ending(board: chess.Board, flagged: chess.Color, human: chess.Color) -> Ending:
    """``flagged``'s time ran out: the other side wins, unless it has not the material to mate."""
    who = "Your" if flagged == human else "Jitfish's"
    other = not flagged
    if board.has_insufficient_material(other):
        cannot = "you cannot" if other == human else "Jitfish cannot"
        return Ending("1/2-1/2", f"{who} time ran out, but {cannot} mate: draw, 1/2-1/2.", "time forfeit")
    result = _result(other)
    return Ending(result, f"{who} time ran out: {_winner(other, human)} on time, {result}.", "time forfeit")


def resignation(human: chess.Color, quit_game: bool = False) -> Ending:
    """The player resigned (or quit the game, which loses it)."""
    result = _result(not human)
    how = "You left the game" if quit_game else "You resigned"
    return Ending(result, f"{how}: Jitfish wins, {result}.", "abandoned" if quit_game else "normal")


def draw_agreed() -> Ending:
    return Ending("1/2-1/2", "Draw agreed, 1/2-1/2.")


def unfinished() -> Ending:
    return Ending("*", "The game was left unfinished.", "unterminated")


@dataclass(frozen=True)
class GameInfo:
    """What the PGN's tags say beside the moves: who played which side, the level, the clocks."""

    human: chess.Color
    elo: int | None  # Jitfish's UCI_Elo; None: full strength
    time_control: str  # the PGN TimeControl tag: "300+3", or "-" without clocks
    movetime: float | None = None  # Jitfish's seconds a move without clocks
    date: datetime.datetime | None = None


def game_pgn(
    board: chess.Board, ending: Ending, info: GameInfo, clocks: list[float | None] | None = None
) -> chess.pgn.Game:
    """The game of ``board``'s moves from its root, tagged; ``clocks``: the mover's clock after each move
    (seconds, ``None`` where unknown), written as ``[%clk]`` comments."""
    game = chess.pgn.Game.from_board(board)
    date = info.date or datetime.datetime.now()
    engine = ENGINE_NAME if info.elo is None else f"{ENGINE_NAME} (UCI_Elo {info.elo})"
    white, black = (PLAYER_NAME, engine) if info.human == chess.WHITE else (engine, PLAYER_NAME)
    headers = game.headers
    headers["Event"] = "Casual game (jitfish play)"
    headers["Site"] = "jitfish play"
    headers["Date"] = date.strftime("%Y.%m.%d")
    headers["Round"] = "-"
    headers["White"], headers["Black"] = white, black
    headers["Result"] = ending.result
    if info.elo is not None:
        headers["WhiteElo" if info.human == chess.BLACK else "BlackElo"] = str(info.elo)
    headers["TimeControl"] = info.time_control
    headers["Termination"] = ending.termination
    headers["JitfishLevel"] = "full strength" if info.elo is None else f"UCI_Elo {info.elo}"
    if info.movetime is not None:
        headers["JitfishMovetime"] = f"{info.movetime:g}"
    if clocks:
        for node, seconds in zip(game.mainline(), clocks):
            if seconds is not None:
                node.set_clock(max(seconds, 0.0))
    return game


def default_path(now: datetime.datetime | None = None, folder: Path | None = None) -> Path:
    """``jitfish-2026-12-07-1750.pgn`` in the current folder (a number added if it exists)."""
    now = now or datetime.datetime.now()
    folder = Path.cwd() if folder is None else folder
    stem = f"jitfish-{now:%Y-%m-%d-%H%M}"
    path = folder / f"{stem}.pgn"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.pgn"
        number += 1
    return path


def save(game: chess.pgn.Game, path: Path) -> None:
    """Write the game (one game a file; an existing file is replaced)."""
    path.write_text(str(game) + "\n")
