"""The in-search WDL probe: one call from negamax, with its settings in the thread's probe settings.

negamax asks :func:`probe_in_search` at every non-root node; it answers only
where the tables are sure to help and cheap to ask: right after a capture or
pawn move (rule-50 counter zero, so the WDL value is exact for the game, and
the capture search inside the probe is short), with at most ``SyzygyProbeLimit``
pieces (``SyzygyProbeLimit``, capped by the largest table loaded; 0 turns
probing off), at depth ``SyzygyProbeDepth`` or more.

A win scores ``TB_WIN - ply`` (a nearer tablebase win ranks higher, every
mate higher still), as a lower bound: the search may still find the mate.
A loss is the mirror image, an upper bound.  A draw is exact; with
``Syzygy50MoveRule`` a cursed win or blessed loss is a draw too, scored one
centipawn to the luckier side, without it a win or loss.

The tables travel in the search context's ``syzygy`` field, ``(tb, scratch,
settings)``: the packed table array of :class:`jitfish.syzygy.Tablebase`, the
thread's probe scratch and its settings and hit counter
(:func:`jitfish.syzygy.probe_arrays`).  Only the search with tables calls this
(negamax's step 4b: :mod:`jitfish.search.context` says why there are two).
The check that comes first is inlined into negamax; only a node that passes
it calls the compiled prober.
"""

from __future__ import annotations

from jitfish.board import layout as L
from jitfish.board.bitops import popcount
from jitfish.runtime.jit import kernel
from jitfish.syzygy.layout import PROBE_DEPTH, PROBE_HITS, PROBE_PIECES, PROBE_RULE50, TB_FAILED
from jitfish.syzygy.probe import probe_wdl
from jitfish.types import BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, TB_WIN


@kernel(hot=True, inline=True)
def probe_in_search(ctx, ply, depth):
    """``(score, bound)`` from the tables for this node, or ``(0, BOUND_NONE)`` when they are not asked."""
    tb, scratch, settings = ctx.syzygy
    if (
        ctx.state[L.HALFMOVE_CLOCK] != 0
        or popcount(ctx.bbs[L.OCCUPIED]) > settings[PROBE_PIECES]
        or depth < settings[PROBE_DEPTH]
    ):
        return 0, BOUND_NONE
    wdl = probe_wdl(ctx.bbs, ctx.state, ctx.undo, ctx.key_history, ctx.tables, tb, scratch)
    if wdl == TB_FAILED:
        return 0, BOUND_NONE
    settings[PROBE_HITS] += 1
    draw_margin = settings[PROBE_RULE50]  # 1: the 50-move rule turns cursed wins into draws
    if wdl > draw_margin:
        return TB_WIN - ply, BOUND_LOWER
    if wdl < -draw_margin:
        return -TB_WIN + ply, BOUND_UPPER
    return wdl, BOUND_EXACT
