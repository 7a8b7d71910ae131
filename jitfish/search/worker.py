"""One search thread's buffers and its iterative deepening, the loop every search runs.

A :class:`SearchWorker` owns a copy of the root position, its heuristics, stack and control array
(:mod:`jitfish.search.buffers`).  Python crosses into compiled code once per aspiration window of each
iteration (``negamax`` at the root).  The shared state, the transposition table, evaluation weights and
search parameters, is passed to each call, so that one table serves several workers (Lazy SMP helpers).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from jitfish.board.moves import move_from_to
from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from jitfish.eval.evaluation import psq_score
from jitfish.nnue.inference import KernelNetwork
from jitfish.search import buffers as B
from jitfish.search import negamax as N
from jitfish.search.context import NO_TABLES, new_context
from jitfish.search.evalstack import network_arrays, prepare_root
from jitfish.search.params import Param
from jitfish.syzygy import probe_arrays
from jitfish.types import INF, MATE_BOUND, MAX_PLY

if TYPE_CHECKING:
    from jitfish.search.context import SearchContext
    from jitfish.syzygy import Tablebase

POLL_NODES = 1024  # the kernel reads its stop flag every this many nodes (well under a millisecond)
MAX_DEPTH = MAX_PLY - 8
ASPIRATION_MIN_DEPTH = 4
ASPIRATION_MAX_DELTA = 1000  # beyond this the window opens fully


@dataclass
class Iteration:
    """A completed iteration of :meth:`SearchWorker.iterate`."""

    depth: int
    lines: list[tuple[int, list[int]]]  # (score, principal variation as encoded moves), best first


class SearchWorker:
    """One search thread's buffers and its iterative deepening: a position copy, heuristics, stack, control array.

    :class:`Searcher` runs one per thread (the first is the main thread, the others Lazy SMP helpers);
    the self-play generator (:mod:`tuning.datagen.selfplay`) drives one on its own, without threads or clock.
    The shared state, the transposition table, evaluation weights and search parameters, is passed to each
    call, so that one table can serve several workers.  A search goes: :meth:`prepare` (the position, the
    limits), then :meth:`iterate` (the iterative deepening every search runs) or :meth:`iterate_nodes` (the
    same, node-limited and quiet); :attr:`best_pv`, :attr:`completed`, :attr:`nodes` and :attr:`stopped` read the
    result.
    """

    def __init__(self, params: np.ndarray, network: KernelNetwork | None, tablebase: Tablebase | None = None) -> None:
        # The buffers of jitfish.search.buffers; the views name parts of ``work``.
        self.control = np.zeros(B.CONTROL_SIZE, dtype=np.int64)
        self.work = np.zeros(B.WORK_SIZE, dtype=np.int32)
        self.stack = B.new_stack()
        self.heuristics = self.work[: B.HEURISTICS_SIZE]
        self.pv = self.work[B.PV : B.PV + B.PV_SIZE]
        self.set_reductions(params)
        self.set_network(network)
        self.set_tablebase(tablebase)
        self.position = Position()  # the root, searched in place: prepare() copies the position into it
        self.best_pv: list[int] = []  # the best line so far of iterate()
        self.depth = 0  # the iteration iterate() is on
        self.completed: Iteration | None = None  # the last iteration iterate() completed

    def set_network(self, network: KernelNetwork | None) -> None:
        """Evaluate with ``network`` (None: the hand-written evaluation), with a stack of accumulators of our own."""
        self.network = network_arrays(network)

    def set_tablebase(self, tablebase: Tablebase | None) -> None:
        """Probe ``tablebase`` (None: no tables) with a probe scratch and settings of our own; without tables
        the search's context has none (the search compiled without a prober: jitfish.search.context)."""
        self.syzygy = probe_arrays(tablebase)
        self.tables_in_context = self.syzygy if tablebase is not None else NO_TABLES

    @property
    def tb_settings(self) -> np.ndarray:
        """The probe settings and hit counter the search reads (``jitfish.syzygy.layout.PROBE_*``)."""
        return self.syzygy[2]

    def set_reductions(self, params: np.ndarray) -> None:
        """Rebuild the late-move reduction table from ``params`` (in Python: nothing recompiles)."""
        self.work[B.LMR : B.LMR + B.LMR_SIDE * B.LMR_SIDE] = N.late_move_reductions(params)

    def prepare(
        self,
        position: Position,
        age: int,
        node_limit: int,
        root_moves: list[int],
        tb_settings: np.ndarray | None = None,
    ) -> None:
        """Set up a search of ``position`` (copied: the caller's is left as it is), probing as ``tb_settings``
        says (the searcher's, hits at zero; None: no probing)."""
        position.copy_into(self.position)
        self.tb_settings[:] = 0 if tb_settings is None else tb_settings
        c = self.control
        c[:] = 0
        B.reset_stack(self.stack)
        c[B.C_NODE_LIMIT] = node_limit
        c[B.C_AGE] = age
        c[B.C_POLL_MASK] = POLL_NODES - 1 if node_limit >= POLL_NODES else 0  # a small limit holds exactly
        c[B.C_ROOT_COUNT] = len(root_moves)
        c[B.C_ROOT_MOVES : B.C_ROOT_MOVES + len(root_moves)] = root_moves

    def effort(self, move: int) -> float | None:
        """The share of this search's root nodes spent under ``move`` (None before any)."""
        total = int(self.control[B.C_ROOT_NODES_TOTAL])
        return int(self.control[B.C_ROOT_NODES + move_from_to(move)]) / total if total else None

    def evaluate_root(self, weights: np.ndarray) -> None:
        """Set up ply 0's evaluation state: the search keeps the material and piece-square
        score (and the network's accumulators) move by move from the root's."""
        mg, eg = psq_score(self.position.bbs, weights)
        self.stack["psq_mg"][B.STACK_ROOT], self.stack["psq_eg"][B.STACK_ROOT] = mg, eg
        prepare_root(self.network, self.stack, self.position.bbs)

    def context(self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray) -> SearchContext:
        """The search context of this thread's position (:mod:`jitfish.search.context`)."""
        return new_context(
            self.position,
            lookup_tables(),
            weights,
            self.network,
            params,
            tt,
            self.work,
            self.control,
            self.stack,
            self.tables_in_context,
        )

    def search_root(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, alpha: int, beta: int, depth: int
    ) -> int:
        """One call of the search kernel at the root with the window ``(alpha, beta)``: its score."""
        self.evaluate_root(weights)
        ctx = self.context(tt, weights, params)
        return int(N.negamax(ctx, alpha, beta, depth, 0, 0))

    def aspiration(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, depth: int, previous: int
    ) -> tuple[int, bool]:
        """One iteration: a window around the previous score, widened on failure, full at last;
        ``(score, whether a stop cut it short)``."""
        delta = int(params[Param.ASPIRATION_DELTA])
        if depth >= ASPIRATION_MIN_DEPTH and abs(previous) < MATE_BOUND:
            alpha, beta = max(previous - delta, -INF), min(previous + delta, INF)
        else:
            alpha, beta = -INF, INF
        while True:
            self.control[B.C_SELDEPTH] = 0
            score = self.search_root(tt, weights, params, alpha, beta, depth)
            if self.stopped:
                return score, True
            if score <= alpha:
                beta = (alpha + beta) // 2
                alpha = max(score - delta, -INF)
            elif score >= beta:
                beta = min(score + delta, INF)
            else:
                return score, False
            delta += delta
            if delta > ASPIRATION_MAX_DELTA:
                alpha, beta = -INF, INF

    def finish_first_iteration(self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray) -> tuple[int, bool]:
        """Redo depth 1 past a stop that came before it finished (a deadline already gone when the search
        began, a tiny node limit, an early ``stop``): it takes about a millisecond, and the move played is
        then one a search chose, not merely the first legal move.  The stop is set again afterwards."""
        control = self.control
        node_limit = int(control[B.C_NODE_LIMIT])
        control[B.C_STOP] = 0
        control[B.C_NODE_LIMIT] = 1 << 62
        try:
            return self.aspiration(tt, weights, params, 1, 0)
        finally:
            control[B.C_NODE_LIMIT] = node_limit
            control[B.C_STOP] = 1

    def iterate(
        self,
        tt: np.ndarray,
        weights: np.ndarray,
        params: np.ndarray,
        max_depth: int,
        multipv: int = 1,
        root_moves: list[int] | None = None,
    ) -> Iterator[Iteration]:
        """Iterative deepening of the position :meth:`prepare` set: the one loop of every search (the
        :class:`~jitfish.search.searcher.Searcher`'s main thread, the self-play generator).

        Yields each completed iteration, its ``multipv`` lines best first (each line searched with the
        moves of the lines before it excluded, over ``root_moves`` when given; the caller decides whether
        to go on: it stops asking, or a stop cuts an iteration short, which ends the loop).  A stop during
        depth 1 is undone so that the move played is one a search chose (:meth:`finish_first_iteration`).
        :attr:`best_pv` holds the best line so far, including a root move of an iteration cut short that
        fully beat the previous best before the stop: an improvement all the same.  Depth 1 always yields
        all its lines.
        """
        self.best_pv, self.completed = [], None
        previous = [0] * multipv
        for depth in range(1, max_depth + 1):
            self.depth = depth
            excluded: list[int] = []
            lines: list[tuple[int, list[int]]] = []
            for line in range(multipv):
                if root_moves is not None:
                    allowed = [move for move in root_moves if move not in excluded]
                    self.control[B.C_ROOT_COUNT] = len(allowed)
                    self.control[B.C_ROOT_MOVES : B.C_ROOT_MOVES + len(allowed)] = allowed
                score, aborted = self.aspiration(tt, weights, params, depth, previous[line])
                if aborted and depth == 1:  # every line of depth 1: a weakened engine picks among them
                    score, aborted = self.finish_first_iteration(tt, weights, params)
                pv = self.root_pv()
                if aborted:
                    if line == 0 and pv:
                        self.best_pv = pv
                    return
                previous[line] = score
                lines.append((score, pv))
                if pv or root_moves is not None:
                    excluded.append(pv[0] if pv else allowed[0])
            lines.sort(key=lambda scored: -scored[0])
            self.best_pv = lines[0][1] or self.best_pv
            self.completed = Iteration(depth=depth, lines=lines)
            yield self.completed

    def iterate_nodes(
        self, tt: np.ndarray, weights: np.ndarray, params: np.ndarray, soft_nodes: int, max_depth: int
    ) -> tuple[int, int]:
        """:meth:`iterate` node-limited and quiet, as the self-play generator plays: no iteration starts once
        ``soft_nodes`` are searched, the hard limit is the one :meth:`prepare` set.  ``(best move, its
        score)``; the move is 0 only if no iteration found one (a position without legal moves)."""
        best_score = 0
        for iteration in self.iterate(tt, weights, params, max_depth):
            best_score = iteration.lines[0][0]
            if self.stopped or self.nodes >= soft_nodes:
                break
        return (self.best_pv[0] if self.best_pv else 0), best_score

    def root_pv(self) -> list[int]:
        """The principal variation of the last root search, encoded moves (empty if it found none)."""
        length = int(self.pv[0])
        return self.pv[1 : 1 + length].tolist()

    @property
    def stopped(self) -> bool:
        """Whether this thread's stop flag is raised (a stop, a deadline or the node limit)."""
        return bool(self.control[B.C_STOP])

    @property
    def nodes(self) -> int:
        """The nodes this thread has searched since :meth:`prepare`."""
        return int(self.control[B.C_NODES])
