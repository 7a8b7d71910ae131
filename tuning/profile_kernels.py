"""Where the search's time goes, kernel by kernel: Linux ``perf`` samples of ``bench``, named.

    python -m tuning.profile_kernels                  # 4 bench runs, samples per kernel
    python -m tuning.profile_kernels --hot negamax     # also negamax's hottest 32-byte blocks
    python -m tuning.profile_kernels --network default # evaluating with the shipped network, as it plays

``perf`` cannot name Numba's code: it lives in memory the JIT allocated, with
no symbol table.  So this script compiles the kernels into a fresh, private
cache directory (a kernel loaded from the cache keeps no object code), reads
each compiled library's symbol table from its object code (``nm``), places
it at the address the JIT loaded it to, and attributes every sample to the
function around it.  Kernels inlined into another are counted in it.  Numbers
are samples at ``--frequency`` Hz; compare two builds by running this file with
each on the path (``PYTHONPATH=<checkout> python -P tuning/profile_kernels.py``,
from this checkout: it imports nothing but ``jitfish``), one after the other
on an idle machine.
Needs ``perf`` (``linux-perf``) and ``nm`` (binutils); the compile takes
about a minute.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import gc
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def symbols(library, entry: str, scratch: Path) -> list[tuple[int, int, str]]:
    """(address, size, name) of every function in a compiled library, at its loaded addresses."""
    address = library.get_pointer_to_function(entry)
    scratch.write_bytes(library.serialize_using_object_code()[2][0])
    listing = subprocess.run(["nm", "-S", "--defined-only", str(scratch)], capture_output=True, text=True).stdout
    table = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            table[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    if entry not in table:
        return []
    base = address - table[entry][0]
    return [(base + value, size, readable(name)) for name, (value, size) in table.items()]


def readable(mangled: str) -> str:
    """``jitfish.search.negamax.negamax`` from Numba's mangled name: its length-prefixed words, up to the
    signature."""
    prefix, _, rest = mangled.partition("_ZN")
    words = []
    while rest[:1].isdigit():
        digits = re.match(r"\d+", rest).group()
        words.append(rest[len(digits) : len(digits) + int(digits)])
        rest = rest[len(digits) + int(digits) :]
    return prefix + ".".join(words) if words else mangled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4, help="bench runs sampled")
    parser.add_argument("--frequency", type=int, default=4000, help="samples a second")
    parser.add_argument("--hot", metavar="KERNEL", help="also list this kernel's hottest 32-byte blocks (offsets)")
    parser.add_argument(
        "--network",
        metavar="NET",
        help="evaluate with a network file, or 'default' (the shipped one); bench's own "
        "evaluation (hand-written) when not given",
    )
    args = parser.parse_args()
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            print(f"error: {tool} is not installed (perf: the linux-perf package; nm: binutils)", file=sys.stderr)
            return 2
    scratch_dir = Path(tempfile.mkdtemp(prefix="jitfish-profile-"))
    os.environ["JITFISH_CACHE_DIR"] = str(scratch_dir / "cache")  # a fresh compile keeps its object code
    from numba.core.registry import CPUDispatcher

    from jitfish.search.bench import bench_network, run_bench

    network = bench_network(args.network)
    run_bench(positions=2, quiet=True, network=network)
    functions = []
    for dispatcher in [obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)]:
        for result in dispatcher.overloads.values():
            try:
                functions += symbols(result.library, result.fndesc.llvm_func_name, scratch_dir / "kernel.o")
            except RuntimeError:  # no object code (loaded from a cache): not one of the search's kernels
                continue
    functions.sort()
    starts = [address for address, _, _ in functions]
    record = subprocess.Popen(
        [
            "perf",
            "record",
            "-q",
            "-F",
            str(args.frequency),
            "-p",
            str(os.getpid()),
            "-o",
            str(scratch_dir / "perf.data"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # perf attaches
    for _ in range(args.rounds):
        run_bench(quiet=True, network=network)
    record.send_signal(signal.SIGINT)
    record.wait()
    ips = subprocess.run(
        ["perf", "script", "-i", str(scratch_dir / "perf.data"), "-F", "ip"], capture_output=True, text=True
    ).stdout.split()
    per_kernel, hot = collections.Counter(), collections.Counter()
    for text in ips:
        ip = int(text, 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < starts[i] + functions[i][1]:
            name = functions[i][2]
            per_kernel[name] += 1
            if args.hot and name.endswith("." + args.hot):
                hot[(ip - starts[i]) // 32 * 32] += 1
        else:
            per_kernel["(Python, libraries)"] += 1
    total = sum(per_kernel.values())
    print(f"{total} samples over {args.rounds} bench runs")
    for name, count in per_kernel.most_common(20):
        print(f"{name:50s} {count:7d} {100 * count / total:5.1f} %")
    for offset, count in hot.most_common(15):
        print(f"  {args.hot} +{offset:#06x}  {count}")
    shutil.rmtree(scratch_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
