"""A trace as one self-contained web page that replays the search step by step.

:func:`trace_page` fills the template ``jitfish/teach/data/trace.html`` (its
styles and script inside it, nothing fetched: it opens offline) with the
trace as one JSON block, and the chess pieces of python-chess's SVG boards
when the tree holds chess positions.  :func:`page_trace` reads the JSON
back out of a page.  (A trace is a :class:`jitfish.teach.trace.Trace`; that
module imports this one for its notebook view, so this one does not import it.)
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

TEMPLATE = "trace.html"
_BLOCK = re.compile(r'<script type="application/json" id="{}">(.*?)</script>', re.S)


def _json_block(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element (``<`` written ``\\u003c``, which JSON reads back)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")


def _pieces(trace: Any) -> dict[str, str]:
    """python-chess's SVG pieces by FEN letter, when some node of the trace holds a position; else none."""
    if '"fen":' not in json.dumps(trace.events):  # no position anywhere (UCT's are in its new nodes)
        return {}
    import chess.svg

    return {symbol: re.sub(r' id="[^"]*"', "", svg) for symbol, svg in chess.svg.PIECES.items()}


def trace_page(trace: Any) -> str:
    """The page that replays ``trace``: the tree growing node by node, with step, back, play and the keys."""
    template = resources.files("jitfish.teach").joinpath("data", TEMPLATE).read_text(encoding="utf-8")
    title = trace.title or "A search, step by step"
    return (
        template.replace("__TITLE__", html.escape(title))
        .replace("__PIECES__", _json_block(_pieces(trace)))
        .replace("__TRACE__", _json_block(trace.as_dict()))
    )


def notebook_html(trace: Any, height: int = 760) -> str:
    """The page in an ``<iframe>`` (its own document, scripts allowed): what a notebook shows for a traced search."""
    return (
        f'<iframe srcdoc="{html.escape(trace_page(trace), quote=True)}" sandbox="allow-scripts" '
        f'style="width: 100%; height: {height}px; border: 1px solid #ccc"></iframe>'
    )


def write_page(trace: Any, path: str | Path) -> None:
    Path(path).write_text(trace_page(trace), encoding="utf-8")


def page_trace(page: str) -> dict[str, Any]:
    """The trace a page replays, read back from its JSON block."""
    found = re.search(_BLOCK.pattern.format("trace-data"), page, re.S)
    if found is None:
        raise ValueError("no trace in this page")
    return json.loads(found.group(1))
