"""``Engine``: the facade between a protocol and the chess code.

The UCI layer turns lines into calls on an :class:`Engine` (``set_position``,
``go``, ``stop``, ``ponderhit``, ``perft``, ``new_game``, option setters) and
gets results back through callbacks (:class:`EngineCallbacks`), so it holds no
chess logic.  The engine owns the board, the :class:`~jitfish.search.Searcher`,
the opening book, time management and the playing-strength rules; searches run
in a thread of their own so that ``stop``, ``ponderhit`` and ``isready`` are
answered at any moment.
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Callable

from jitfish.board.board import Board
from jitfish.board.moves import move_to_uci
from jitfish.board.position import STARTING_FEN
from jitfish.search import SearchInfo, SearchLimits, SearchResult, Searcher
from jitfish.search.timeman import StabilityClock, TimeLimits, ponderhit_limits, time_limits
from jitfish.uci.options import MAX_ELO, MIN_ELO

# Win/draw/loss model (UCI_ShowWDL): the chance to win is a logistic curve of
# the score, centred WDL_CENTRE_CP above zero with a spread of WDL_SCALE_CP.
WDL_CENTRE_CP = 200.0
WDL_SCALE_CP = 100.0
# Skill Level (as Stockfish): search at least SKILL_MULTIPV lines, then pick a
# move from them with a seeded random push that grows as the level drops.
SKILL_MULTIPV = 4
SKILL_MAX_LEVEL = 20
SKILL_PUSH_CAP_CP = 100
# UCI_LimitStrength: Elo maps linearly onto Skill Level 0..19 and onto a node
# budget that doubles every ELO_PER_DOUBLING points above the weakest setting.
ELO_NODES_AT_MIN = 200
ELO_PER_DOUBLING = 200


@dataclass
class GoParams:
    """The parameters of one ``go`` command (times in milliseconds, as sent)."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    depth: int | None = None
    nodes: int | None = None
    mate: int | None = None
    movetime: int | None = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: list[str] = field(default_factory=list)
    received_at: float = field(default_factory=time.perf_counter)


@dataclass
class Settings:
    """Option values the engine reads at each ``go``."""

    ponder: bool = False
    multipv: int = 1
    move_overhead_ms: int = 20
    skill_level: int = SKILL_MAX_LEVEL
    limit_strength: bool = False
    elo: int = 1500
    show_wdl: bool = False
    own_book: bool = False

    def update(self, **values) -> None:
        names = {f.name for f in fields(self)}
        for name, value in values.items():
            if name not in names:
                raise AttributeError(name)
            setattr(self, name, value)


@dataclass
class EngineCallbacks:
    """Where the engine reports: search info, the best move, and free text."""

    on_info: Callable[[SearchInfo], None] = lambda info: None
    on_currmove: Callable[[int, str, int], None] = lambda depth, move, number: None
    on_bestmove: Callable[[str, str | None], None] = lambda best, ponder: None
    on_message: Callable[[str], None] = lambda text: None  # shown as "info string"
    on_debug: Callable[[str], None] = lambda text: None    # shown only with "debug on"


def win_draw_loss(score_cp: int | None, score_mate: int | None) -> tuple[int, int, int]:
    """Per-mille chances (win, draw, loss) for the side to move, from a logistic model."""
    if score_mate is not None:
        return (1000, 0, 0) if score_mate > 0 else (0, 0, 1000)
    cp = float(score_cp or 0)
    win = 1000.0 / (1.0 + math.exp((WDL_CENTRE_CP - cp) / WDL_SCALE_CP))
    loss = 1000.0 / (1.0 + math.exp((WDL_CENTRE_CP + cp) / WDL_SCALE_CP))
    win_i, loss_i = round(win), round(loss)
    return win_i, 1000 - win_i - loss_i, loss_i


def skill_for_elo(elo: int, min_elo: int, max_elo: int) -> tuple[int, int]:
    """(Skill Level, node budget) playing at about ``elo``."""
    share = (min(max(elo, min_elo), max_elo) - min_elo) / max(max_elo - min_elo, 1)
    level = min(int(share * SKILL_MAX_LEVEL), SKILL_MAX_LEVEL - 1)
    nodes = int(ELO_NODES_AT_MIN * 2 ** ((elo - min_elo) / ELO_PER_DOUBLING))
    return level, nodes


def pick_weaker_move(lines: list[SearchInfo], level: int, rng: random.Random) -> str:
    """Stockfish's Skill Level rule over the lines of the last iteration (best first).

    Each line scores ``score + (weakness * (top - score) + delta * random(weakness)) / 128``
    and the highest wins: the random push grows as ``level`` drops, so weaker
    levels often pick a worse line, yet never one far worse than ``delta``.
    """
    scored = [(line, _comparable_score(line)) for line in lines if line.pv]
    if not scored:
        return lines[0].pv[0] if lines and lines[0].pv else "0000"
    top = scored[0][1]
    weakness = 120 - 2 * level
    delta = min(top - scored[-1][1], SKILL_PUSH_CAP_CP)
    best_move, best_value = scored[0][0].pv[0], -math.inf
    for line, score in scored:
        push = (weakness * (top - score) + delta * rng.randrange(weakness)) / 128
        if score + push >= best_value:
            best_value, best_move = score + push, line.pv[0]
    return best_move


def _comparable_score(info: SearchInfo) -> int:
    if info.score_mate is not None:
        return 100_000 - info.score_mate if info.score_mate > 0 else -100_000 - info.score_mate
    return info.score_cp or 0


class Engine:
    """Board, searcher, book and options behind the calls a protocol makes.

    Not thread-safe by itself except :meth:`stop`, :meth:`ponderhit` and
    :meth:`is_searching`: the protocol calls it from one thread, and the
    search runs in a thread the engine starts.
    """

    def __init__(self, callbacks: EngineCallbacks | None = None, hash_mb: int = 16, threads: int = 1) -> None:
        self.callbacks = callbacks or EngineCallbacks()
        self.settings = Settings()
        self.searcher = Searcher(hash_mb=hash_mb, threads=threads)
        self.chess960 = False
        self.board = Board()
        self.has_position = False
        self._position_moves: tuple[str, list[str]] = ("", [])  # what self.board was set from
        self.book = None  # jitfish.uci.book.Book when BookFile is set
        self._rng = random.Random(0x5EED)
        self._thread: threading.Thread | None = None
        self._searching = False
        self._lock = threading.Lock()
        self._released = threading.Event()  # stop or ponderhit arrived
        self._stop_requested = False
        self._ponder_mode = False
        self._ponderhit_deadlines: tuple[float, float] | None = None  # absolute (soft, hard)
        self._go_limits: TimeLimits | None = None
        self._search_started_at = 0.0
        self._go: GoParams | None = None

    # --- loading ----------------------------------------------------------
    def warm_up(self) -> None:
        """Load (or compile) the search kernels, so that the first ``go`` is fast."""
        from jitfish.compile import warm_search

        warm_search()

    def warm_up_eval(self) -> None:
        """Load (or compile) the ``eval`` report's kernels: done after ``readyok``, since ``eval`` is rare."""
        self._evaluate_terms(Board())

    def warm_up_perft(self) -> None:
        """Load (or compile) perft: done after ``readyok``, since ``go perft`` is rare."""
        Board().perft(2)

    # --- options ----------------------------------------------------------
    def set_hash(self, megabytes: int) -> None:
        self.searcher.resize(megabytes)

    def clear_hash(self) -> None:
        self.searcher.clear()

    def set_threads(self, threads: int) -> None:
        self.searcher.set_threads(threads)

    def set_chess960(self, enabled: bool) -> None:
        """Chess960 castling (king takes rook) for the positions set from now on."""
        if enabled != self.chess960:
            self.chess960 = enabled
            self.board = Board(self.board.fen(), chess960=enabled)
            self._position_moves = ("", [])

    def set_book_file(self, path: str) -> None:
        from jitfish.uci.book import Book

        self.book = None
        if path:
            self.book = Book(path)  # OSError / ValueError reach the protocol
            self.callbacks.on_message(f"book {path}: {len(self.book)} entries")

    # --- game -------------------------------------------------------------
    def new_game(self) -> None:
        """``ucinewgame``: forget the table and histories."""
        self.searcher.clear()
        self._rng = random.Random(0x5EED)

    def set_position(self, fen: str | None, moves: list[str]) -> None:
        """Set the position; ``ValueError`` on a bad FEN or move.

        A bad FEN leaves the previous position; a bad move leaves the position
        after the moves before it (as Stockfish does).
        """
        fen = STARTING_FEN if fen is None else fen
        known_fen, known_moves = self._position_moves
        start = 0
        if fen == known_fen and moves[:len(known_moves)] == known_moves and self.has_position:
            # The usual case in a game: the last position plus a move or two.
            board = self.board.copy()
            start = len(known_moves)
        else:
            try:
                board = Board(fen, chess960=self.chess960)
            except ValueError as error:
                raise ValueError(f"{error}; position unchanged") from None
        self.board = board
        self.has_position = True
        self._position_moves = ("", [])  # until every move is in
        for index in range(start, len(moves)):
            move = moves[index]
            try:
                board.push_uci(move)
            except ValueError as error:
                raise ValueError(f"move {index + 1} '{move}': {error}; "
                                 f"position set up to the move before") from None
        self._position_moves = (fen, list(moves))

    # --- search -----------------------------------------------------------
    def is_searching(self) -> bool:
        """``True`` from ``go`` until just before ``bestmove`` is reported."""
        return self._searching

    def go(self, params: GoParams) -> None:
        """Start a search in a thread; the best move arrives through ``on_bestmove``."""
        if self.is_searching():
            raise RuntimeError("a search is already running")
        self._released.clear()
        self._stop_requested = False
        self._ponderhit_deadlines = None
        self._ponder_mode = params.ponder
        self._go = params
        self._searching = True
        self._search_started_at = params.received_at
        board = self.board.copy()
        self._go_limits = self._clock_limits(params, board.turn)
        self._thread = threading.Thread(target=self._search_thread, args=(board, params),
                                        name="jitfish-search", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the running search (or release a finished ponder/infinite one)."""
        with self._lock:
            self._stop_requested = True
            self._released.set()
        self.searcher.stop()

    def ponderhit(self) -> None:
        """The opponent played the pondered move: the search becomes a timed one."""
        with self._lock:
            if not self._ponder_mode or self._released.is_set():
                return
            self._ponder_mode = False
            now = time.perf_counter()
            limits = self._go_limits
            if limits is not None:
                limits = ponderhit_limits(limits, now - self._search_started_at)
                self._ponderhit_deadlines = (now + limits.soft, now + limits.hard)
                self.callbacks.on_debug(f"ponderhit: soft {limits.soft:.3f} s hard {limits.hard:.3f} s")
            self._released.set()
        if limits is not None:
            self.searcher.ponderhit(limits.soft, limits.hard)
        else:  # no clock: the depth or node limits of the go end the search
            self.searcher.ponderhit(None, None)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the search thread; ``True`` when it has ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _clock_limits(self, params: GoParams, white: bool) -> TimeLimits | None:
        """Soft and hard limits from the side to move's clock and ``movetime`` (less Move Overhead)."""
        overhead = self.settings.move_overhead_ms
        time_left = params.wtime if white else params.btime
        clock = None
        if time_left is not None:
            increment = params.winc if white else params.binc
            clock = time_limits(time_left, increment, params.movestogo, overhead)
        if params.movetime is not None:
            movetime = max(params.movetime - overhead, 1) / 1000.0
            clock = TimeLimits(soft=movetime, hard=movetime) if clock is None else TimeLimits(
                soft=min(clock.soft, movetime), hard=min(clock.hard, movetime))
        return clock

    def _search_thread(self, board: Board, params: GoParams) -> None:
        try:
            best, ponder = self._think(board, params)
        except Exception as error:  # never leave a GUI waiting without a move
            self.callbacks.on_message(f"error: search failed: {type(error).__name__}: {error}")
            legal = board.legal_moves()
            best, ponder = (legal[0] if legal else "0000"), None
            self._wait_for_release(params)
        # Idle before the GUI can read bestmove and send its next command.
        self._searching = False
        self.callbacks.on_bestmove(best, ponder)

    def _wait_for_release(self, params: GoParams) -> None:
        """``go infinite`` and ``go ponder`` answer only after ``stop`` or ``ponderhit``."""
        if params.infinite or params.ponder:
            self._released.wait()

    def _think(self, board: Board, params: GoParams) -> tuple[str, str | None]:
        settings = self.settings
        legal = board.legal_moves()
        analysing = params.infinite or params.ponder

        # Step 1. No legal move: report mate or stalemate, answer 0000.
        if not legal:
            score_mate, score_cp = (0, None) if board.is_check() else (None, 0)
            self.callbacks.on_info(SearchInfo(depth=0, seldepth=0, multipv=1, score_cp=score_cp,
                                              score_mate=score_mate, bound="", nodes=0, time=0.0,
                                              nps=0, hashfull=self.searcher.hashfull(), pv=[]))
            self._wait_for_release(params)
            return "0000", None

        # Step 2. Root moves: searchmoves restricts them (unknown ones are reported and dropped).
        searchmoves = None
        if params.searchmoves:
            legal_set = set(legal)
            searchmoves = []
            for move in params.searchmoves:
                try:
                    encoded = board.parse_uci(move)
                except ValueError:
                    self.callbacks.on_message(f"error: searchmoves: '{move}' is not legal here, ignored")
                    continue
                text = move_to_uci(encoded, board.chess960)
                if text in legal_set and text not in searchmoves:
                    searchmoves.append(text)
            if not searchmoves:
                searchmoves = None

        # Step 3. Opening book: a book move is played at once.
        if self.book is not None and settings.own_book and not analysing and searchmoves is None:
            move = self.book.pick(board, self._rng)
            if move is not None:
                self.callbacks.on_message(f"book move {move}")
                return move, None

        # Step 4. Limits: clocks through time management, then the explicit ones.
        limits = SearchLimits(depth=params.depth, nodes=params.nodes, mate=params.mate,
                              searchmoves=searchmoves, infinite=analysing)
        clock = self._go_limits
        if params.movetime is not None:
            limits.movetime = clock.hard
        elapsed = time.perf_counter() - params.received_at
        stability = None
        if clock is not None and not analysing:
            limits.soft_time = max(clock.soft - elapsed, 0.0005)
            limits.hard_time = max(clock.hard - elapsed, 0.0005)
            if params.movetime is None:
                stability = StabilityClock(limits.soft_time)
            # Step 5. A single legal move is played at once (a depth-1 search gives its score).
            if len(legal) == 1 or (searchmoves is not None and len(searchmoves) == 1):
                limits.depth = 1
        multipv = settings.multipv

        # Step 6. Weakening: Skill Level / UCI_LimitStrength.
        level = settings.skill_level
        if settings.limit_strength:
            level, node_budget = skill_for_elo(settings.elo, MIN_ELO, MAX_ELO)
            limits.nodes = node_budget if limits.nodes is None else min(limits.nodes, node_budget)
        skill = level < SKILL_MAX_LEVEL and not analysing
        if skill:
            multipv = max(multipv, SKILL_MULTIPV)
        self.callbacks.on_debug(
            f"limits: depth {limits.depth} nodes {limits.nodes} movetime {limits.movetime} "
            f"soft {limits.soft_time} hard {limits.hard_time} multipv {multipv} skill {level}")

        # Step 7. Search, relaying info and watching the clock between iterations.
        lines: dict[int, SearchInfo] = {}
        last_iteration: list[SearchInfo] = []
        started = time.perf_counter()
        shown_multipv = settings.multipv

        def on_info(info: SearchInfo) -> None:
            nonlocal last_iteration
            if info.multipv <= shown_multipv:
                self.callbacks.on_info(info)
            if info.bound == "":
                lines[info.multipv] = info
                if info.multipv == 1:
                    last_iteration = []
                last_iteration.append(info)
            # Re-send stop/ponderhit that may have raced with the start of the search.
            if self._stop_requested:
                self.searcher.stop()
            deadlines = self._ponderhit_deadlines
            if deadlines is not None and not self._ponder_mode:
                now = time.perf_counter()
                if now >= deadlines[0]:
                    self.searcher.stop()
                else:
                    self.searcher.ponderhit(deadlines[0] - now, max(deadlines[1] - now, 0.0005))
            if stability is not None and info.multipv == 1 and info.bound == "" and info.pv:
                if stability.after_iteration(info.pv[0], time.perf_counter() - started):
                    self.searcher.stop()

        result: SearchResult = self.searcher.search(board, limits, on_info=on_info, multipv=multipv,
                                                    on_currmove=self.callbacks.on_currmove)

        # Step 8. A last info line, then wait for stop/ponderhit when pondering or infinite.
        self._final_info(result)
        self._wait_for_release(params)
        best, ponder = result.best_move, result.ponder_move
        if skill and len(last_iteration) > 1:
            pick = pick_weaker_move(sorted(last_iteration, key=lambda i: i.multipv), level, self._rng)
            if pick != best:
                best, ponder = pick, None
        if best == "0000" or best not in legal:
            best = result.pv[0] if result.pv and result.pv[0] in legal else legal[0]
            ponder = None
        return best, ponder

    def _final_info(self, result: SearchResult) -> None:
        elapsed = max(result.time, 1e-6)
        self.callbacks.on_info(SearchInfo(
            depth=result.depth, seldepth=result.seldepth, multipv=1, score_cp=result.score_cp,
            score_mate=result.score_mate, bound="", nodes=result.nodes, time=result.time,
            nps=int(result.nodes / elapsed), hashfull=self.searcher.hashfull(), pv=list(result.pv)))

    # --- tools ------------------------------------------------------------
    def perft(self, depth: int) -> dict[str, int]:
        """``go perft``: leaf counts below each root move."""
        from jitfish.board.perft import divide_position

        if depth < 1:
            return {}
        return divide_position(self.board.position, depth)

    def describe(self) -> str:
        """``d``: the board, its FEN, Polyglot key and checkers."""
        board = self.board
        rows = ["", " +---+---+---+---+---+---+---+---+"]
        for rank_index, rank in enumerate(str(board).splitlines()):
            cells = rank.split()
            rows.append(" | " + " | ".join(" " if c == "." else c for c in cells) + f" | {8 - rank_index}")
            rows.append(" +---+---+---+---+---+---+---+---+")
        rows.append("   a   b   c   d   e   f   g   h")
        rows.append("")
        rows.append(f"Fen: {board.fen()}")
        rows.append(f"Key: {board.zobrist():016X}")
        checkers = board.to_chess().checkers() if board.is_check() else []
        import chess

        rows.append("Checkers: " + " ".join(chess.square_name(sq) for sq in checkers))
        return "\n".join(rows)

    @staticmethod
    def _evaluate_terms(board: Board) -> tuple[dict, int]:
        from jitfish.eval import evaluate, evaluate_terms

        score = evaluate(board)
        return evaluate_terms(board), score

    def eval_report(self) -> str:
        """``eval``: each term (middlegame, endgame, from white) and the final score."""
        terms, score = self._evaluate_terms(self.board)
        rows = [f"{'Term':<16}{'MG':>8}{'EG':>8}", "-" * 32]
        for name, (mg, eg) in terms.items():
            if name == "phase":
                continue
            if name == "total":
                rows.append("-" * 32)
            rows.append(f"{name:<16}{mg:>8}{eg:>8}")
        if "phase" in terms:
            phase, full = terms["phase"]
            rows.append(f"Phase: {phase}/{full} (middlegame share)")
        white_score = score if self.board.turn else -score
        rows.append(f"Final evaluation: {white_score / 100:+.2f} (white side) [{score:+d} cp side to move]")
        return "\n".join(rows)

    def bench(self, depth: int | None = None) -> str:
        """``bench``: the bench positions searched to a fixed depth (a fresh table, one thread)."""
        from jitfish.search.bench import BENCH_DEPTH, run_bench

        nodes, seconds = run_bench(depth or BENCH_DEPTH, quiet=True)
        return "\n".join(["===========================",
                          f"Total time (ms): {int(seconds * 1000)}",
                          f"Nodes searched: {nodes}",
                          f"Nodes/second: {int(nodes / max(seconds, 1e-9))}"])
