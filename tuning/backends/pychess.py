"""Built-in backend: plays the games itself through python-chess's asyncio engine API, with real clocks.

Each side's clock is measured here (monotonic time around each ``go``/``bestmove``), topped up by the increment
and, in ``moves/time`` controls, by the base time every period. Engine faults never stop the match: the game is
lost, the fault is recorded by kind, and the engine process is replaced before its next game.

* time_loss     the engine was still thinking when its clock (plus the time margin) ran out, then answered
                ``stop``;
* hang          the engine did not answer ``stop`` and ``isready`` within the stall timeout (or, without a
                clock, did not move within the move timeout);
* crash         the engine process exited;
* illegal_move  the engine sent a move that is not legal, or no move in a position that has one.

python-chess refuses xboard engines that do not declare ``setboard`` (Fairy-Max).  Such an engine is
restarted behind :mod:`tuning.xboard_edit_adapter`, which sets positions up with ``edit`` as cutechess-cli
does; later starts of the same command go straight through the adapter.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import chess
import chess.engine
import chess.pgn

from tuning import pgnfile, xboard_edit_adapter
from tuning.backends.interface import GameCallback, MatchOutcome, StopPredicate
from tuning.config import Encounter, MatchConfig, schedule
from tuning.engines import EngineSpec
from tuning.openings import Opening
from tuning.results import FaultKind, GameRecord, GameResult

MATE_SCORE_CP = 32000
"""Centipawn value given to mate scores in adjudication."""
QUIT_TIMEOUT = 2.0
"""Seconds an engine gets to exit after ``quit`` before it is killed."""
CONSECUTIVE_START_FAILURES = 3
"""An engine that fails to start this many times in a row ends the match."""

TERMINATION_TAGS: dict[FaultKind, str] = {
    "time_loss": "time forfeit",
    "illegal_move": "illegal move",
    "crash": "abandoned",
    "hang": "stalled connection",
}


class MatchError(RuntimeError):
    """The match cannot go on (an engine will not start); engine faults during games are not errors."""


@dataclass
class _EngineProcess:
    spec: EngineSpec
    transport: asyncio.SubprocessTransport
    protocol: chess.engine.Protocol
    healthy: bool = True

    def is_running(self) -> bool:
        return self.transport.get_returncode() is None


# Run as a script (not ``-m``), so that it starts whatever the engine's working directory.
EDIT_ADAPTER = [sys.executable, xboard_edit_adapter.__file__]
MISSING_SETBOARD = "did not declare required feature: setboard"
_needs_edit_mode: set[tuple[str, ...]] = set()  # xboard commands found to lack setboard


def _launch_argv(spec: EngineSpec) -> list[str]:
    argv = spec.argv()
    return EDIT_ADAPTER + argv if tuple(argv) in _needs_edit_mode else argv


async def _open_engine(spec: EngineSpec, startup_timeout: float):
    """The engine's (transport, protocol); an xboard engine without ``setboard`` behind the edit adapter."""
    popen = chess.engine.popen_uci if spec.protocol == "uci" else chess.engine.popen_xboard
    try:
        return await asyncio.wait_for(
            popen(_launch_argv(spec), cwd=spec.working_dir, stderr=subprocess.DEVNULL), startup_timeout
        )
    except chess.engine.EngineError as error:
        if spec.protocol != "xboard" or MISSING_SETBOARD not in str(error) or tuple(spec.argv()) in _needs_edit_mode:
            raise
        _needs_edit_mode.add(tuple(spec.argv()))  # python-chess has already ended the process it refused
    return await _open_engine(spec, startup_timeout)


async def _start_engine(spec: EngineSpec, startup_timeout: float) -> _EngineProcess:
    """Start and configure one engine; raises MatchError naming it when it cannot."""
    try:
        transport, protocol = await _open_engine(spec, startup_timeout)
    except (OSError, TimeoutError, chess.engine.EngineError) as error:
        raise MatchError(f"cannot start engine {spec.name} ({' '.join(spec.argv())}): {error!r}") from error
    process = _EngineProcess(spec, transport, protocol)
    if spec.options:
        try:
            await asyncio.wait_for(protocol.configure(dict(spec.options)), startup_timeout)
        except (TimeoutError, chess.engine.EngineError) as error:
            await _kill(process)
            raise MatchError(f"cannot configure engine {spec.name}: {error}") from error
    try:
        # Wait for readyok before any clock runs, as cutechess-cli does: an engine that loads its tables after
        # uciok must not pay for that on its first move.
        await asyncio.wait_for(protocol.ping(), startup_timeout)
    except (TimeoutError, chess.engine.EngineError) as error:
        await _kill(process)
        raise MatchError(f"engine {spec.name} did not answer isready: {error!r}") from error
    return process


async def _kill(process: _EngineProcess) -> None:
    with contextlib.suppress(ProcessLookupError, OSError):
        process.transport.kill()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(process.protocol.returncode, QUIT_TIMEOUT)
    process.transport.close()


async def _quit(process: _EngineProcess) -> None:
    if process.healthy and process.is_running():
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.protocol.quit(), QUIT_TIMEOUT)
    await _kill(process)


class _EnginePool:
    """Idle engine processes per engine, started on demand; unhealthy ones are killed, not reused."""

    def __init__(self, specs: Sequence[EngineSpec], startup_timeout: float) -> None:
        self._specs = specs
        self._startup_timeout = startup_timeout
        self._idle: dict[int, list[_EngineProcess]] = {index: [] for index in range(len(specs))}
        self._started: Counter[int] = Counter()
        self._start_failures: Counter[int] = Counter()
        self.restarts: Counter[str] = Counter()

    async def acquire(self, index: int) -> _EngineProcess:
        while self._idle[index]:
            process = self._idle[index].pop()
            if process.is_running():
                return process
            self.restarts[process.spec.name] += 1
            await _kill(process)
        try:
            process = await _start_engine(self._specs[index], self._startup_timeout)
        except MatchError:
            self._start_failures[index] += 1
            if self._start_failures[index] >= CONSECUTIVE_START_FAILURES or not self._started[index]:
                raise
            raise _StartFailure(self._specs[index].name) from None
        self._start_failures[index] = 0
        self._started[index] += 1
        return process

    async def release(self, index: int, process: _EngineProcess) -> None:
        if process.healthy and process.is_running():
            self._idle[index].append(process)
        else:
            self.restarts[process.spec.name] += 1
            await _kill(process)

    async def close(self) -> None:
        for processes in self._idle.values():
            await asyncio.gather(*(_quit(process) for process in processes))
            processes.clear()


class _StartFailure(Exception):
    """A restart failed; the game is lost as a crash and the match goes on."""


@dataclass
class _GameEnd:
    result: GameResult
    reason: str
    fault: FaultKind | None = None
    faulty_side: chess.Color | None = None
    termination: str = "normal"


def _side_name(color: chess.Color) -> str:
    return "White" if color == chess.WHITE else "Black"


def _fault_end(kind: FaultKind, side: chess.Color, detail: str = "") -> _GameEnd:
    words = {
        "time_loss": "loses on time",
        "illegal_move": "makes an illegal move",
        "crash": "disconnects",
        "hang": "'s connection stalls",
    }[kind]
    separator = "" if words.startswith("'") else " "
    reason = f"{_side_name(side)}{separator}{words}" + (f": {detail}" if detail else "")
    return _GameEnd("0-1" if side == chess.WHITE else "1-0", reason, kind, side, TERMINATION_TAGS[kind])


def _quoted_move(message: str) -> str:
    """The move inside python-chess's "illegal uci: 'e1e8' in <fen>" message (the message when not found)."""
    match = re.search(r"'([^']*)'", message)
    return match.group(1) if match else message


def _win_for(side: chess.Color, reason: str, termination: str = "normal") -> _GameEnd:
    return _GameEnd("1-0" if side == chess.WHITE else "0-1", reason, termination=termination)


def _rules_end(board: chess.Board) -> _GameEnd | None:
    """The end of the game by the rules (automatic 3-fold and 50-move draws, as cutechess-cli does)."""
    if board.is_checkmate():
        return _win_for(not board.turn, f"{_side_name(not board.turn)} mates")
    if board.is_stalemate():
        return _GameEnd("1/2-1/2", "Draw by stalemate")
    if board.is_insufficient_material():
        return _GameEnd("1/2-1/2", "Draw by insufficient mating material")
    if board.halfmove_clock >= 100:
        return _GameEnd("1/2-1/2", "Draw by fifty moves rule")
    if board.is_repetition(3):
        return _GameEnd("1/2-1/2", "Draw by 3-fold repetition")
    return None


def _centipawns(info: chess.engine.InfoDict, side: chess.Color) -> int | None:
    score = info.get("score")
    return None if score is None else score.pov(side).score(mate_score=MATE_SCORE_CP)


def _move_comment(info: chess.engine.InfoDict, side: chess.Color, elapsed: float) -> str:
    """cutechess-cli style ``+0.25/8 0.105s``."""
    score = info.get("score")
    text = ""
    if score is not None:
        pov = score.pov(side)
        mate = pov.mate()
        text = f"{'+' if mate > 0 else '-'}M{abs(mate)}" if mate is not None else f"{(pov.score() or 0) / 100:+.2f}"
        if "depth" in info:
            text += f"/{info['depth']}"
        text += " "
    return f"{text}{elapsed:.3f}s"


@dataclass
class _Adjudicator:
    """Tracks engine scores and applies draw, resign and move-limit adjudication."""

    config: MatchConfig
    scores: dict[chess.Color, list[int | None]] = field(default_factory=lambda: {chess.WHITE: [], chess.BLACK: []})

    def record(self, side: chess.Color, centipawns: int | None) -> None:
        self.scores[side].append(centipawns)

    def verdict(self, board: chess.Board, moved: chess.Color, engine_moves: int) -> _GameEnd | None:
        resign = self.config.resign
        if resign is not None:
            own = self.scores[moved][-resign.move_count :]
            other = self.scores[not moved][-resign.move_count :]
            losing = len(own) == resign.move_count and all(s is not None and s <= -resign.score for s in own)
            agreed = (not resign.two_sided) or (
                len(other) == resign.move_count and all(s is not None and s >= resign.score for s in other)
            )
            if losing and agreed:
                return _win_for(not moved, f"{_side_name(not moved)} wins by adjudication", "adjudication")
        draw = self.config.draw
        if draw is not None and board.fullmove_number > draw.move_number:
            recent = self.scores[chess.WHITE][-draw.move_count :] + self.scores[chess.BLACK][-draw.move_count :]
            if len(recent) == 2 * draw.move_count and all(s is not None and abs(s) <= draw.score for s in recent):
                return _GameEnd("1/2-1/2", "Draw by adjudication", termination="adjudication")
        if self.config.max_moves is not None and engine_moves >= 2 * self.config.max_moves:
            return _GameEnd("1/2-1/2", "Draw by adjudication: move limit", termination="adjudication")
        return None


class _Clocks:
    """Remaining time per side under the match time control."""

    def __init__(self, config: MatchConfig) -> None:
        self.control = config.time_control
        base = self.control.base or 0.0
        self.remaining = {chess.WHITE: base, chess.BLACK: base}
        self.moves_made = {chess.WHITE: 0, chess.BLACK: 0}

    def limit(self, side: chess.Color) -> chess.engine.Limit:
        control = self.control
        if not control.has_clock:
            return chess.engine.Limit(time=control.move_time, nodes=control.nodes, depth=control.depth)
        moves_to_go = None
        if control.moves_per_period:
            moves_to_go = control.moves_per_period - self.moves_made[side] % control.moves_per_period
        return chess.engine.Limit(
            white_clock=max(self.remaining[chess.WHITE], 0.0),
            black_clock=max(self.remaining[chess.BLACK], 0.0),
            white_inc=control.increment,
            black_inc=control.increment,
            remaining_moves=moves_to_go,
            nodes=control.nodes,
            depth=control.depth,
        )

    def allowance(self, side: chess.Color, margin: float, move_timeout: float) -> tuple[float, bool]:
        """Seconds the side may think, and whether overstepping them is a time loss (else a hang)."""
        if self.control.has_clock:
            return self.remaining[side] + margin, True
        if self.control.move_time is not None:
            return self.control.move_time + margin, True
        return move_timeout, False

    def charge(self, side: chess.Color, elapsed: float) -> None:
        if not self.control.has_clock:
            return
        self.remaining[side] += self.control.increment - elapsed
        self.moves_made[side] += 1
        period = self.control.moves_per_period
        if period and self.moves_made[side] % period == 0:
            self.remaining[side] += self.control.base or 0.0


async def _think(
    process: _EngineProcess, board: chess.Board, limit: chess.engine.Limit, allowance: float, game_key: object
) -> chess.engine.PlayResult:
    return await asyncio.wait_for(
        process.protocol.play(board, limit, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE, game=game_key),
        allowance,
    )


async def _responds(process: _EngineProcess, timeout: float) -> bool:
    """Whether the engine answers ``isready`` (after python-chess has sent ``stop``) within ``timeout``."""
    try:
        await asyncio.wait_for(process.protocol.ping(), timeout)
        return True
    except (TimeoutError, chess.engine.EngineError):
        return False


async def _play_game(
    players: dict[chess.Color, _EngineProcess], opening: Opening, config: MatchConfig, node: chess.pgn.GameNode
) -> tuple[_GameEnd, int]:
    """Play one game from ``opening``, adding the moves to ``node``; returns how it ended and its ply count."""
    board = opening.board()
    clocks = _Clocks(config)
    adjudicator = _Adjudicator(config)
    game_key = object()
    engine_moves = 0
    while True:
        if (end := _rules_end(board)) is not None:
            return end, engine_moves
        side = board.turn
        process = players[side]
        allowance, overstep_is_time_loss = clocks.allowance(side, config.time_margin, config.move_timeout)
        started = time.monotonic()
        try:
            played = await _think(process, board, clocks.limit(side), max(allowance, 0.001), game_key)
        except TimeoutError:
            process.healthy = False
            responsive = await _responds(process, config.stall_timeout)
            kind: FaultKind = "time_loss" if (overstep_is_time_loss and responsive) else "hang"
            return _fault_end(kind, side), engine_moves
        except chess.engine.EngineTerminatedError:
            process.healthy = False
            return _fault_end("crash", side), engine_moves
        except chess.engine.EngineError as error:
            process.healthy = False
            return _fault_end("illegal_move", side, _quoted_move(str(error))), engine_moves
        elapsed = time.monotonic() - started
        if overstep_is_time_loss and elapsed > allowance:
            return _fault_end("time_loss", side), engine_moves
        clocks.charge(side, elapsed)
        if played.resigned:
            return _win_for(not side, f"{_side_name(side)} resigns"), engine_moves
        if played.move is None:
            process.healthy = False
            return _fault_end("illegal_move", side, "(none)"), engine_moves
        node = node.add_variation(played.move, comment=_move_comment(played.info, side, elapsed))
        board.push(played.move)
        engine_moves += 1
        adjudicator.record(side, _centipawns(played.info, side))
        if (end := adjudicator.verdict(board, side, engine_moves)) is not None:
            return end, engine_moves


def _new_pgn(config: MatchConfig, encounter: Encounter, white: str, black: str, number: int) -> chess.pgn.Game:
    game = chess.pgn.Game()
    game.headers["Event"] = config.event
    game.headers["Site"] = "?"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = str(encounter.round)
    game.headers["White"] = white
    game.headers["Black"] = black
    game.headers["TimeControl"] = config.time_control.pgn_tag()
    if encounter.opening.fen != chess.STARTING_FEN:
        game.setup(encounter.opening.fen)
    node: chess.pgn.GameNode = game
    for move in encounter.opening.moves:
        node = node.add_variation(move, comment="book")
    game.headers["GameNumber"] = str(number)
    return game


def _append_pgn(path: str, game: chess.pgn.Game) -> None:
    pgnfile.append(path, f"{game}\n\n")


@dataclass
class _Schedule:
    """Shared by the workers: the next game to start, and whether to start new encounters."""

    next_job: int = 0
    stopping: bool = False


class PythonChessBackend:
    """Runs the match in-process with python-chess (no external tournament manager)."""

    name = "python-chess"

    def run(self, config: MatchConfig, on_game: GameCallback, should_stop: StopPredicate) -> MatchOutcome:
        # Chatty xboard engines (Phalanx) make python-chess log every unexpected line; faults are reported anyway.
        logging.getLogger("chess.engine").setLevel(logging.ERROR)
        return asyncio.run(self._run(config, on_game, should_stop))

    async def _run(self, config: MatchConfig, on_game: GameCallback, should_stop: StopPredicate) -> MatchOutcome:
        pool = _EnginePool(config.engines, config.startup_timeout)
        jobs = [(encounter, game_index) for encounter in schedule(config) for game_index in (0, 1)]
        records: list[GameRecord] = []
        started_encounters: set[int] = set()
        progress = _Schedule()

        async def worker() -> None:
            while progress.next_job < len(jobs):
                encounter, game_index = jobs[progress.next_job]
                if progress.stopping and encounter.number not in started_encounters:
                    return  # finish the pairs already begun, start no new ones
                progress.next_job += 1
                started_encounters.add(encounter.number)
                record = await self._play_job(pool, config, encounter, game_index, encounter.game_number(game_index))
                records.append(record)
                on_game(record, records)
                if not progress.stopping and should_stop(records):
                    progress.stopping = True

        try:
            # Start one of each engine before the first game so that a bad command fails at once.
            for index in range(len(config.engines)):
                await pool.release(index, await pool.acquire(index))
            await asyncio.gather(*(worker() for _ in range(config.concurrency)))
        finally:
            await pool.close()
        records.sort(key=lambda record: record.number)
        return MatchOutcome(
            records, stopped_early=progress.stopping and len(records) < len(jobs), restarts=dict(pool.restarts)
        )

    def play_pair(self, config: MatchConfig, encounter: Encounter) -> list[GameRecord]:
        """Both games of one encounter on engines started for them, numbered as :meth:`run` numbers them (a
        cluster worker's task, :mod:`tuning.backends.cluster`)."""
        logging.getLogger("chess.engine").setLevel(logging.ERROR)
        return asyncio.run(self._play_pair(config, encounter))

    async def _play_pair(self, config: MatchConfig, encounter: Encounter) -> list[GameRecord]:
        pool = _EnginePool(config.engines, config.startup_timeout)
        try:
            return [
                await self._play_job(pool, config, encounter, game_index, encounter.game_number(game_index))
                for game_index in (0, 1)
            ]
        finally:
            await pool.close()

    async def _play_job(
        self, pool: _EnginePool, config: MatchConfig, encounter: Encounter, game_index: int, number: int
    ) -> GameRecord:
        white_index, black_index = (
            (encounter.first, encounter.second) if game_index == 0 else (encounter.second, encounter.first)
        )
        white_name, black_name = config.engines[white_index].name, config.engines[black_index].name
        game = _new_pgn(config, encounter, white_name, black_name, number)
        players: dict[chess.Color, _EngineProcess] = {}
        try:
            for color, index in ((chess.WHITE, white_index), (chess.BLACK, black_index)):
                try:
                    players[color] = await pool.acquire(index)
                except _StartFailure:
                    end, plies = _fault_end("crash", color, "engine failed to restart"), 0
                    break
            else:
                node: chess.pgn.GameNode = game.end()
                end, plies = await _play_game(players, encounter.opening, config, node)
        finally:
            for color, process in players.items():
                await pool.release(white_index if color == chess.WHITE else black_index, process)
        game.headers["Result"] = end.result
        game.headers["Termination"] = end.termination
        game.headers["PlyCount"] = str(len(list(game.mainline_moves())))
        last = game.end()
        last.comment = f"{last.comment}, {end.reason}" if last.comment else end.reason
        if config.pgn_out:
            _append_pgn(config.pgn_out, game)
        faulty = None
        if end.faulty_side is not None:
            faulty = white_name if end.faulty_side == chess.WHITE else black_name
        return GameRecord(
            number, encounter.number, white_name, black_name, end.result, end.reason, end.fault, faulty, plies
        )
