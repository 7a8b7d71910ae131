"""Jitfish: a UCI chess engine in Python whose hot core is compiled with Numba.

Public API::

    import jitfish
    board = jitfish.Board()              # python-chess-like, moves as UCI text
    jitfish.perft(jitfish.STARTING_FEN, 5)   # 4865609
    jitfish.analyse("game.pgn")          # every move of every game judged (docs/analyse.md)

Importing the package compiles nothing and imports nothing heavy: the public
names are loaded on first use (module ``__getattr__``), so the UCI loop can
answer ``uci`` before Numba is even imported.  Kernels load from the on-disk
cache (or compile, the very first time) when first called.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from jitfish._version import __version__

if TYPE_CHECKING:
    from jitfish.analysis.games import analyse
    from jitfish.board.board import Board
    from jitfish.board.perft import perft, perft_divide
    from jitfish.board.position import STARTING_FEN

# Public name -> the module that defines it.
_LAZY = {
    "Board": "jitfish.board.board",
    "STARTING_FEN": "jitfish.board.position",
    "perft": "jitfish.board.perft",
    "perft_divide": "jitfish.board.perft",
    "Searcher": "jitfish.search.searcher",
    "SearchLimits": "jitfish.search.results",
    "analyse": "jitfish.analysis.games",
}


def __getattr__(name: str) -> Any:
    if name == "search":  # the package is callable: jitfish.search(board, depth=8)
        return importlib.import_module("jitfish.search")
    if name == "teach":  # teaching mode, imported only when asked for
        return importlib.import_module("jitfish.teach")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jitfish' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"search", "teach"})


__all__ = [
    "Board",
    "STARTING_FEN",
    "perft",
    "perft_divide",
    "search",
    "Searcher",
    "SearchLimits",
    "analyse",
    "__version__",
]
