"""Do two checkouts compile to the same machine code?  The exact check behind "a refactoring, same speed".

    python -m scripts.bench.same_code ../parent .          # exit 0: every kernel's assembly is the same

A refactoring that keeps ``Bench:`` can still cost speed if it changes what a kernel compiles to; one that
leaves every kernel's instructions as they were cannot, whatever a timing of a few percent says (runs on
this project's machine vary by ±10 %).  For each checkout this compiles the search's kernels in a fresh,
private cache (a short bench search with the hand-written evaluation, then one with the shipped network),
takes the assembly of every compiled function, drops what names a module (symbols, labels, comments,
directives: a kernel moved to another file is the same code), and compares them function by function.
Prints the functions found in one checkout only and those whose instructions differ, with the number of
lines that differ.  Takes two cold compiles (about a minute each on two cores).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

DUMP = """
import gc, json, sys, warnings
from numba.core.registry import CPUDispatcher
from jitfish.nnue.format import shipped_network
from jitfish.nnue.inference import kernel_network
from jitfish.search.bench import run_bench
run_bench(depth=4, positions=2, quiet=True)
run_bench(depth=4, positions=2, quiet=True, network=kernel_network(shipped_network()))
found, cached = {}, []
for dispatcher in [obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)]:
    for index, (signature, result) in enumerate(dispatcher.overloads.items()):
        name = f"{dispatcher.py_func.__qualname__}[{index}]"
        if getattr(result.library, "_disable_inspection", False):
            cached.append(name)
            continue
        found[name] = result.library.get_asm_str()
json.dump({"asm": found, "cached": cached}, sys.stdout)
"""

# Lines that only name things: directives, and the symbol, label and constant names within instructions.
_DIRECTIVE = re.compile(r"^\s*\.(?:file|ident|section|size|type|globl|weak|p2align|loc|cfi_\w+|text|addrsig)\b")
_NAMES = [
    (re.compile(r"_ZN[0-9A-Za-z_$.]+"), "SYMBOL"),
    (re.compile(r"\.L\w+"), "LABEL"),
    (re.compile(r"#.*$"), ""),
]


def normalised(asm: str) -> list[str]:
    """``asm``'s instruction lines with every name a module's path could change replaced."""
    lines = []
    for line in asm.splitlines():
        if _DIRECTIVE.match(line):
            continue
        for pattern, replacement in _NAMES:
            line = pattern.sub(replacement, line)
        if line.strip():
            lines.append(line.rstrip())
    return lines


def assembly(checkout: Path) -> dict[str, list[str]]:
    """Every function ``checkout``'s bench searches compile, by qualified name, as normalised assembly."""
    with tempfile.TemporaryDirectory(prefix="jitfish-same-code-") as cache:
        env = {**os.environ, "PYTHONPATH": str(checkout), "JITFISH_CACHE_DIR": cache, "JITFISH_PREBUILT": "0"}
        done = subprocess.run(
            [sys.executable, "-P", "-W", "ignore", "-c", DUMP], cwd=checkout, env=env, capture_output=True, text=True
        )
    if done.returncode != 0:
        raise SystemExit(f"error: {checkout}: {done.stderr.strip().splitlines()[-1:]}")
    dumped = json.loads(done.stdout)
    if dumped["cached"]:
        print(f"{checkout}: {len(dumped['cached'])} functions loaded from a cache, not compared")
    return {name: normalised(asm) for name, asm in dumped["asm"].items()}


def differing_lines(a: list[str], b: list[str]) -> int:
    """How many lines of ``a`` and ``b`` differ, position by position (a length change counts in full)."""
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="a checkout (the parent)")
    parser.add_argument("second", type=Path, help="another checkout")
    args = parser.parse_args(argv)
    checkouts = [args.first.resolve(), args.second.resolve()]
    for checkout in checkouts:
        if not (checkout / "jitfish" / "__init__.py").is_file():
            parser.error(f"{checkout} is not a Jitfish checkout")
    first, second = (assembly(checkout) for checkout in checkouts)
    only = sorted(set(first) ^ set(second))
    changed = sorted(
        (name, differing_lines(first[name], second[name]), len(first[name]))
        for name in set(first) & set(second)
        if first[name] != second[name]
    )
    for name in only:
        print(f"only in {checkouts[0] if name in first else checkouts[1]}: {name}")
    for name, lines, total in changed:
        print(f"differs: {name}: {lines} of {total} lines")
    same = len(set(first) & set(second)) - len(changed)
    instructions = sum(len(first[name]) for name in set(first) & set(second))
    print(f"{same} functions the same, {len(changed)} different, {len(only)} in one checkout only", end="")
    print(f" ({instructions} lines compared)")
    return 0 if not changed and not only else 1


if __name__ == "__main__":
    sys.exit(main())
