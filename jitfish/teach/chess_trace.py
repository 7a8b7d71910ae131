"""The compiled searches' traces, read into :class:`jitfish.teach.trace.Trace` events.

The kernels of :mod:`jitfish.teach.kernels` write what they do into a
preallocated array (``TRACE_HEADER`` numbers, then ``TRACE_FIELDS`` per
event: kind, ply, move, alpha, beta, value, extra), and only when the array
is longer than its header.  :class:`ChessRecorder` holds that array and,
after each search, turns its events into the trace's: the path of every node
(the child indices, a re-search being a child of its own), the move in SAN,
the position as a FEN, and values and windows from the root player's point of
view (the kernels are negamax: each ply sees them negated), so that the page
draws MAX and MIN nodes as on the blackboard.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jitfish.teach.trace import Trace, TraceFull
from jitfish.types import INF

KERNEL_EVENTS_PER_EVENT = 8  # the kernels' array holds this many of their events per event the trace may hold


def score_bound(value: int) -> int | str:
    """A score as the trace writes it: the kernels' infinity (``INF``) as ``"+inf"`` or ``"-inf"``."""
    if value >= INF:
        return "+inf"
    if value <= -INF:
        return "-inf"
    return value


class ChessRecorder:
    """The kernels' trace array for one root position, and the :class:`Trace` its events go to."""

    def __init__(self, trace: Trace, fen: str, chess960: bool = False) -> None:
        from jitfish.teach import kernels as K

        self.trace = trace
        self.fen = fen
        self.chess960 = chess960
        # Room for the kernel's own events: each move a cutoff spared is one there (one cutoff event here).
        rows = trace.cap * KERNEL_EVENTS_PER_EVENT
        self.buffer = np.zeros(K.TRACE_HEADER + rows * K.TRACE_FIELDS, dtype=np.int64)
        self.rung = ""  # what a search is called on the page, when not the rung's name
        self.windowed = True  # whether the search under way has windows (minimax has none)

    def search(self, rung: str, depth: int, alpha: int | None = None, beta: int | None = None) -> None:
        """Mark the start of a search from the root (the page then starts a new tree); no window: minimax."""
        self.windowed = alpha is not None and beta is not None
        window = {"window": [score_bound(alpha), score_bound(beta)]} if alpha is not None and beta is not None else {}
        self.trace.add("search", rung=self.rung or rung, depth=depth, **window)

    def collect(self) -> None:
        """Read the events the last search wrote into the trace, and empty the array."""
        import chess

        from jitfish.board.moves import move_to_uci
        from jitfish.teach import kernels as K

        count = int(self.buffer[K.TRACE_COUNT])
        overflow = bool(self.buffer[K.TRACE_OVERFLOW])
        self.buffer[K.TRACE_COUNT] = 0
        self.buffer[K.TRACE_OVERFLOW] = 0
        if overflow:
            raise TraceFull(self.trace.full_message())
        rows = self.buffer[K.TRACE_HEADER : K.TRACE_HEADER + count * K.TRACE_FIELDS].reshape(count, K.TRACE_FIELDS)
        board = chess.Board(self.fen, chess960=self.chess960)
        stack: list[dict[str, Any]] = []  # per ply: the node's path, its enter event, its next child's index
        cutoff: dict[str, Any] = {}
        for kind, ply, move, alpha, beta, value, extra in rows.tolist():
            sign = 1 if ply % 2 == 0 else -1  # negamax: odd plies see the root player's values negated

            def window(a: int = alpha, b: int = beta, s: int = sign) -> list:
                return [score_bound(a), score_bound(b)] if s == 1 else [score_bound(-b), score_bound(-a)]

            if kind == K.EVENT_ENTER:
                label = ""
                if ply == 0:
                    board = chess.Board(self.fen, chess960=self.chess960)
                    path: list[int] = []
                else:
                    parent = stack[ply - 1]
                    path = parent["path"] + [parent["next"]]
                    parent["next"] += 1
                    while len(board.move_stack) > ply - 1:
                        board.pop()
                    played = chess.Move.from_uci(move_to_uci(move, self.chess960)) if move else chess.Move.null()
                    label = board.san(played) if move else "null move"
                    board.push(played)
                del stack[ply:]
                self.trace.add(
                    "enter",
                    path=path,
                    label=label,
                    leaf=False,
                    role="max" if sign == 1 else "min",
                    **({"window": window()} if self.windowed else {}),
                    fen=board.fen(),
                    depth=extra,
                )
                stack.append({"path": path, "enter": self.trace.events[-1], "next": 0})
            elif kind == K.EVENT_VALUE:
                node = stack[ply]
                if extra:
                    node["enter"]["leaf"] = True
                self.trace.add("value", path=node["path"], value=score_bound(sign * value))
            elif kind == K.EVENT_TABLE_HIT:
                self.trace.add("table_hit", path=stack[ply]["path"], value=score_bound(sign * value))
            elif kind == K.EVENT_CUTOFF:
                node = stack[ply]
                self.trace.add(
                    "cutoff",
                    path=node["path"],
                    after=node["next"] - 1,
                    window=window(),
                    value=score_bound(sign * value),
                )
                self.trace.events[-1]["spared"] = []
                cutoff = self.trace.events[-1]
            elif kind == K.EVENT_SPARED:
                node = stack[ply]
                while len(board.move_stack) > ply:
                    board.pop()
                spared = chess.Move.from_uci(move_to_uci(move, self.chess960))
                cutoff["spared"].append({"path": node["path"] + [node["next"]], "label": board.san(spared)})
                node["next"] += 1


def record_uct(trace: Trace, fen: str, chess960: bool, tree: np.ndarray, size: int, rows: np.ndarray) -> None:
    """UCT's iterations into ``trace``, from the tree the kernel built (``size`` nodes) and its per-iteration ``rows``.

    Each ``iteration`` event holds the selection path (child indices; the last
    node the one expanded, if ``expanded``), the new node's move and position,
    the playout's outcome for the side to move at the path's end, and, per
    node of the path from the root, its visits and mean outcome (for the side
    that moved into it, as UCB1 reads it) after the backup.
    """
    import chess

    from jitfish.board.moves import move_to_uci
    from jitfish.teach import mcts_kernels as K

    parent: dict[int, int] = {}
    index: dict[int, int] = {}  # a node's place among its parent's children (generator order)
    for node in range(size):
        child, i = int(tree[node, K.FIRST_CHILD]), 0
        while child != -1:
            parent[child], index[child] = node, i
            child, i = int(tree[child, K.NEXT_SIBLING]), i + 1
    boards = {0: chess.Board(fen, chess960=chess960)}
    visits: dict[int, int] = {}
    rewards: dict[int, float] = {}
    for number, (last, expanded, score) in enumerate(rows.tolist(), start=1):
        chain = [int(last)]
        while chain[-1] != 0:
            chain.append(parent[chain[-1]])
        chain.reverse()
        event: dict[str, Any] = {"number": number, "path": [index[n] for n in chain[1:]], "expanded": bool(expanded)}
        if number == 1:
            event["root"] = {"fen": boards[0].fen()}
        for node in chain[1:]:
            if node not in boards:
                board = boards[parent[node]].copy(stack=False)
                move = chess.Move.from_uci(move_to_uci(int(tree[node, K.MOVE]), chess960))
                label = board.san(move)
                board.push(move)
                boards[node] = board
                event["new"] = {"label": label, "fen": board.fen(), "role": "min" if len(chain) % 2 == 0 else "max"}
        event["playout"] = round(score, 4)
        backed = []
        outcome = score
        for node in reversed(chain):
            visits[node] = visits.get(node, 0) + 1
            rewards[node] = rewards.get(node, 0.0) + 1.0 - outcome
            outcome = 1.0 - outcome
            backed.append([visits[node], round(rewards[node] / visits[node], 4)])
        event["backed"] = backed[::-1]
        trace.add("iteration", **event)


def record_engine(trace: Trace, fen: str, chess960: bool, infos: list) -> None:
    """The engine's iterations into ``trace``, as it reports them (its ``info`` lines: :class:`SearchInfo`).

    Jitfish's own search is not replayed node by node: its kernel is the engine's, and records nothing.  Each
    ``line`` event holds what one iteration reports: the depth, the nodes searched so far, the value (for the
    root player; ``bound`` says when it is only a bound, the aspiration window having failed), and the
    principal variation, each move with its position.
    """
    import chess

    for info in infos:
        board = chess.Board(fen, chess960=chess960)
        moves = []
        for uci in info.pv:
            move = chess.Move.from_uci(uci)
            moves.append({"label": board.san(move)})
            board.push(move)
            moves[-1]["fen"] = board.fen()
        trace.add(
            "line",
            depth=info.depth,
            seldepth=info.seldepth,
            nodes=info.nodes,
            value=score_bound(info.score),
            bound=info.bound,
            fen=fen,
            moves=moves,
        )
