"""Self-play through python-chess, which keeps the clocks: counts illegal moves and time losses.

Used by ``tests/uci/test_selfplay.py`` and ``scripts/bench/bench_uci.py``.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field

import chess
import chess.engine

RANDOM_OPENING_PLIES = 4


@dataclass
class GameRecord:
    result: str  # "1-0", "0-1", "1/2-1/2"
    termination: str  # "CHECKMATE", "STALEMATE", ..., "TIME_LOSS", "ILLEGAL_MOVE", "ENGINE_ERROR"
    plies: int
    min_clock: float  # the lowest clock left after a move, in seconds
    max_move_time: float  # the longest move, in seconds


@dataclass
class SelfPlaySummary:
    games: list[GameRecord] = field(default_factory=list)

    @property
    def time_losses(self) -> int:
        return sum(game.termination == "TIME_LOSS" for game in self.games)

    @property
    def illegal_moves(self) -> int:
        return sum(game.termination == "ILLEGAL_MOVE" for game in self.games)

    @property
    def engine_errors(self) -> int:
        return sum(game.termination == "ENGINE_ERROR" for game in self.games)

    def describe(self) -> str:
        results = Counter(game.result for game in self.games)
        terminations = Counter(game.termination for game in self.games)
        plies = sum(game.plies for game in self.games)
        lowest = min((game.min_clock for game in self.games), default=0.0)
        longest = max((game.max_move_time for game in self.games), default=0.0)
        return (
            f"{len(self.games)} games, {plies} plies: results {dict(results)}; "
            f"terminations {dict(terminations)}; time losses {self.time_losses}, "
            f"illegal moves {self.illegal_moves}, engine errors {self.engine_errors}; "
            f"lowest clock left {lowest * 1000:.0f} ms, longest move {longest * 1000:.0f} ms"
        )


def random_opening(seed: int) -> chess.Board:
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(RANDOM_OPENING_PLIES):
        board.push(rng.choice(list(board.legal_moves)))
    return board


def play_game(
    white: chess.engine.SimpleEngine, black: chess.engine.SimpleEngine, base: float, increment: float, seed: int
) -> GameRecord:
    """One game from a random opening; the clock runs from sending ``go`` to reading ``bestmove``."""
    board = random_opening(seed)
    engines = {chess.WHITE: white, chess.BLACK: black}
    clocks = {chess.WHITE: base, chess.BLACK: base}
    min_clock, max_move_time = base, 0.0
    game_id = object()  # a new object: python-chess sends ucinewgame
    while True:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            return GameRecord(outcome.result(), outcome.termination.name, board.ply(), min_clock, max_move_time)
        mover = board.turn
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK], white_inc=increment, black_inc=increment
        )
        started = time.perf_counter()
        try:
            result = engines[mover].play(board, limit, game=game_id)
        except chess.engine.EngineError as error:
            illegal = "illegal" in str(error).lower()
            return GameRecord(
                "0-1" if mover else "1-0",
                "ILLEGAL_MOVE" if illegal else "ENGINE_ERROR",
                board.ply(),
                min_clock,
                max_move_time,
            )
        used = time.perf_counter() - started
        max_move_time = max(max_move_time, used)
        clocks[mover] -= used
        min_clock = min(min_clock, clocks[mover])
        if clocks[mover] < 0:
            return GameRecord("0-1" if mover else "1-0", "TIME_LOSS", board.ply(), min_clock, max_move_time)
        clocks[mover] += increment
        if result.move is None or result.move not in board.legal_moves:
            return GameRecord("0-1" if mover else "1-0", "ILLEGAL_MOVE", board.ply(), min_clock, max_move_time)
        board.push(result.move)


def self_play(
    command: list[str],
    games: int,
    base: float = 1.0,
    increment: float = 0.01,
    cwd: str | None = None,
    options: dict | None = None,
    seed: int = 0,
    progress=None,
) -> SelfPlaySummary:
    """``games`` games between two instances of ``command``, colours alternating."""
    summary = SelfPlaySummary()
    first = chess.engine.SimpleEngine.popen_uci(command, cwd=cwd, timeout=300)
    second = chess.engine.SimpleEngine.popen_uci(command, cwd=cwd, timeout=300)
    try:
        for engine in (first, second):
            if options:
                engine.configure(options)
            engine.ping()
        for index in range(games):
            white, black = (first, second) if index % 2 == 0 else (second, first)
            record = play_game(white, black, base, increment, seed + index // 2)
            summary.games.append(record)
            if progress is not None:
                progress(index, record)
    finally:
        first.quit()
        second.quit()
    return summary
