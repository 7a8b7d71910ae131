"""Search: iterative deepening PVS over a transposition table (see :mod:`jitfish.search.driver`).

The package itself is callable, so that ``jitfish.search(board, depth=8)``
and ``jitfish.search.Searcher`` both work.
"""

import sys
import types
from typing import Any

from jitfish.search.driver import SearchInfo, SearchLimits, SearchResult, Searcher, SearchWorker, search


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> SearchResult:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["SearchInfo", "SearchLimits", "SearchResult", "Searcher", "SearchWorker", "search"]
