"""Which kernels a ``go`` compiles (or loads) after ``readyok``: run in a fresh process per check.

    python -m tests.uci.compiles SETUP_LINE... -- GO_LINE...

sends ``uci``, the setup lines and ``isready`` to the UCI protocol in this
process, records every kernel's compiled signatures, then sends the go
lines (a timed ``go``, ``ponderhit`` and ``stop`` wait for the ``bestmove``) and prints, as JSON, the
kernels that gained a signature meanwhile (``compiled``: empty when the
search compiled and loaded nothing), the kernels loaded at ``readyok``
(``ready``) and every line the engine wrote (``lines``).  A fresh
process, so that nothing an earlier test compiled hides what the option's
``readyok`` should have prepared.
"""

from __future__ import annotations

import json
import sys
import threading

from numba.core.dispatcher import Dispatcher

from jitfish.uci.protocol import UciProtocol

BESTMOVE_TIMEOUT = 120.0


def compiled_signatures() -> dict[str, int]:
    """{module.kernel: number of compiled signatures} of every kernel of the loaded ``jitfish`` modules."""
    found = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("jitfish") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher):
                found[f"{value.py_func.__module__}.{value.__name__}"] = len(value.signatures)
    return found


def _answered(line: str) -> bool:
    """Whether ``line`` gets a ``bestmove`` without another command (a timed ``go``, ``ponderhit``, ``stop``)."""
    words = line.split()
    return words[0] in ("stop", "ponderhit") or (words[0] == "go" and not {"perft", "ponder", "infinite"} & set(words))


def run(setup: list[str], searches: list[str]) -> dict:
    lines: list[str] = []
    answered = threading.Condition()

    def send(line: str) -> None:
        with answered:
            lines.append(line)
            answered.notify_all()

    def wait_for_bestmoves(count: int, after: str) -> None:
        with answered:
            if not answered.wait_for(
                lambda: sum(line.startswith("bestmove") for line in lines) >= count, BESTMOVE_TIMEOUT
            ):
                raise SystemExit(f"no bestmove after {after!r}")

    protocol = UciProtocol(send)
    expected = 0
    for line in ["uci", *setup, "isready"]:
        protocol.handle(line)
        expected += line.startswith("go") and _answered(line)
    if expected:  # isready answers while a setup search runs: wait for it, then for what was held behind it
        wait_for_bestmoves(expected, "the setup")
        protocol.handle("isready")
    before = compiled_signatures()
    for line in searches:
        protocol.handle(line)
        if _answered(line):
            expected += 1
            wait_for_bestmoves(expected, line)
    after = compiled_signatures()
    protocol.handle("quit")
    grown = sorted(name for name, count in after.items() if count > before.get(name, 0))
    return {"ready": sorted(name for name, count in before.items() if count), "compiled": grown, "lines": lines}


if __name__ == "__main__":
    arguments = sys.argv[1:]
    split = arguments.index("--")
    print(json.dumps(run(arguments[:split], arguments[split + 1 :])))
