"""``Engine``: the facade between a protocol and the chess code.

The UCI layer turns lines into calls on an :class:`Engine` (``set_position``,
``go``, ``stop``, ``ponderhit``, ``perft``, ``new_game``, option setters) and
gets results back through callbacks (:class:`EngineCallbacks`), so it holds no
chess logic.  The engine owns the board, the :class:`~jitfish.search.Searcher`,
the opening book (:mod:`jitfish.book`) and the playing-strength rules
(:mod:`jitfish.strength`); each ``go`` gets a
:class:`~jitfish.search.timeman.TimeController`, the one owner of its clock.
Searches run in a thread of their own so that ``stop``, ``ponderhit`` and
``isready`` are answered at any moment.  The engine layer never imports the
protocol layer (:mod:`jitfish.uci`).
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Callable

from jitfish.board import layout as L
from jitfish.board.board import Board
from jitfish.board.moves import move_to_uci
from jitfish.board.position import STARTING_FEN
from jitfish.search import SearchInfo, SearchLimits, SearchResult, Searcher
from jitfish.search.timeman import TimeController
from jitfish.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL, SKILL_MULTIPV, pick_weaker_move, skill_for_elo

if TYPE_CHECKING:
    import subprocess

    from jitfish.book import Book
    from jitfish.nnue.inference import KernelNetwork
    from jitfish.syzygy import Tablebase

# Win/draw/loss model (UCI_ShowWDL): the chance to win is a logistic curve of
# the score, centred WDL_CENTRE_CP above zero with a spread of WDL_SCALE_CP.
WDL_CENTRE_CP = 200.0
WDL_SCALE_CP = 100.0


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

    @property
    def analysing(self) -> bool:
        """``go infinite`` and ``go ponder``: no clock runs, and the answer waits for ``stop`` or ``ponderhit``."""
        return self.infinite or self.ponder


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
    syzygy_probe_depth: int = 1
    syzygy_50_move_rule: bool = True
    syzygy_probe_limit: int = 7

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


def _tablebase_scores(on_info: Callable[[SearchInfo], None], root_probe) -> Callable[[SearchInfo], None]:
    """``on_info`` with scores replaced by the tablebase's verdict (``RootProbe.score``) when there is one."""
    if root_probe is None:
        return on_info

    def relay(info: SearchInfo) -> None:
        info.score_cp, info.score_mate = root_probe.score(info.score_cp, info.score_mate)
        on_info(info)

    return relay


class _InfoRelay:
    """The search's ``on_info``: passes on the lines the user asked for, keeps the last iteration's lines."""

    def __init__(self, on_info: Callable[[SearchInfo], None], shown_multipv: int) -> None:
        self._on_info = on_info
        self._shown_multipv = shown_multipv
        self.last_iteration: list[SearchInfo] = []

    def __call__(self, info: SearchInfo) -> None:
        if info.multipv <= self._shown_multipv:
            self._on_info(info)
        if info.bound == "":
            if info.multipv == 1:
                self.last_iteration = []
            self.last_iteration.append(info)


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
        self.book: Book | None = None  # set by BookFile
        self.network: KernelNetwork | None = None   # set by EvalFile or Use NNUE; searched with when use_nnue
        self.use_nnue = False
        self.tablebase: Tablebase | None = None     # set by SyzygyPath
        self._rng = random.Random(0x5EED)
        self._thread: threading.Thread | None = None
        self._searching = False
        self._go: GoParams | None = None
        self._timer = TimeController()  # the clock of the current (or last) go

    # --- loading ----------------------------------------------------------
    def warm_up(self, helper: subprocess.Popen | None = None) -> None:
        """Load (or compile) the search kernels, so that the first ``go`` is fast.

        ``helper``: a cold-start helper process started before the engine was built
        (:func:`jitfish.compile.start_helper`).
        """
        from jitfish.compile import warm_search

        warm_search(started=helper)

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

    def set_search_param(self, name: str, value: int) -> None:
        """A search parameter (``--tune`` mode's options), for the next search; ``ValueError`` when out of range."""
        self.searcher.set_param(name, value)

    def set_eval_file(self, path: str) -> None:
        """Load the network of ``path`` (empty: the one shipped in the package); ``OSError``/``ValueError``
        keep the one loaded."""
        from jitfish.nnue.format import SHIPPED_NETWORK, read_network
        from jitfish.nnue.inference import kernel_network

        path = path or str(SHIPPED_NETWORK)
        self.network = kernel_network(read_network(path))
        self.callbacks.on_message(f"network {path}: 768 -> {self.network.hidden} -> 1")
        self._apply_evaluation()

    def set_use_nnue(self, enabled: bool) -> None:
        """Search with the network of ``EvalFile`` (the shipped one if none was set), or the hand-written
        evaluation."""
        if enabled and self.network is None:
            self.set_eval_file("")
        self.use_nnue = enabled
        self._apply_evaluation()

    def _apply_evaluation(self) -> None:
        network = self.network if self.use_nnue else None
        if network is not self.searcher.network:
            self.searcher.set_network(network)

    def set_syzygy_path(self, text: str) -> None:
        """Load the Syzygy tables of ``text``'s folders (``<empty>``: none); problems are reported, never raised."""
        from jitfish.syzygy import Tablebase

        previous, self.tablebase = self.tablebase, Tablebase(text) if text else None
        self._apply_tablebase()
        if previous is not None:
            previous.close()
        if self.tablebase is not None:
            for problem in self.tablebase.problems:
                self.callbacks.on_message(f"error: {problem}")
            self.callbacks.on_message(self.tablebase.summary())

    def _apply_tablebase(self) -> None:
        settings = self.settings
        self.searcher.set_tablebase(self.tablebase, settings.syzygy_probe_limit, settings.syzygy_probe_depth,
                                    settings.syzygy_50_move_rule)

    def set_book_file(self, path: str) -> None:
        from jitfish.book import Book

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
        board = self.board.copy()
        time_left, increment = (params.wtime, params.winc) if board.turn else (params.btime, params.binc)
        self._timer = TimeController.for_go(time_left, increment, params.movestogo, params.movetime,
                                            self.settings.move_overhead_ms, pondering=params.analysing,
                                            origin=params.received_at, params=self.searcher.params)
        self._go = params
        self._searching = True
        self._thread = threading.Thread(target=self._search_thread, args=(board, params),
                                        name="jitfish-search", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the running search (or release a finished ponder/infinite one)."""
        self._timer.stop()
        self.searcher.stop()

    def ponderhit(self) -> None:
        """The opponent played the pondered move: the search becomes a timed one."""
        if self._go is None or not self._go.ponder:
            return
        limits = self._timer.ponderhit()
        if limits is not None:
            self.callbacks.on_debug(f"ponderhit: soft {limits.soft:.3f} s hard {limits.hard:.3f} s")

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the search thread; ``True`` when it has ended."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _search_thread(self, board: Board, params: GoParams) -> None:
        try:
            best, ponder = self._think(board, params)
        except Exception as error:  # never leave a GUI waiting without a move
            self.callbacks.on_message(f"error: search failed: {type(error).__name__}: {error}")
            legal = board.legal_moves()
            best, ponder = (legal[0] if legal else "0000"), None
            self._timer.wait_released()
        # Idle before the GUI can read bestmove and send its next command.
        self._searching = False
        self.callbacks.on_bestmove(best, ponder)

    def _think(self, board: Board, params: GoParams) -> tuple[str, str | None]:
        """The move to play (and to ponder on), in the steps below."""
        legal = board.legal_moves()

        # Step 1. No legal move: report mate or stalemate, answer 0000.
        if not legal:
            self._report_no_legal_move(board)
            self._timer.wait_released()
            return "0000", None

        # Step 2. Root moves: searchmoves restricts them (unknown ones are reported and dropped).
        searchmoves = self._root_moves(board, params.searchmoves, legal)

        # Step 2b. Tablebases: at a root in the tables, only the moves that keep the best result.
        root_probe = self._probe_root(board, searchmoves)
        if root_probe is not None:
            searchmoves = root_probe.moves

        # Step 3. Opening book: a book move is played at once.
        if not params.analysing and searchmoves is None:
            move = self._book_move(board)
            if move is not None:
                return move, None

        # Step 4. Limits: the timer keeps the clock; the explicit limits go to the searcher.
        limits = SearchLimits(depth=params.depth, nodes=params.nodes, mate=params.mate, searchmoves=searchmoves)

        # Step 5. A single legal move is played at once (a depth-1 search gives its score).
        only_move = len(legal) == 1 or (searchmoves is not None and len(searchmoves) == 1)
        if only_move and self._timer.budget is not None and not params.analysing:
            limits.depth = 1

        # Step 6. Weakening: Skill Level / UCI_LimitStrength.
        level, multipv = self._weaken(limits, params.analysing)

        # Step 7. Search, relaying info; the timer stops it.
        self._apply_tablebase()
        relay = _InfoRelay(_tablebase_scores(self.callbacks.on_info, root_probe), self.settings.multipv)
        result = self.searcher.search(board, limits, on_info=relay, multipv=multipv,
                                      on_currmove=self.callbacks.on_currmove, timer=self._timer)

        # Step 8. A last info line, then wait for stop/ponderhit when pondering or infinite.
        if root_probe is not None:
            result.score_cp, result.score_mate = root_probe.score(result.score_cp, result.score_mate)
        self._final_info(result)
        self._timer.wait_released()
        return self._choose_move(result, relay.last_iteration, level, legal)

    def _report_no_legal_move(self, board: Board) -> None:
        score_mate, score_cp = (0, None) if board.is_check() else (None, 0)
        self.callbacks.on_info(SearchInfo(depth=0, seldepth=0, multipv=1, score_cp=score_cp,
                                          score_mate=score_mate, bound="", nodes=0, time=0.0,
                                          nps=0, hashfull=self.searcher.hashfull(), pv=[]))

    def _root_moves(self, board: Board, requested: list[str], legal: list[str]) -> list[str] | None:
        """The legal moves of ``searchmoves`` in the board's notation, or ``None`` for all moves."""
        legal_set = set(legal)
        searchmoves = []
        for move in requested:
            try:
                encoded = board.parse_uci(move)
            except ValueError:
                self.callbacks.on_message(f"error: searchmoves: '{move}' is not legal here, ignored")
                continue
            text = move_to_uci(encoded, board.chess960)
            if text in legal_set and text not in searchmoves:
                searchmoves.append(text)
        return searchmoves or None

    def _probe_root(self, board: Board, searchmoves: list[str] | None):
        """The tablebase's verdict on the root (``jitfish.syzygy.root.RootProbe``), or ``None`` when it has none."""
        tablebase = self.tablebase
        if tablebase is None or board.position.state[L.CASTLING_RIGHTS]:
            return None
        if int(board.position.bbs[L.OCCUPIED]).bit_count() > min(self.settings.syzygy_probe_limit,
                                                                   tablebase.max_pieces):
            return None
        from jitfish.syzygy.root import probe_root

        probe = probe_root(tablebase, board.fen(), self.settings.syzygy_50_move_rule)
        if probe is None:
            return None
        if searchmoves is not None:
            probe.moves = [move for move in probe.moves if move in searchmoves] or searchmoves
        self.callbacks.on_debug(f"tablebase root: {probe.method} outcome {probe.outcome} moves {probe.moves}")
        return probe

    def _book_move(self, board: Board) -> str | None:
        if self.book is None or not self.settings.own_book:
            return None
        move = self.book.pick(board, self._rng)
        if move is not None:
            self.callbacks.on_message(f"book move {move}")
        return move

    def _weaken(self, limits: SearchLimits, analysing: bool) -> tuple[int | None, int]:
        """Skill Level / UCI_LimitStrength: the level to pick a move at (``None``: full strength)
        and the number of lines to search; a node budget for an Elo goes into ``limits``."""
        settings = self.settings
        level, multipv = settings.skill_level, settings.multipv
        if settings.limit_strength:
            level, node_budget = skill_for_elo(settings.elo, MIN_ELO, MAX_ELO)
            limits.nodes = node_budget if limits.nodes is None else min(limits.nodes, node_budget)
        skill = level < SKILL_MAX_LEVEL and not analysing
        if skill:
            multipv = max(multipv, SKILL_MULTIPV)
        budget = self._timer.budget
        self.callbacks.on_debug(
            f"limits: depth {limits.depth} nodes {limits.nodes} movetime {self._timer.movetime} "
            f"soft {budget and budget.soft} hard {budget and budget.hard} multipv {multipv} skill {level}")
        return (level if skill else None), multipv

    def _choose_move(self, result: SearchResult, last_iteration: list[SearchInfo], level: int | None,
                     legal: list[str]) -> tuple[str, str | None]:
        """The searched move, or a weaker pick among the last iteration's lines; never an illegal one."""
        best, ponder = result.best_move, result.ponder_move
        if level is not None and len(last_iteration) > 1:
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
            nps=int(result.nodes / elapsed), hashfull=self.searcher.hashfull(), pv=list(result.pv),
            tbhits=result.tbhits))

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
        if self.network is not None:
            from jitfish.nnue.inference import evaluate as network_evaluate

            score = network_evaluate(self.network, self.board)
            white_score = score if self.board.turn else -score
            used = "searched with" if self.use_nnue else "not used: Use NNUE is off"
            rows.append(f"NNUE evaluation: {white_score / 100:+.2f} (white side) [{score:+d} cp side to move]"
                        f" ({used})")
        return "\n".join(rows)

    def bench(self, depth: int | None = None) -> str:
        """``bench``: the bench positions searched to a fixed depth (a fresh table, one thread)."""
        from jitfish.search.bench import BENCH_DEPTH, bench_report, run_bench

        return bench_report(*run_bench(depth or BENCH_DEPTH, quiet=True))
