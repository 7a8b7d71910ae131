"""What a search is asked and what it answers: limits, each iteration's report, the result.

Plain data, built with keywords: the protocol, the teaching mode, the analyser and the tools read these and
nothing else of the search.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from jitfish.types import mate_moves

# What Searcher.search() reports: each iteration's lines, and the root move the main thread is on.
InfoCallback = Callable[["SearchInfo"], None]
CurrmoveCallback = Callable[[int, str, int], None]  # (depth, move, its number among the root moves)


@dataclass
class SearchLimits:
    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None  # seconds, hard
    mate: int | None = None  # search for mate in N moves; stop when found
    searchmoves: list[str] | None = None  # UCI strings, restrict root moves
    infinite: bool = False  # no limit until the clock stops or is released
    soft_nodes: int | None = None  # do not start a new iteration once this many nodes are searched


@dataclass
class SearchInfo:
    depth: int
    seldepth: int
    multipv: int
    score_cp: int | None
    score_mate: int | None  # mate in N moves, negative if being mated
    bound: str  # "", "lowerbound" or "upperbound"
    nodes: int
    time: float
    nps: int
    hashfull: int
    pv: list[str]
    score: int = 0  # internal score (centipawns or MATE - ply)
    tbhits: int | None = None  # tablebase probes answered so far (None: no tables)


@dataclass
class SearchResult:
    best_move: str  # "0000" if no legal move
    ponder_move: str | None
    score_cp: int | None
    score_mate: int | None
    pv: list[str]
    depth: int
    seldepth: int
    nodes: int
    time: float
    score: int = 0
    infos: list[SearchInfo] = field(default_factory=list, repr=False)
    tbhits: int | None = None


def split_score(score: int) -> tuple[int | None, int | None]:
    """``(centipawns, None)``, or ``(None, mate in N moves)`` for a mate score."""
    mate = mate_moves(score)
    return (None, mate) if mate is not None else (int(score), None)
