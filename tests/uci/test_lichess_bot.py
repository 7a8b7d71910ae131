"""lichess-bot's use of the engine, replayed through python-chess call for call.

lichess-bot (github.com/lichess-bot-devs/lichess-bot, ``lib/engine_wrapper.py``) checks the engine once at
start-up (start it, set its options, ``isready``, quit), then starts a **new engine process for every
game**: ``SimpleEngine.popen_uci(command, timeout=60)``, ``configure`` with the ``uci_options`` of its
``config.yml`` (the defaults below, whose ``SyzygyPath`` is a folder that usually does not exist),
``send_opponent_information`` (``UCI_Opponent``, sent only to an engine that declares it), then for each
of its moves ``play`` with ``info=INFO_ALL``, ``ponder``, ``draw_offered`` and ``root_moves`` (a list only
when its tablebases suggest several moves).  Each side's first move gets ``Limit(time=10)`` and no
pondering (Lichess aborts a game whose first move takes 30 s, and the clocks start after it); later
moves get both clocks, less lichess-bot's own ``move_overhead`` (2 s).  It reads ``score`` (for draw
offers and resignation) and ``wdl`` from the result's info.  At the end: ``send_game_result``, ``ping``,
``quit``.

Here the bot plays two games to their end against a scripted opponent that moves at once (a random legal
move, or the bot's ponder move half the time, so that both a ponder hit and a miss happen), once as White
and once as Black.  Lichess's clock is kept: every move must be legal and leave the bot's clock above
zero, and the first move must come within Lichess's 30 s, counted (as Lichess does) from the game's
start, which is when lichess-bot starts the engine.  That is after a warm start: ``lichess_bot_warm``
first starts the engine once with the same options and searches, with a long timeout, so that whatever
those options compile is in the cache, as it is for a bot's second game on Lichess.  (Issue 48: from a
cache without the tablebase kernels, a missing ``SyzygyPath`` made the engine compile them, 35-45 s,
beyond lichess-bot's 60 s timeout on a loaded machine.)  The first ``play`` itself takes lichess-bot's
10 s (less Move Overhead) plus the wait for ``readyok`` that python-chess sends before a new game's first
``go``, so no wall-clock bound near 10 s can tell a working engine from a slow start on a busy machine;
Lichess's 30 s can.
"""

from __future__ import annotations

import random
import time

import chess
import chess.engine
import pytest

from tests.uci.conftest import COLD_START_TIMEOUT, ENGINE_COMMAND, REPO

pytestmark = pytest.mark.slow  # two whole games and five engine starts: about 80 s on a busy machine

# lichess-bot's config.yml.default: engine.uci_options.  Its SyzygyPath is relative to the engine's
# working directory, here the repository, which has no syzygy/ folder.
LICHESS_BOT_OPTIONS = {"Move Overhead": 100, "Threads": 4, "Hash": 512, "SyzygyPath": "./syzygy/", "UCI_ShowWDL": True}
START_TIMEOUT = 60.0  # popen_uci(..., timeout=60.)
FIRST_MOVE_TIME = 10.0  # engine_wrapper.first_move_time
LICHESS_BOT_OVERHEAD = 2.0  # config.yml's move_overhead (ms / 1000), taken off the bot's clock
# A bullet clock keeps the test short; the increment as Lichess's 1+1 would have it, scaled down.
CLOCK, INCREMENT = 12.0, 0.2
ROOT_MOVES_AT = 6  # the bot's move of this number gets root_moves
MOVE_CAP = 300  # plies: the games below end (by mate, mostly) well before this
LICHESS_FIRST_MOVE_ABORT = 30.0  # Lichess aborts a game whose first move takes longer


def start_engine(timeout: float = START_TIMEOUT) -> chess.engine.SimpleEngine:
    """What ``UCIEngine.__init__`` does: the process, then the options of ``config.yml``."""
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_COMMAND, timeout=timeout, setpgrp=True, cwd=REPO)
    engine.configure(LICHESS_BOT_OPTIONS)
    return engine


@pytest.fixture(scope="module")
def lichess_bot_warm(warm_cache) -> None:
    """One engine with lichess-bot's options that searches, waited for long: the kernels those options
    use are then in the cache, and every later start is warm."""
    with start_engine(COLD_START_TIMEOUT) as engine:
        engine.ping()
        engine.play(chess.Board(), chess.engine.Limit(depth=2))
        engine.quit()


def check_configuration() -> None:
    """lichess-bot's start-up check: ``with create_engine(CONFIG): pass`` (``__exit__`` pings and quits)."""
    with start_engine() as engine:
        engine.ping()
        engine.quit()


def opponent_move(board: chess.Board, ponder: chess.Move | None, rng: random.Random) -> chess.Move:
    """The scripted opponent: the bot's expected reply half the time (a ponder hit), else any other move.

    Never a hit before the bot's move that gets ``root_moves``: python-chess answers a hit with
    ``ponderhit``, which goes on with the pondering search and its root, so lichess-bot's root moves
    apply only after a miss (and to a new search)."""
    others = sorted((move for move in board.legal_moves if move != ponder), key=chess.Move.uci)
    hit_allowed = ponder in board.legal_moves and (board.fullmove_number, board.turn) not in (
        (ROOT_MOVES_AT, chess.WHITE),
        (ROOT_MOVES_AT - 1, chess.BLACK),
    )
    if hit_allowed and (not others or rng.random() < 0.5):
        return ponder
    return rng.choice(others)


def play_game(bot_colour: chess.Color, seed: int) -> tuple[chess.Board, list[float], dict[str, int]]:
    """One game as lichess-bot plays it; the final board, the bot's first move's time from the engine's
    start, and event counts."""
    assert not (REPO / "syzygy").exists(), "the test needs lichess-bot's SyzygyPath to be a missing folder"
    rng = random.Random(seed)
    board = chess.Board()
    clocks = {chess.WHITE: CLOCK, chess.BLACK: CLOCK}
    first_move_times: list[float] = []
    seen = {"wdl": 0, "ponder": 0, "root_moves": 0}
    ponder: chess.Move | None = None
    game_start = time.perf_counter()
    with start_engine() as engine:
        engine.send_opponent_information(
            opponent=chess.engine.Opponent(name="scripted", title="BOT", rating=1500, is_engine=True),
            engine_rating=2000,
        )
        while not board.is_game_over(claim_draw=True) and board.ply() < MOVE_CAP:
            if board.turn != bot_colour:
                board.push(opponent_move(board, ponder, rng))
                continue
            first_move = len(board.move_stack) < 2
            if first_move:
                limit, can_ponder = chess.engine.Limit(time=FIRST_MOVE_TIME, clock_id="first move"), False
            else:
                own = "white_clock" if bot_colour == chess.WHITE else "black_clock"
                sent = dict(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK])
                sent[own] = max(0.001, sent[own] - LICHESS_BOT_OVERHEAD)
                limit = chess.engine.Limit(**sent, white_inc=INCREMENT, black_inc=INCREMENT, clock_id="real time")
                can_ponder = True
            # lichess-bot's tablebase "suggest" mode restricts the root; do so once a game.
            root_moves = None
            if board.fullmove_number == ROOT_MOVES_AT:
                root_moves = sorted(board.legal_moves, key=chess.Move.uci)[:3]
                seen["root_moves"] += 1
            started = time.perf_counter()
            result = engine.play(
                board, limit, info=chess.engine.INFO_ALL, ponder=can_ponder, draw_offered=False, root_moves=root_moves
            )
            used = time.perf_counter() - started
            assert result.move in board.legal_moves, f"illegal {result.move} in {board.fen()}"
            if root_moves is not None:
                assert result.move in root_moves, f"{result.move} is not among the root moves {root_moves}"
            if first_move:
                since_start = time.perf_counter() - game_start
                first_move_times.append(since_start)
                assert since_start < LICHESS_FIRST_MOVE_ABORT, f"first move {since_start:.1f} s after the start"
            else:
                clocks[bot_colour] -= used
                assert clocks[bot_colour] > 0, f"lost on time at ply {board.ply()}: used {used:.2f} s"
                clocks[bot_colour] += INCREMENT
            assert "score" in result.info, result.info
            if "wdl" in result.info:
                wdl = result.info["wdl"].relative
                assert wdl.total() == 1000 and min(wdl.wins, wdl.draws, wdl.losses) >= 0, wdl
                seen["wdl"] += 1
            ponder = result.ponder if can_ponder else None
            seen["ponder"] += ponder is not None
            board.push(result.move)
        engine.send_game_result(board)
        engine.ping()
        engine.quit()
    return board, first_move_times, seen


@pytest.mark.parametrize("bot_colour, seed", [(chess.WHITE, 1), (chess.BLACK, 2)], ids=["white", "black"])
def test_lichess_bot_plays_a_game_to_its_end(lichess_bot_warm, bot_colour, seed):
    check_configuration()
    board, first_move_times, seen = play_game(bot_colour, seed)
    outcome = board.outcome(claim_draw=True)
    assert outcome is not None, f"no result after {board.ply()} plies: {board.fen()}"
    assert outcome.winner in (bot_colour, None), f"the bot lost to a random mover: {outcome}"
    assert len(first_move_times) == 1
    bot_moves = (board.ply() + (bot_colour == chess.WHITE)) // 2
    assert seen["wdl"] == bot_moves, f"wdl in {seen['wdl']} of {bot_moves} moves (UCI_ShowWDL is on)"
    assert seen["ponder"] > 0 and seen["root_moves"] == 1
