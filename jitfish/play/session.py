"""The game loop of ``jitfish play``: one prompt, one line back for every mistake, the board redrawn after
each move, and Ctrl-C or Ctrl-D a clean end (the game saved so far) at any moment.

:class:`Session` takes its input and time from outside (``read_line``, ``now``), so that tests drive it
without a terminal; the player's flag falls while they type through ``SIGALRM`` when ``alarms`` is on (the
command line's case), and is otherwise checked when their line comes back.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import IO

import chess

from jitfish.analysis.report import legal_line
from jitfish.engine.turn import GoParams
from jitfish.play.clock import Clock, TimeControl, format_seconds
from jitfish.play.drawing import draw_board
from jitfish.play.ending import (
    Ending,
    GameInfo,
    board_ending,
    default_path,
    draw_agreed,
    game_pgn,
    resignation,
    save,
    time_ending,
    unfinished,
)
from jitfish.play.moves import MoveError, parse_move
from jitfish.play.opponent import Opponent, Thought

DEFAULT_MOVETIME = 1.0  # Jitfish's seconds a move without --tc or --movetime
DRAW_ACCEPT_WIN = 100  # Jitfish takes a draw when its own winning chances are under this (per mille)
HELP = """\
Moves: SAN (e4, Nf3, exd5, O-O, e8=Q) or UCI (e2e4, g1f3, e7e8q).
Commands: undo (take back your last move and Jitfish's), hint (Jitfish's suggestion), eval (its evaluation
and the winning chances), moves (the legal moves), flip (turn the board), draw (offer a draw), resign,
help, quit (leaving the game loses it).  Ctrl-C or Ctrl-D ends the program at once, the game saved so far."""
COMMANDS = ("undo", "hint", "eval", "moves", "flip", "draw", "resign", "help", "quit")


class FlagFell(Exception):
    """The player's time ran out while they were typing."""


@dataclass
class Setup:
    """What the command line chose: the start (a board, maybe with moves), the sides, the level, the time."""

    board: chess.Board
    human: chess.Color
    elo: int | None = None
    control: TimeControl | None = None
    movetime: float | None = None  # Jitfish's seconds a move without clocks (default DEFAULT_MOVETIME)
    unicode: bool = True
    colour: bool = False
    save_path: Path | None = None


@dataclass
class Session:
    """One game between the player and ``opponent``, from ``setup``."""

    setup: Setup
    opponent: Opponent
    read_line: Callable[[str], str] = input
    out: IO[str] = field(default_factory=lambda: sys.stdout)
    now: Callable[[], float] = time.monotonic
    alarms: bool = False  # the player's flag falls while they type (SIGALRM; the main thread only)
    width: Callable[[], int] = lambda: shutil.get_terminal_size().columns
    saved_to: Path | None = None
    ending: Ending | None = None  # how the game ended, once it has

    def __post_init__(self) -> None:
        self.board = self.setup.board.copy()
        self.human = self.setup.human
        self.white_bottom = self.human == chess.WHITE
        self.clock = Clock(self.setup.control, self.now) if self.setup.control is not None else None
        self.clocks: list[float | None] = [None] * len(self.board.move_stack)  # the mover's clock after each move

    # --- output --------------------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def name(self, color: chess.Color) -> str:
        if color == self.human:
            return "You"
        return "Jitfish" if self.setup.elo is None else f"Jitfish ({self.setup.elo})"

    def _player_line(self, color: chess.Color) -> str:
        side = "White" if color == chess.WHITE else "Black"
        text = f"  {self.name(color)}, {side}"
        if self.clock is not None:
            text += f"  {format_seconds(self.clock.left(color))}"
        return text + ("  <- to move" if self.board.turn == color and not self.board.is_game_over() else "")

    def show(self) -> None:
        """The board from the player's side (or flipped), the players and clocks above and below it."""
        top = not self.white_bottom
        self.say()
        self.say(self._player_line(top))
        self.say(
            draw_board(
                self.board,
                white_bottom=self.white_bottom,
                unicode=self.setup.unicode,
                colour=self.setup.colour,
                width=self.width(),
            )
        )
        self.say(self._player_line(not top))
        if self.board.move_stack:
            self.say(f"  Last move: {self._last_move_text()}" + ("  Check!" if self.board.is_check() else ""))

    def _last_move_text(self) -> str:
        board = self.board.copy()
        move = board.pop()
        return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'} {board.san(move)}"

    def _line_text(self, pv: list[str]) -> str:
        """A line of UCI moves from the current position in SAN with move numbers (its legal part)."""
        return self.board.variation_san(legal_line(self.board, pv)) or "-"

    # --- the game ------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Play the game to its end; save it; 0, 130 after Ctrl-C, 1 after an unexpected error."""
        code = 0
        try:
            self.say("Type your move (e4, Nf3, O-O or g1f3) or a command: help lists them.")
            self.show()
            ending = self.play()
        except KeyboardInterrupt:
            self.say()
            ending, code = unfinished(), 130
        except EOFError:
            self.say()
            ending = unfinished()
        except Exception as error:  # a bug: one line for the player, the game kept, status 1
            self.say(f"error: {type(error).__name__}: {error}")
            ending, code = unfinished(), 1
        finally:
            if self.clock is not None:
                self.clock.stop()
        self.finish(ending)
        return code

    def play(self) -> Ending:
        while True:
            ending = board_ending(self.board, self.human)
            if ending is not None:
                return ending
            ending = self.human_turn() if self.board.turn == self.human else self.engine_turn()
            if ending is not None:
                return ending

    def finish(self, ending: Ending) -> None:
        """Say how the game ended and save it."""
        self.ending = ending
        self.say(ending.words)
        info = GameInfo(
            self.human,
            self.setup.elo,
            self.setup.control.pgn() if self.setup.control is not None else "-",
            None if self.setup.control is not None else self._movetime(),
        )
        path = self.setup.save_path or default_path()
        try:
            save(game_pgn(self.board, ending, info, self.clocks), path)
        except OSError as error:
            self.say(f"error: the game could not be saved to {path}: {error.strerror or error}")
            return
        self.saved_to = path
        self.say(f"Game saved to {path}")

    def _movetime(self) -> float:
        return self.setup.movetime if self.setup.movetime is not None else DEFAULT_MOVETIME

    def engine_turn(self) -> Ending | None:
        side = self.board.turn
        if self.clock is not None:
            self.clock.start(side)
            increment = int(self.clock.control.increment * 1000)
            params = GoParams(
                wtime=self.clock.milliseconds(chess.WHITE),
                btime=self.clock.milliseconds(chess.BLACK),
                winc=increment,
                binc=increment,
            )
        else:
            params = GoParams(movetime=int(self._movetime() * 1000))
        self.say("Jitfish is thinking...")
        thought = self.opponent.play(self.board, params)
        if self.clock is not None:
            self.clock.press()
            if self.clock.remaining[side] <= 0:
                return time_ending(self.board, side, self.human)
        if thought.move is None:  # no legal move: the position's end, found next
            return None
        move = chess.Move.from_uci(thought.move)
        if not self.board.is_legal(move):
            move = next(iter(self.board.legal_moves))
        self.push(move)
        self.show()
        return None

    def push(self, move: chess.Move) -> None:
        mover = self.board.turn
        self.board.push(move)
        self.clocks.append(self.clock.left(mover) if self.clock is not None else None)

    def human_turn(self) -> Ending | None:
        """The player's commands until they move (``None``) or the game ends."""
        if self.clock is not None and self.clock.running != self.human:
            self.clock.start(self.human)
        try:
            return self._read_until_moved()
        except FlagFell:
            self.say()
            return time_ending(self.board, self.human, self.human)

    def _read_until_moved(self) -> Ending | None:
        while True:
            line = self.ask(self._prompt())
            if self.clock is not None and self.clock.flagged(self.human):
                return time_ending(self.board, self.human, self.human)
            word = line.strip()
            command = word.lower()
            if command in ("quit", "exit", "q"):
                if self.confirm_quit():
                    return resignation(self.human, quit_game=True) if self._has_moves() else unfinished()
                continue
            if command in COMMANDS:
                ending = self.command(command)
                if ending is not None:
                    return ending
                continue
            try:
                move = parse_move(self.board, word)
            except MoveError as error:
                self.say(str(error))
                continue
            if self.clock is not None:
                self.clock.press()
            self.push(move)
            self.show()
            return None

    def _prompt(self) -> str:
        number = self.board.fullmove_number
        clock = f" {format_seconds(self.clock.left(self.human))}" if self.clock is not None else ""
        return f"{number}{'.' if self.board.turn == chess.WHITE else '...'}{clock} > "

    def _has_moves(self) -> bool:
        return len(self.board.move_stack) > 0

    def ask(self, prompt: str) -> str:
        """A line from the player; :class:`FlagFell` when their time runs out while they type."""
        timed = self.alarms and self.clock is not None and hasattr(signal, "setitimer")  # not on Windows
        if not (timed and self.clock is not None and threading.current_thread() is threading.main_thread()):
            return self.read_line(prompt)
        left = max(self.clock.left(self.human), 0.001)

        def fall(signum: int, frame: FrameType | None) -> None:
            raise FlagFell

        previous = signal.signal(signal.SIGALRM, fall)
        signal.setitimer(signal.ITIMER_REAL, left)
        try:
            return self.read_line(prompt)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)

    def confirm_quit(self) -> bool:
        if not self._has_moves():
            return True
        answer = self.ask("Leave the game? It counts as lost. [y/N] ")
        return answer.strip().lower() in ("y", "yes")

    # --- commands ------------------------------------------------------------------------------------------
    def command(self, command: str) -> Ending | None:
        if command == "help":
            self.say(HELP)
        elif command == "moves":
            self.say("Legal moves: " + " ".join(sorted(self.board.san(move) for move in self.board.legal_moves)))
        elif command == "flip":
            self.white_bottom = not self.white_bottom
            self.show()
        elif command == "undo":
            self.undo()
        elif command == "hint":
            thought = self.opponent.hint(self.board)
            self.say(f"Hint: {self._line_text(thought.pv[:1])} (Jitfish's line: {self._line_text(thought.pv[:8])})")
        elif command == "eval":
            self.say(self.evaluation_text(self.opponent.hint(self.board)))
        elif command == "resign":
            return resignation(self.human)
        elif command == "draw":
            return self.offer_draw()
        return None

    def undo(self) -> None:
        if len(self.board.move_stack) < 2:
            self.say("There is no move pair to take back.")
            return
        for _ in range(2):
            self.board.pop()
            self.clocks.pop()
        self.say("Took back your last move and Jitfish's.")
        self.show()

    def evaluation_text(self, thought: Thought) -> str:
        """The evaluation from the player's side (they are to move), and their chances."""
        if thought.score_mate is not None:
            mate = thought.score_mate
            score = f"you mate in {mate}" if mate > 0 else f"Jitfish mates in {-mate}"
        else:
            score = f"{(thought.score_cp or 0) / 100:+.2f} for you"
        win, draw, loss = thought.wdl
        return (
            f"Evaluation: {score}; your chances: win {win / 10:.0f} %, draw {draw / 10:.0f} %, lose {loss / 10:.0f} %"
            f" (best: {self._line_text(thought.pv[:1])})"
        )

    def offer_draw(self) -> Ending | None:
        thought = self.opponent.hint(self.board)
        engine_win = thought.wdl[2]  # the player is to move: their losses are Jitfish's wins
        if engine_win < DRAW_ACCEPT_WIN:
            self.say("Jitfish accepts the draw.")
            return draw_agreed()
        self.say(f"Jitfish declines the draw: it gives itself {engine_win / 10:.0f} % to win.")
        return None
