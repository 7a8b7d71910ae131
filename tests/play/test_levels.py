"""The engine on the clock at its levels: it answers within its time at every calibrated level and at full
strength (the engine's own time management, as in a GUI game), and at ``--elo 825`` a whole game takes it
well under a minute.  The player is a random mover typing SAN."""

from __future__ import annotations

import io
import random
import time

import chess
import pytest

from jitfish.engine.engine import Engine
from jitfish.engine.strength import calibrated_levels
from jitfish.engine.turn import GoParams
from jitfish.play.clock import TimeControl
from jitfish.play.opponent import Opponent, Thought
from jitfish.play.session import Session, Setup

MAX_PLIES = 400  # a game of a random mover lasts no longer (it resigns then)


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = Engine()
    engine.warm_up()
    return engine


class Timed:
    """The opponent, each of its moves timed (wall clock)."""

    def __init__(self, opponent: Opponent) -> None:
        self.opponent = opponent
        self.seconds: list[float] = []

    def play(self, board: chess.Board, params: GoParams) -> Thought:
        started = time.perf_counter()
        thought = self.opponent.play(board, params)
        self.seconds.append(time.perf_counter() - started)
        return thought

    def hint(self, board: chess.Board) -> Thought:
        return self.opponent.hint(board)


def random_game(engine: Engine, elo: int | None, control: TimeControl, plies: int, tmp_path) -> tuple[Session, Timed]:
    rng = random.Random(elo or 0)
    opponent = Timed(Opponent(elo, engine=engine))
    setup = Setup(chess.Board(), chess.WHITE, elo, control, save_path=tmp_path / "game.pgn")
    played: Session

    def random_mover(prompt: str) -> str:
        board = played.board
        if len(board.move_stack) >= plies:
            return "resign"
        return board.san(rng.choice(list(board.legal_moves)))

    played = Session(setup, opponent, random_mover, io.StringIO(), width=lambda: 80)  # type: ignore[arg-type]
    played.run()
    return played, opponent


def test_at_825_a_whole_game_takes_the_engine_under_a_minute(engine, tmp_path):
    played, opponent = random_game(engine, 825, TimeControl(300, 3), MAX_PLIES, tmp_path)
    assert played.ending is not None and played.ending.result != "*"
    assert "time ran out" not in played.ending.words
    assert len(opponent.seconds) >= 10 and sum(opponent.seconds) < 60
    assert max(opponent.seconds) < played.setup.control.base / 10  # type: ignore[union-attr]


@pytest.mark.parametrize("elo", [None, 2270])
def test_the_engine_answers_within_a_short_clock(engine, tmp_path, elo):
    played, opponent = random_game(engine, elo, TimeControl(3, 0), 24, tmp_path)
    assert played.ending is not None and "Jitfish's time ran out" not in played.ending.words
    assert played.clock is not None and played.clock.remaining[chess.BLACK] > 0


@pytest.mark.parametrize("elo", [elo for elo, _ in calibrated_levels()] + [None])
def test_the_engine_answers_within_the_clock_at_every_level(engine, tmp_path, elo):
    played, opponent = random_game(engine, elo, TimeControl(15, 0), 60, tmp_path)
    assert played.ending is not None and "Jitfish's time ran out" not in played.ending.words
    assert played.clock is not None and played.clock.remaining[chess.BLACK] > 0
