"""Search: iterative deepening PVS over a transposition table (see :mod:`jitfish.search.searcher`).

The package itself is callable, so that ``jitfish.search(board, depth=8)``
and ``jitfish.search.Searcher`` both work.
"""

import sys
import types
from typing import Any

from jitfish.search.results import SearchInfo, SearchLimits, SearchResult
from jitfish.search.searcher import Searcher, search
from jitfish.search.worker import SearchWorker


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> SearchResult:
        return search(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["SearchInfo", "SearchLimits", "SearchResult", "Searcher", "SearchWorker", "search"]
