"""Teaching mode: minimax to MTD(f) side by side, measured and drawn; MCTS, expectiminimax, max^n, Kriegspiel.

Notebook use::

    from jitfish import teach
    report = teach.ladder("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", depth=5)
    print(report)                        # nodes, time, value, best move, EBF, % of the minimax tree
    teach.plot_nodes(report, "nodes.png")
    print(teach.horizon("R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", depth=3).text())
    teach.draw_tree(teach.alphabeta_tree(teach.TEXTBOOK_TREE), "tree.png")
    report = teach.mcts("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", 10_000, "eval")
    print(report)                        # root visits and means as iterations grow, alpha-beta beside them
    teach.plot_visits(report, "visits.png")
    teach.draw_tree(teach.star1_tree(teach.CHANCE_TREE, (-3, 3)), "chance.png")
    teach.plot_bounds(teach.ladder(report.fen, 5, ["pvs", "mtdf"]), "bounds.png")   # MTD(f)'s passes
    print(teach.players_tree(teach.THREE_PLAYER_TREE, 3).text())            # max^n, paranoid, random
    game = teach.play_game(teach.SamplingPlayer(True, 12), teach.RandomPlayer())   # Kriegspiel
    print(teach.game_text(game)); teach.plot_belief(game, "belief.png")
    print(teach.clairvoyance().text())
    trace = teach.Trace("the textbook tree")                 # a search step by step: in a notebook,
    teach.alphabeta_tree(teach.TEXTBOOK_TREE, trace=trace)   # the result (or the trace) shows the page
    teach.write_page(trace, "tree.html")                     # the same page as a file

Names load on first use: importing :mod:`jitfish` or this package compiles
nothing.  The teaching kernels (:mod:`jitfish.teach.kernels`,
:mod:`jitfish.teach.mcts_kernels`) compile, or load from Numba's cache, the
first time a search runs.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "ladder": "jitfish.teach.ladder",
    "ladder_suite": "jitfish.teach.ladder",
    "warm_up": "jitfish.teach.ladder",
    "minimax_tree_sizes": "jitfish.teach.ladder",
    "mtdf_passes": "jitfish.teach.ladder",
    "plot_bounds": "jitfish.teach.plot",
    "ALGORITHMS": "jitfish.teach.report",
    "ALGORITHM_NAMES": "jitfish.teach.report",
    "LadderReport": "jitfish.teach.report",
    "format_report": "jitfish.teach.report",
    "plot_nodes": "jitfish.teach.plot",
    "horizon": "jitfish.teach.horizon",
    "load_positions": "jitfish.teach.horizon",
    "TEXTBOOK_TREE": "jitfish.teach.toytree",
    "build_tree": "jitfish.teach.toytree",
    "minimax_value": "jitfish.teach.toytree",
    "alphabeta_tree": "jitfish.teach.toytree",
    "tree_from_position": "jitfish.teach.toytree",
    "draw_tree": "jitfish.teach.toytree",
    "describe_tree": "jitfish.teach.toytree",
    "mcts": "jitfish.teach.mcts",
    "uct_tree": "jitfish.teach.mcts",
    "POLICIES": "jitfish.teach.mcts",
    "MctsReport": "jitfish.teach.mcts",
    "plot_visits": "jitfish.teach.plot",
    "CHANCE_TREE": "jitfish.teach.chance",
    "build_chance_tree": "jitfish.teach.chance",
    "star1_tree": "jitfish.teach.chance",
    "THREE_PLAYER_TREE": "jitfish.teach.multiplayer",
    "OPPONENT_TREE": "jitfish.teach.multiplayer",
    "maxn_tree": "jitfish.teach.multiplayer",
    "players_tree": "jitfish.teach.multiplayer",
    "reduction": "jitfish.teach.multiplayer",
    "Belief": "jitfish.teach.kriegspiel",
    "announce": "jitfish.teach.kriegspiel",
    "SamplingPlayer": "jitfish.teach.kriegspiel_game",
    "RandomPlayer": "jitfish.teach.kriegspiel_game",
    "play_game": "jitfish.teach.kriegspiel_game",
    "game_text": "jitfish.teach.kriegspiel_game",
    "match": "jitfish.teach.kriegspiel_game",
    "plot_belief": "jitfish.teach.plot",
    "clairvoyance": "jitfish.teach.kriegspiel_clairvoyance",
    "Trace": "jitfish.teach.trace",
    "TraceFull": "jitfish.teach.trace",
    "trace_page": "jitfish.teach.page",
    "write_page": "jitfish.teach.page",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jitfish.teach' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = sorted(_LAZY)
