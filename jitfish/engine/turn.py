"""One ``go``: from a position, its parameters and the options to the move to play, in numbered steps.

:class:`Turn` runs in the engine's search thread.  It reads the options
(:class:`~jitfish.engine.options.Settings`) once, keeps a root in the Syzygy tables
to the moves that hold its result (:mod:`jitfish.syzygy.root`), asks the book,
weakens the search for Skill Level or UCI_Elo, searches, and picks the move,
reporting through :class:`EngineCallbacks`.  Its clock is the engine's
:class:`~jitfish.search.timeman.TimeController` for this ``go``, the one
object that knows the deadlines, pondering and ``stop``.  Whatever happens,
the move it returns is legal (or ``0000`` when there is none).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

from jitfish.board import layout as L
from jitfish.board.moves import move_to_uci
from jitfish.engine.strength import SKILL_MAX_LEVEL, SKILL_MULTIPV, handicap_for_elo, pick_noisy_move, pick_weaker_move
from jitfish.search import Searcher, SearchInfo, SearchLimits, SearchResult
from jitfish.search.timeman import TimeController

if TYPE_CHECKING:
    import numpy as np

    from jitfish.board.board import Board
    from jitfish.engine.book import Book
    from jitfish.engine.options import Settings
    from jitfish.syzygy.root import RootProbe

# A weakened engine's choice among the last iteration's lines (best first).
Pick = Callable[[list[SearchInfo]], str]


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

    def timer(self, white_to_move: bool, move_overhead_ms: int, search_params: np.ndarray) -> TimeController:
        """The clock of this ``go`` for the side to move (``search_params`` holds the time factors)."""
        time_left, increment = (self.wtime, self.winc) if white_to_move else (self.btime, self.binc)
        return TimeController.for_go(
            time_left,
            increment,
            self.movestogo,
            self.movetime,
            move_overhead_ms,
            pondering=self.analysing,
            origin=self.received_at,
            params=search_params,
        )


@dataclass
class EngineCallbacks:
    """Where the engine reports: search info, the best move, and free text."""

    on_info: Callable[[SearchInfo], None] = lambda info: None
    on_currmove: Callable[[int, str, int], None] = lambda depth, move, number: None
    on_bestmove: Callable[[str, str | None], None] = lambda best, ponder: None
    on_message: Callable[[str], None] = lambda text: None  # shown as "info string"
    on_debug: Callable[[str], None] = lambda text: None  # shown only with "debug on"


def _tablebase_scores(
    on_info: Callable[[SearchInfo], None], root_probe: RootProbe | None
) -> Callable[[SearchInfo], None]:
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


@dataclass
class Turn:
    """What one ``go`` needs: the engine's parts it reads, and the clock of this ``go``."""

    searcher: Searcher
    settings: Settings
    book: Book | None
    rng: random.Random
    callbacks: EngineCallbacks
    timer: TimeController

    def think(self, board: Board, params: GoParams) -> tuple[str, str | None]:
        """The move to play (and to ponder on), in the steps below."""
        legal = board.legal_moves()

        # Step 1. No legal move: report mate or stalemate, answer 0000.
        if not legal:
            self._report_no_legal_move(board)
            self.timer.wait_released()
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
        if only_move and self.timer.budget is not None and not params.analysing:
            limits.depth = 1

        # Step 6. Weakening: Skill Level / UCI_LimitStrength.
        pick, multipv = self._weaken(limits, params.analysing)

        # Step 7. Search, relaying info; the timer stops it.
        relay = _InfoRelay(_tablebase_scores(self.callbacks.on_info, root_probe), self.settings.multipv)
        result = self.searcher.search(
            board, limits, on_info=relay, multipv=multipv, on_currmove=self.callbacks.on_currmove, timer=self.timer
        )

        # Step 8. A last info line, then wait for stop/ponderhit when pondering or infinite.
        if root_probe is not None:
            result.score_cp, result.score_mate = root_probe.score(result.score_cp, result.score_mate)
        self._final_info(result)
        self.timer.wait_released()
        return self._choose_move(result, relay.last_iteration, pick, legal)

    def _report_no_legal_move(self, board: Board) -> None:
        score_mate, score_cp = (0, None) if board.is_check() else (None, 0)
        self.callbacks.on_info(
            SearchInfo(
                depth=0,
                seldepth=0,
                multipv=1,
                score_cp=score_cp,
                score_mate=score_mate,
                bound="",
                nodes=0,
                time=0.0,
                nps=0,
                hashfull=self.searcher.hashfull(),
                pv=[],
            )
        )

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

    def _probe_root(self, board: Board, searchmoves: list[str] | None) -> RootProbe | None:
        """The tablebase's verdict on the root (:class:`jitfish.syzygy.root.RootProbe`), or ``None`` when it has
        none: no tables, or more pieces than ``SyzygyProbeLimit`` or the tables allow, or castling rights."""
        tablebase = self.searcher.tablebase
        if tablebase is None or int(board.position.bbs[L.OCCUPIED]).bit_count() > self.settings.syzygy_probe_limit:
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
        move = self.book.pick(board, self.rng)
        if move is not None:
            self.callbacks.on_message(f"book move {move}")
        return move

    def _weaken(self, limits: SearchLimits, analysing: bool) -> tuple[Pick | None, int]:
        """UCI_LimitStrength (first) or Skill Level: how to pick among the lines (``None``: the best move)
        and the number of lines to search; UCI_Elo's node budget goes into ``limits``."""
        settings = self.settings
        pick: Pick | None = None
        lines = 1
        if settings.limit_strength:
            handicap = handicap_for_elo(settings.elo)
            limits.nodes = handicap.nodes if limits.nodes is None else min(limits.nodes, handicap.nodes)
            lines = handicap.lines
            if handicap.noise_cp > 0:
                pick = partial(pick_noisy_move, noise_cp=handicap.noise_cp, rng=self.rng)
        elif settings.skill_level < SKILL_MAX_LEVEL:
            lines = SKILL_MULTIPV
            pick = partial(pick_weaker_move, level=settings.skill_level, rng=self.rng)
        if analysing:
            pick = None  # analysis shows the lines as searched
        multipv = settings.multipv if pick is None else max(settings.multipv, lines)
        budget = self.timer.budget
        self.callbacks.on_debug(
            f"limits: depth {limits.depth} nodes {limits.nodes} movetime {self.timer.movetime} "
            f"soft {budget and budget.soft} hard {budget and budget.hard} multipv {multipv} weakened {pick is not None}"
        )
        return pick, multipv

    def _choose_move(
        self, result: SearchResult, last_iteration: list[SearchInfo], pick: Pick | None, legal: list[str]
    ) -> tuple[str, str | None]:
        """The searched move, or a weaker pick among the last iteration's lines; never an illegal one."""
        best, ponder = result.best_move, result.ponder_move
        if pick is not None and len(last_iteration) > 1:
            choice = pick(sorted(last_iteration, key=lambda i: i.multipv))
            if choice != best:
                best, ponder = choice, None
        if best == "0000" or best not in legal:
            best = result.pv[0] if result.pv and result.pv[0] in legal else legal[0]
            ponder = None
        return best, ponder

    def _final_info(self, result: SearchResult) -> None:
        elapsed = max(result.time, 1e-6)
        self.callbacks.on_info(
            SearchInfo(
                depth=result.depth,
                seldepth=result.seldepth,
                multipv=1,
                score_cp=result.score_cp,
                score_mate=result.score_mate,
                bound="",
                nodes=result.nodes,
                time=result.time,
                nps=int(result.nodes / elapsed),
                hashfull=self.searcher.hashfull(),
                pv=list(result.pv),
                tbhits=result.tbhits,
            )
        )
