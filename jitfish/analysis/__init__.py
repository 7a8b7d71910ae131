"""Games read back to their players: ``jitfish.analyse("game.pgn")`` and ``jitfish analyse game.pgn``.

Every position of every game is searched once (:mod:`jitfish.analysis.searching`), each move judged by the
winning chances it lost under Jitfish's WDL model (:mod:`jitfish.analysis.judge`), and the games written
back with ``[%eval]`` comments, NAGs and best lines (:mod:`jitfish.analysis.report`)::

    import jitfish
    games = jitfish.analyse("game.pgn", nodes=300_000, workers=2)
    print(games[0].summary())              # each side's accuracy, inaccuracies, mistakes and blunders
    open("game-analysed.pgn", "w").write(games[0].pgn())

docs/analyse.md has the rules and an analysed game.  Names load on first use: the command line builds
its parser from this package without importing the search.
"""

from __future__ import annotations

import importlib
from typing import Any

DEFAULT_NODES = 300_000  # a position's search when no limit is given

_LAZY = {
    "analyse": "jitfish.analysis.games",
    "GameAnalysis": "jitfish.analysis.games",
    "write_pgn": "jitfish.analysis.games",
    "MoveAnalysis": "jitfish.analysis.report",
    "plot_game": "jitfish.analysis.plot",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jitfish.analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["DEFAULT_NODES", "GameAnalysis", "MoveAnalysis", "analyse", "plot_game", "write_pgn"]
