"""``jitfish play``: the subcommand's options, checked (a bad one is one ``error:`` line and exit status 2),
then the game (:class:`jitfish.play.session.Session`) and, when it is over, the offer to analyse it."""

from __future__ import annotations

import argparse
import random
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import chess

    from jitfish.play.session import Setup

COLORS = ("white", "black", "random")


class UsageError(ValueError):
    """A bad option: its message is the one line shown."""


def add_play_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``play`` subcommand."""
    parser = commands.add_parser(
        "play",
        help="play a game against Jitfish in the terminal (docs/play.md)",
        description="Play Jitfish at your keyboard: type moves as SAN (Nf3, exd5, O-O) or UCI (g1f3); "
        "help lists the commands (undo, hint, eval, flip, draw, resign, quit). The game is saved as PGN.",
    )
    from jitfish.engine.strength import MAX_ELO, MIN_ELO  # the levels' table only: no kernel is imported

    parser.add_argument(
        "--elo",
        metavar="N",
        help=f"Jitfish's level, {MIN_ELO} to {MAX_ELO} on Stockfish's UCI_Elo scale (default: full strength)",
    )
    parser.add_argument(
        "--color",
        "--colour",
        metavar="SIDE",
        help="white, black or random (default: white; with --fen or --pgn, the side to move)",
    )
    time = parser.add_mutually_exclusive_group()
    time.add_argument("--tc", metavar="MIN+INC", help="clocks: minutes each, seconds added a move (5+3)")
    time.add_argument("--movetime", metavar="SECONDS", help="no clocks, Jitfish thinks this long (default 1)")
    start = parser.add_mutually_exclusive_group()
    start.add_argument("--fen", help="start from this position")
    start.add_argument("--pgn", metavar="GAME.pgn", help="continue the game of this file")
    parser.add_argument("--save", metavar="FILE.pgn", help="where the game goes (default jitfish-DATE.pgn here)")
    parser.add_argument("--ascii", action="store_true", help="letters instead of chess symbols")
    parser.add_argument("--no-analyse", action="store_true", help="do not offer the analysis after the game")
    parser.set_defaults(handler=play_command)


def _number(text: str, name: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{name} must be a number, got {text!r}") from None


def _start_board(args: argparse.Namespace) -> chess.Board:
    import chess
    import chess.pgn

    if args.pgn:
        try:
            with open(args.pgn, encoding="utf-8-sig") as handle:
                game = chess.pgn.read_game(handle)
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(f"cannot read {args.pgn}: {getattr(error, 'strerror', None) or error}") from None
        if game is None:
            raise UsageError(f"{args.pgn} holds no game")
        if game.errors:
            raise UsageError(f"{args.pgn}: {game.errors[0]}")
        return game.end().board()
    if args.fen:
        try:
            board = chess.Board(args.fen)
        except ValueError as error:
            raise UsageError(f"bad FEN: {error}") from None
        if not board.is_valid():
            raise UsageError(f"the FEN is not a legal position ({_status_text(board)})")
        return board
    return chess.Board()


def _status_text(board: chess.Board) -> str:
    import chess

    names = [flag.name for flag in chess.Status if flag and flag in board.status() and flag.name]
    return ", ".join(name.lower().replace("_", " ") for name in names) or "invalid"


def setup_from(args: argparse.Namespace, stdout_colour: bool) -> Setup:
    """The game the options ask for; :class:`UsageError` for a bad one."""
    import chess

    from jitfish.engine.strength import MAX_ELO, MIN_ELO
    from jitfish.play.clock import parse_time_control
    from jitfish.play.session import Setup

    elo = None
    if args.elo is not None:
        try:
            elo = int(args.elo)
        except ValueError:
            raise UsageError(f"--elo must be a whole number, got {args.elo!r}") from None
        if not MIN_ELO <= elo <= MAX_ELO:
            raise UsageError(f"--elo must be between {MIN_ELO} and {MAX_ELO} (the calibrated levels), got {elo}")
    control = None
    if args.tc is not None:
        try:
            control = parse_time_control(args.tc)
        except ValueError as error:
            raise UsageError(f"--tc: {error}") from None
    movetime = None
    if args.movetime is not None:
        movetime = _number(args.movetime, "--movetime")
        if not movetime > 0:
            raise UsageError(f"--movetime must be positive, got {args.movetime}")
    color = (args.color or "").lower()
    if color and color not in COLORS:
        raise UsageError(f"--color must be white, black or random, got {args.color!r}")
    save = Path(args.save) if args.save else None
    if save is not None and not save.parent.is_dir():
        raise UsageError(f"--save: the folder {save.parent} does not exist")
    board = _start_board(args)
    if color == "random":
        color = random.choice(("white", "black"))
    if color:
        human = color == "white"
    else:  # a new game: White; a position or a game to go on with: the side to move
        human = board.turn if (args.fen or args.pgn) else chess.WHITE
    return Setup(board, human, elo, control, movetime, not args.ascii, stdout_colour, save)


def play_command(args: argparse.Namespace) -> int:
    from jitfish.play.drawing import wants_colour

    # Ctrl-C ends the game even where the program was started ignoring SIGINT (as a script's background
    # job is): Python keeps an inherited "ignore" instead of raising KeyboardInterrupt.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    try:
        setup = setup_from(args, wants_colour(sys.stdout))
    except UsageError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:
        return _play(setup, analyse=not args.no_analyse)
    except KeyboardInterrupt:  # while the engine loads
        print()
        return 130


def _play(setup: Setup, analyse: bool) -> int:
    from jitfish.play.opponent import Opponent
    from jitfish.play.session import Session
    from jitfish.runtime.compile import COLD_START_SECONDS, is_cached

    if sys.stdin.isatty():
        try:
            import readline  # noqa: F401  (line editing and history for input())
        except ImportError:
            pass
    if not is_cached("search"):
        print(f"Compiling the search (first run only, about {COLD_START_SECONDS} s)...", flush=True)
    opponent = Opponent(setup.elo)
    session = Session(setup, opponent, alarms=True)
    try:
        code = session.run()
    finally:
        opponent.close()
    finished = session.ending is not None and session.ending.result != "*"  # not left by Ctrl-C or Ctrl-D
    if finished and analyse and session.saved_to is not None and session.board.move_stack:
        code = _offer_review(session.saved_to)
    return code


def _offer_review(path: Path) -> int:
    from jitfish.play.review import review

    try:
        answer = input("Analyse the game now (jitfish analyse)? [Y/n] ")
    except (EOFError, KeyboardInterrupt):
        print()
        return 0
    if answer.strip().lower() not in ("", "y", "yes"):
        return 0
    try:
        review(path, lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print()
        return 130
    return 0
