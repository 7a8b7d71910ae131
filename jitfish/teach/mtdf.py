"""MTD(f): the minimax value found by zero-window tests alone, a table of bounds remembering each.

An alpha-beta search with the zero window ``(gamma - 1, gamma)`` cannot
return a value inside it; it answers a yes-or-no question, "is the value at
least ``gamma``?": it *fails high* with a lower bound (the value is at least
what it returns) or *fails low* with an upper bound.  Such tests are cheap,
because a zero window cuts as much as a window can.  MTD(f) (Plaat et al.,
1996) asks them one after another, each at the edge of what the previous
ones established, until the lower bound meets the upper: that is the value.

Two things make it work.  A table that keeps both bounds of every position
(the kernels' ``BOUNDS``): the next pass, asking a nearby question, finds
most of the tree already settled and searches only where the answer could
change.  And a good first guess: each depth starts from the value of the
depth before (iterative deepening), usually a few centipawns away, so two or
three passes suffice.  The lecture notes put it beside aspiration windows
(a narrow window around the guess) and PVS/NegaScout (zero windows for
every move but the first): all three bet that the guess is nearly right.
"""

from __future__ import annotations

from collections.abc import Callable

from jitfish.teach.report import MtdfPass
from jitfish.types import INF

# search(alpha, beta) -> (the fail-soft value, nodes visited, the principal variation it found)
Search = Callable[[int, int], tuple[int, int, list[str]]]


def mtdf(search: Search, guess: int, trace=None, depth: int = 0) -> tuple[int, list[str], list[MtdfPass]]:
    """MTD(f) from the first ``guess``: the value, a principal variation, and every pass.

    ``search`` is an alpha-beta search of one position to one depth that
    fails soft and remembers bounds between calls (see
    :func:`jitfish.teach.ladder._run_mtdf`).  A ``trace`` records each pass
    when it is done (``depth`` says which depth's it is).
    """
    lower, upper, value = -INF, INF, guess
    passes: list[MtdfPass] = []
    pv: list[str] = []
    while lower < upper:
        # 1. The question: at least gamma?  Just above the lower bound when the last pass failed high there.
        gamma = value + 1 if value == lower else value
        value, nodes, line = search(gamma - 1, gamma)
        # 2. The answer moves one bound; a pass that fails high also says which move reaches it.
        if value >= gamma:
            lower, pv = value, line
        else:
            upper = value
        passes.append(MtdfPass(gamma, value, lower, upper, nodes))
        if trace is not None:
            from jitfish.teach.chess_trace import score_bound

            trace.add(
                "pass",
                depth=depth,
                number=len(passes),
                gamma=gamma,
                value=value,
                lower=score_bound(lower),
                upper=score_bound(upper),
                nodes=nodes,
            )
    return value, pv, passes
