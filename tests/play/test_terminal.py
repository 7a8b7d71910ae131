"""``jitfish play`` driven through a real terminal (a pty), as a person types: moves, a typo, an illegal
move, ``undo``, ``hint``, a clock that runs out, Ctrl-C and Ctrl-D; each game's PGN read back by python-chess.
The games start near their end (``--fen``), so that each takes seconds."""

from __future__ import annotations

import io
import signal
import time

import chess.pgn
import pytest

pytest.importorskip("termios")  # a pseudo-terminal: Unix only

from tests.play.terminal import Terminal  # noqa: E402

MATE_IN_TWO = "k7/8/1K6/8/8/8/8/7R w - - 0 1"  # 1. Rh2 Kb8 (forced) 2. Rh8#


@pytest.fixture
def terminals():
    started: list[Terminal] = []

    def start(*args, **kwargs) -> Terminal:
        terminal = Terminal(*args, **kwargs)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.kill()


def read_game(path) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO(path.read_text()))
    assert game is not None and game.errors == []
    return game


def test_a_game_to_mate_with_a_typo_an_illegal_move_undo_and_hint(tmp_path, terminals):
    save = tmp_path / "mate.pgn"
    play = terminals("play", "--fen", MATE_IN_TWO, "--movetime", "0.1", "--save", str(save), cwd=tmp_path)
    play.expect("1. > ")
    play.type("Rh9")
    assert "Rh9 is neither a move nor a command" in play.expect("1. > ")
    play.type("Kb7")
    assert "Kb7 is not legal here: it leaves your king in check (closest: " in play.expect("1. > ")
    play.type("Rh2")
    assert "Last move: 1... Kb8" in play.expect("2. > ")
    play.type("undo")
    assert "Took back your last move and Jitfish's." in play.expect("1. > ")
    play.type("hint")
    assert "Hint: 1. Rh8#" in play.expect("1. > ")
    play.type("h1h2")
    play.expect("2. > ")
    play.type("Rh8#")
    seen = play.expect("[Y/n] ")
    assert "Checkmate: you win, 1-0." in seen and f"Game saved to {save}" in seen
    play.type("y")  # the offer to analyse the game
    seen = play.expect("looks deeper)")
    assert "  White (You): accuracy " in seen and f"Analysed game written to {tmp_path / 'mate-analysed.pgn'}" in seen
    assert play.wait() == 0
    assert "Traceback" not in play.text and "♜" in play.text  # coloured squares: solid pieces for both sides
    game = read_game(save)
    assert [move.uci() for move in game.mainline_moves()] == ["h1h2", "a8b8", "h2h8"]
    assert game.headers["Result"] == "1-0" and game.headers["FEN"] == MATE_IN_TWO
    assert game.headers["JitfishLevel"] == "full strength" and game.headers["JitfishMovetime"] == "0.1"


def test_as_black_in_ascii_from_a_fen_until_the_clock_runs_out(tmp_path, terminals):
    save = tmp_path / "flag.pgn"
    fen = "7k/pp6/8/8/8/8/PP6/K7 w - - 0 1"
    play = terminals(
        "play", "--fen", fen, "--color", "black", "--ascii", "--elo", "825", "--tc", "0.1+0", "--save", str(save),
        cwd=tmp_path, environ={"NO_COLOR": "1"},
    )  # fmt: skip
    seen = play.expect("1... 0:0")  # the prompt shows your clock
    assert " 8  k  .  .  .  .  .  .  .  8" in seen and " 7  .  .  .  .  .  .  p  p  7" in seen  # Black's side
    assert "  You, Black  0:06.0  <- to move" in seen and "Jitfish (825), White" in seen
    play.expect(" > ")
    play.type("a6")
    play.expect("2... 0:0")
    play.expect(" > ")
    seen = play.expect("[Y/n] ", timeout=20)  # the player types nothing more: their flag falls
    assert "Your time ran out: Jitfish wins on time, 1-0." in seen
    play.type("n")
    assert play.wait() == 0
    assert "Traceback" not in play.text and "♔" not in play.text
    game = read_game(save)
    moves = [move.uci() for move in game.mainline_moves()]
    assert len(moves) == 3 and moves[1] == "a7a6"
    assert game.headers["Result"] == "1-0" and game.headers["Termination"] == "time forfeit"
    assert game.headers["TimeControl"] == "6+0" and game.headers["WhiteElo"] == "825"
    assert all(node.clock() is not None for node in game.mainline())


def test_ctrl_c_in_a_narrow_terminal_ends_cleanly_with_the_game_saved(tmp_path, terminals):
    play = terminals("play", "--elo", "825", "--movetime", "0.1", cwd=tmp_path, columns=24)
    seen = play.expect("1. > ")
    board = [line for line in seen.splitlines() if line[:3] in {f" {rank} " for rank in "12345678"}]
    assert len(board) == 8 and max(len(line) for line in board) <= 24
    play.type("e4")
    play.expect("2. > ")
    play.waits_for_a_key()
    play.key(b"\x03")
    assert play.wait() == 130
    assert "Traceback" not in play.text and "The game was left unfinished." in play.text
    saved = list(tmp_path.glob("jitfish-*.pgn"))
    assert len(saved) == 1
    game = read_game(saved[0])
    assert len(list(game.mainline_moves())) == 2 and game.headers["Result"] == "*"


def test_ctrl_d_ends_cleanly_with_the_game_saved(tmp_path, terminals):
    save = tmp_path / "eof.pgn"
    play = terminals("play", "--fen", MATE_IN_TWO, "--save", str(save), cwd=tmp_path)
    play.expect("1. > ")
    play.type("Rh2")
    play.expect("2. > ")
    play.key(b"\x04")
    assert play.wait() == 0
    assert "Traceback" not in play.text and "The game was left unfinished." in play.text
    assert [move.uci() for move in read_game(save).mainline_moves()] == ["h1h2", "a8b8"]


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["default", "started-ignoring-sigint"])
def test_ctrl_c_while_jitfish_thinks_ends_at_once(tmp_path, terminals, sigint):
    save = tmp_path / "thinking.pgn"
    play = terminals("play", "--movetime", "30", "--save", str(save), cwd=tmp_path, sigint=sigint)
    play.expect("1. > ")
    play.type("e4")
    play.expect("Jitfish is thinking...")
    time.sleep(0.5)
    started = time.monotonic()
    play.key(b"\x03")
    assert play.wait() == 130 and time.monotonic() - started < 10
    assert "Traceback" not in play.text and "The game was left unfinished." in play.text
    assert [move.uci() for move in read_game(save).mainline_moves()] == ["e2e4"]
