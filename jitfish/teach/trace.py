"""What a teaching search did, in order: one event trace per search, for stepping through it.

A :class:`Trace` is a list of events, each a plain dict (JSON-serialisable:
:meth:`Trace.as_dict`) with a ``kind`` and the fields of that kind, given
here as :class:`typing.TypedDict` classes.  A path is the list of child
indices from the root; a window is ``[alpha, beta]``, where an infinite bound
is written as the string ``"+inf"`` or ``"-inf"`` (JSON has no infinity)::

    >>> from jitfish.teach.toytree import TEXTBOOK_TREE, alphabeta_tree
    >>> trace = Trace("jitfish teach tree")
    >>> result = alphabeta_tree(TEXTBOOK_TREE, trace=trace)
    >>> trace.counts()["leaves"], trace.counts()["spared_leaves"]
    (7, 2)

A trace is bounded: past ``cap`` events (:data:`DEFAULT_CAP`) recording
stops the search with :class:`TraceFull`, whose message says what to do.
The counts a trace adds up to (:meth:`Trace.counts`) are those the reports
give for the same search; the tests hold them to it.
"""

from __future__ import annotations

import math
from typing import Any, Literal, NotRequired, TypedDict

DEFAULT_CAP = 20_000  # events: a page of this many still opens and steps at once
Bound = float | str  # a number, or "+inf" / "-inf"


class Enter(TypedDict, total=False):
    """A node entered: its path, the move that led there, the window it is searched with."""

    kind: Literal["enter"]
    path: list[int]
    label: str  # the move leading here ("" for the root or a tree of numbers)
    leaf: bool
    role: str  # "max", "min", "chance", or a player's letter (max^n)
    window: list[Bound]  # [alpha, beta]; absent where the search has none (max^n)
    probability: float  # of this outcome, under a chance node
    fen: str  # the position, in a tree of chess positions


class Value(TypedDict, total=False):
    """The value a node returns to its parent (a number, or a utility tuple in max^n)."""

    kind: Literal["value"]
    path: list[int]
    value: Bound | list[float]
    note: str  # a chance node cut by Star1: the bound it returned ("<= 1.5")


class Spared(TypedDict, total=False):
    path: list[int]
    label: str
    nodes: int  # (not in a chess search: the subtree was never generated)
    leaves: int


class Cutoff(TypedDict):
    """A cut-off at ``path`` after the child ``after``: the children not searched and what they hold."""

    kind: Literal["cutoff"]
    path: list[int]
    after: int
    window: list[Bound]
    spared: list[Spared]


class TableHit(TypedDict):
    """The transposition table settled the node at ``path`` without a search: ``value``."""

    kind: Literal["table_hit"]
    path: list[int]
    value: Bound


class Search(TypedDict):
    """A search from the root begins (one depth of iterative deepening, one MTD(f) pass): a new tree."""

    kind: Literal["search"]
    rung: str
    depth: int
    window: NotRequired[list[Bound]]  # absent where the search has none (minimax)


class Pass(TypedDict):
    """One MTD(f) pass done: the question ``gamma`` ("at least gamma?"), the answer, the bounds it leaves."""

    kind: Literal["pass"]
    depth: int
    number: int
    gamma: int
    value: int
    lower: Bound
    upper: Bound
    nodes: int


class Backup(TypedDict):
    """max^n: the player at ``path`` takes the tuple of child ``chosen``, the best for itself."""

    kind: Literal["backup"]
    path: list[int]
    player: str
    chosen: int
    value: list[float]


class LineMove(TypedDict):
    label: str  # the move in SAN
    fen: str  # the position after it


class Line(TypedDict):
    """One iteration of the engine's own search, as it reports it: no node by node, its principal variation."""

    kind: Literal["line"]
    depth: int
    seldepth: int
    nodes: int  # searched so far, this iteration and those before it
    value: Bound  # for the root player
    bound: str  # "", or "lowerbound" / "upperbound" where the aspiration window failed
    fen: str  # the root
    moves: list[LineMove]


Event = Enter | Value | Cutoff | Backup | TableHit | Search | Pass | Line


class TraceFull(ValueError):
    """More events than the trace's cap: the search stops."""


def bound(value: float) -> Bound:
    """A number as the trace writes it: infinities as ``"+inf"`` and ``"-inf"``."""
    if isinstance(value, float) and math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return value


def number(value: Bound) -> float:
    """The inverse of :func:`bound`."""
    if isinstance(value, str):
        return math.inf if value == "+inf" else -math.inf
    return value


class Trace:
    """The events of one search, in order, at most ``cap`` of them; ``command`` says what made it."""

    def __init__(self, command: str = "", cap: int = DEFAULT_CAP, kind: str = "tree") -> None:
        if cap < 1:
            raise ValueError(f"a trace's cap is at least 1 event, got {cap}")
        self.command = command
        self.cap = cap
        self.kind = kind  # what the page draws: "tree" (a game tree)
        self.title = ""
        self.summary: dict[str, Any] = {}  # the report's numbers, shown beside the replay
        self.events: list[dict[str, Any]] = []

    def __len__(self) -> int:
        return len(self.events)

    def add(self, kind: str, **fields: Any) -> None:
        """Record one event; past the cap, raise :class:`TraceFull`."""
        if len(self.events) >= self.cap:
            raise TraceFull(self.full_message())
        self.events.append({"kind": kind, **fields})

    def full_message(self) -> str:
        return (
            f"the trace is full: this search records more than {self.cap:,} events "
            f"(the cap, so that its page stays quick); trace a smaller search or raise the cap"
        )

    def counts(self) -> dict[str, int]:
        """Nodes and leaves entered, cut-offs, the branches, nodes and leaves they spared, and the other events.

        In a chess search the subtrees a cut-off spared were never generated: their moves are counted
        (``spared_moves``), their nodes and leaves are not.  The engine's own search enters no node here:
        ``engine_nodes`` is the nodes its last ``line`` reports.
        """
        names = ("nodes", "leaves", "cutoffs", "spared_moves", "spared_nodes", "spared_leaves")
        counts = dict.fromkeys((*names, "backups", "table_hits", "searches", "passes", "lines", "engine_nodes"), 0)
        for event in self.events:
            kind = event["kind"]
            if kind == "enter":
                counts["nodes"] += 1
                counts["leaves"] += bool(event["leaf"])
            elif kind == "cutoff":
                counts["cutoffs"] += 1
                counts["spared_moves"] += len(event["spared"])
                counts["spared_nodes"] += sum(spared.get("nodes", 0) for spared in event["spared"])
                counts["spared_leaves"] += sum(spared.get("leaves", 0) for spared in event["spared"])
            elif kind == "backup":
                counts["backups"] += 1
            elif kind == "table_hit":
                counts["table_hits"] += 1
            elif kind == "search":
                counts["searches"] += 1
            elif kind == "pass":
                counts["passes"] += 1
            elif kind == "line":  # the engine's running count, not a sum
                counts["lines"] += 1
                counts["engine_nodes"] = event["nodes"]
        return counts

    def _repr_html_(self) -> str:
        """In a notebook, the page that replays the trace."""
        from jitfish.teach.page import notebook_html

        return notebook_html(self)

    def as_dict(self) -> dict[str, Any]:
        """The trace as JSON-serialisable data: what the page replays."""
        return {
            "command": self.command,
            "kind": self.kind,
            "title": self.title,
            "cap": self.cap,
            "summary": self.summary,
            "counts": self.counts(),
            "events": self.events,
        }
