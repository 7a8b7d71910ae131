"""Where a cold start's compile time goes: seconds per kernel, per group.

    python -m scripts.bench.bench_compile              # a fresh, empty cache (a cold start)
    python -m scripts.bench.bench_compile --top 40     # more rows
    python -m scripts.bench.bench_compile --groups search

Each group of :mod:`jitfish.runtime.compile` is warmed up in turn, in a temporary
cache directory and without the cold-start helper process, while Numba's ``numba:compile`` events are recorded.  A
kernel's own seconds exclude the kernels compiled while it was being
compiled (its callees), so the rows add up to the group's total; kernels
inlined into their callers (``inline=True``) never compile on their own and
are counted in their callers.  Writing the cache file is counted in the
caller too (Numba saves after the compile event ends).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict


class CompileRecorder:
    """Own (exclusive) compile seconds per kernel, from nested ``numba:compile`` events."""

    def __init__(self) -> None:
        self.own: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)
        self._stack: list[list] = []  # [name, started, seconds spent in callees]

    def on_start(self, event) -> None:
        dispatcher = event.data["dispatcher"]
        name = f"{dispatcher.py_func.__module__.removeprefix('jitfish.')}.{dispatcher.py_func.__name__}"
        self._stack.append([name, time.perf_counter(), 0.0])

    def on_end(self, event) -> None:
        name, started, in_callees = self._stack.pop()
        inclusive = time.perf_counter() - started
        self.own[name] += inclusive - in_callees
        self.count[name] += 1
        if self._stack:
            self._stack[-1][2] += inclusive


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=25, help="kernels to list (default 25)")
    parser.add_argument("--groups", nargs="*", default=None, help="groups to compile (default: all)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="jitfish-cold-") as cache:
        os.environ["JITFISH_CACHE_DIR"] = cache  # read when jitfish.runtime.jit is first imported
        started = time.perf_counter()
        import numba.core.event as numba_event

        from jitfish.runtime import compile as jit_compile

        import_seconds = time.perf_counter() - started

        class Listener(numba_event.Listener):
            def __init__(self, recorder):
                self.recorder = recorder

            def on_start(self, event):
                self.recorder.on_start(event)

            def on_end(self, event):
                self.recorder.on_end(event)

        print(f"imports {import_seconds:6.1f} s")
        for name, _, _ in jit_compile.GROUPS:
            if args.groups is not None and name not in args.groups:
                continue
            recorder = CompileRecorder()
            with numba_event.install_listener("numba:compile", Listener(recorder)):
                jit_compile.compile_all(lambda line: None, groups=[name], helper=False)
            group_total = sum(recorder.own.values())
            print(f"\n{name}: {group_total:.1f} s compiling, {len(recorder.own)} kernels")
            rows = sorted(recorder.own.items(), key=lambda item: -item[1])
            for kernel, seconds in rows[: args.top]:
                times = f" x{recorder.count[kernel]}" if recorder.count[kernel] > 1 else ""
                print(f"  {seconds:6.2f} s  {kernel}{times}")
            rest = rows[args.top :]
            if rest:
                print(f"  {sum(s for _, s in rest):6.2f} s  ({len(rest)} more kernels)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
