"""The game loop driven by a script of typed lines, against a stand-in for the engine: every command, every
bad input answered in one line with the game going on, the clocks, and Ctrl-C / Ctrl-D."""

from __future__ import annotations

import io
from collections.abc import Callable

import chess
import chess.pgn
import pytest

from jitfish.engine.turn import GoParams
from jitfish.play.clock import TimeControl
from jitfish.play.opponent import Thought
from jitfish.play.session import FlagFell, Session, Setup

MATE_IN_TWO = "k7/8/1K6/8/8/8/8/7R w - - 0 1"  # 1. Rh2 Kb8 (forced) 2. Rh8#


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class StandIn:
    """Plays its first legal move in UCI order, taking ``think`` seconds of ``time``; hints the first
    legal move with a score of ``score_cp`` for the side to move."""

    def __init__(self, time: FakeTime | None = None, think: float = 0.0, score_cp: int = 0) -> None:
        self.time, self.think, self.score_cp = time, think, score_cp
        self.params: list[GoParams] = []

    def play(self, board: chess.Board, params: GoParams) -> Thought:
        self.params.append(params)
        if self.time is not None:
            self.time.now += self.think
        move = min(board.legal_moves, key=lambda move: move.uci())
        return Thought(move.uci(), [move.uci()], 0, None, (300, 400, 300))

    def hint(self, board: chess.Board) -> Thought:
        move = min(board.legal_moves, key=lambda move: move.uci())
        win = 500 if self.score_cp > 0 else 50
        loss = 500 if self.score_cp < 0 else 50
        return Thought(move.uci(), [move.uci()], self.score_cp, None, (win, 1000 - win - loss, loss))


def script(*lines: str | type[BaseException], time: FakeTime | None = None, step: float = 0.0) -> Callable[[str], str]:
    """``read_line`` answering the lines in turn (an exception class is raised instead: EOFError is Ctrl-D,
    KeyboardInterrupt Ctrl-C); each line takes ``step`` seconds of ``time``."""
    queue = list(lines)

    def read_line(prompt: str) -> str:
        if time is not None:
            time.now += step
        if not queue:
            raise EOFError
        line = queue.pop(0)
        if isinstance(line, type):
            raise line
        return line

    return read_line


def session(
    tmp_path, *lines, fen=chess.STARTING_FEN, human=chess.WHITE, control=None, opponent=None, time=None, step=0.0
):
    time = time or FakeTime()
    setup = Setup(chess.Board(fen), human, elo=825, control=control, save_path=tmp_path / "game.pgn")
    out = io.StringIO()
    played = Session(
        setup, opponent or StandIn(time), script(*lines, time=time, step=step), out, time, width=lambda: 80
    )
    return played, out


def saved(tmp_path) -> chess.pgn.Game:
    game = chess.pgn.read_game(io.StringIO((tmp_path / "game.pgn").read_text()))
    assert game is not None and game.errors == []
    return game


def test_a_game_to_mate_with_a_typo_an_illegal_move_undo_and_hint(tmp_path):
    played, out = session(
        tmp_path, "Rh9", "Kb7", "Rh2", "undo", "hint", "flip", "eval", "moves", "help", "Rh2", "Rh8", fen=MATE_IN_TWO
    )
    assert played.run() == 0
    text = out.getvalue()
    assert "Rh9 is neither a move nor a command" in text
    assert "Kb7 is not legal here: it leaves your king in check" in text
    assert "Took back your last move and Jitfish's." in text
    assert "Hint: 1. " in text and "Evaluation: +0.00 for you" in text and "Legal moves: " in text
    assert "Checkmate: you win, 1-0." in text and "Traceback" not in text
    game = saved(tmp_path)
    assert [move.uci() for move in game.mainline_moves()] == ["h1h2", "a8b8", "h2h8"]
    assert game.headers["Result"] == "1-0" and game.headers["FEN"] == MATE_IN_TWO


def test_as_black_jitfish_moves_first(tmp_path):
    played, out = session(tmp_path, "e5", "resign", human=chess.BLACK)
    assert played.run() == 0
    game = saved(tmp_path)
    assert [move.uci() for move in game.mainline_moves()] == ["a2a3", "e7e5", "a1a2"]
    assert game.headers["Result"] == "1-0" and game.headers["White"].startswith("Jitfish")
    assert "You resigned: Jitfish wins, 1-0." in out.getvalue()


def test_undo_with_no_move_pair_says_so_and_the_game_goes_on(tmp_path):
    played, out = session(tmp_path, "undo", "", "e4", "resign")
    played.run()
    assert "There is no move pair to take back." in out.getvalue()
    assert "type a move" in out.getvalue()


def test_quit_asks_and_leaving_loses(tmp_path):
    played, out = session(tmp_path, "e4", "quit", "n", "quit", "y")
    assert played.run() == 0
    assert out.getvalue().count("1. e4") >= 1 and "You left the game: Jitfish wins, 0-1." in out.getvalue()
    assert saved(tmp_path).headers["Termination"] == "abandoned"


def test_quit_before_any_move_leaves_an_unfinished_game(tmp_path):
    played, _ = session(tmp_path, "quit")
    assert played.run() == 0
    assert saved(tmp_path).headers["Result"] == "*"


@pytest.mark.parametrize("score_cp, accepted", [(0, True), (-300, False), (300, True)])
def test_a_draw_offer_is_taken_by_the_evaluation(tmp_path, score_cp, accepted):
    opponent = StandIn(score_cp=score_cp)
    played, out = session(tmp_path, "draw", "resign", opponent=opponent)
    played.run()
    assert ("Jitfish accepts the draw." in out.getvalue()) == accepted
    assert saved(tmp_path).headers["Result"] == ("1/2-1/2" if accepted else "0-1")


@pytest.mark.parametrize(
    "interrupt, code, words", [(EOFError, 0, "left unfinished"), (KeyboardInterrupt, 130, "left unfinished")]
)
def test_ctrl_d_and_ctrl_c_end_cleanly_with_the_game_saved(tmp_path, interrupt, code, words):
    played, out = session(tmp_path, "e4", interrupt)
    assert played.run() == code
    assert words in out.getvalue()
    game = saved(tmp_path)
    assert [move.uci() for move in game.mainline_moves()] == ["e2e4", "a7a5"] and game.headers["Result"] == "*"


def test_the_clocks_run_and_go_to_the_engine_as_in_a_gui_game(tmp_path):
    time = FakeTime()
    opponent = StandIn(time, think=2.0)
    played, out = session(
        tmp_path, "e4", "d4", "resign", control=TimeControl(60, 1), opponent=opponent, time=time, step=5.0
    )
    played.run()
    first, second = opponent.params
    assert (first.wtime, first.btime, first.winc, first.binc) == (56_000, 60_000, 1000, 1000)
    assert (second.wtime, second.btime) == (52_000, 59_000)
    assert [node.clock() for node in saved(tmp_path).mainline()] == [56, 59, 52, 58]
    assert "  You, White  0:52  <- to move" in out.getvalue() and "  Jitfish (825), Black  0:58" in out.getvalue()


def test_the_players_flag_falls(tmp_path):
    time = FakeTime()
    played, out = session(tmp_path, "e4", "d4", control=TimeControl(8, 0), time=time, step=5.0)
    played.run()
    assert "Your time ran out: Jitfish wins on time, 0-1." in out.getvalue()
    assert saved(tmp_path).headers["Termination"] == "time forfeit"


def test_the_engines_flag_falls(tmp_path):
    time = FakeTime()
    opponent = StandIn(time, think=20.0)
    played, out = session(tmp_path, "e4", control=TimeControl(10, 0), opponent=opponent, time=time)
    played.run()
    assert "Jitfish's time ran out: you win on time, 1-0." in out.getvalue()


def test_a_flag_falling_while_typing_ends_the_game_on_time(tmp_path):
    played, out = session(tmp_path, FlagFell, control=TimeControl(10, 0))
    played.run()
    assert "Your time ran out" in out.getvalue() and saved(tmp_path).headers["Result"] == "0-1"


def test_a_position_already_over_ends_at_once(tmp_path):
    played, out = session(tmp_path, fen="7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", human=chess.BLACK)
    played.run()
    assert "Draw by stalemate" in out.getvalue()


class Broken(StandIn):
    def play(self, board: chess.Board, params: GoParams) -> Thought:
        raise RuntimeError("the engine broke")


def test_an_unexpected_error_is_one_line_and_the_game_is_kept(tmp_path):
    played, out = session(tmp_path, "e4", opponent=Broken())
    assert played.run() == 1
    assert "error: RuntimeError: the engine broke" in out.getvalue()
    assert [move.uci() for move in saved(tmp_path).mainline_moves()] == ["e2e4"]
