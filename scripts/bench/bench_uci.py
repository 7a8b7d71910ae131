"""Measure the UCI engine against its targets: start-up, threads, memory, self-play.

    python -m scripts.bench.bench_uci startup [--runs 5]      # launch->uciok, launch->readyok (warm), cold start
    python -m scripts.bench.bench_uci cold --against DIR      # cold launch->readyok, alternated with another checkout
    python -m scripts.bench.bench_uci installed --against REV # a player's install: wheels in fresh venvs, cold and warm
    python -m scripts.bench.bench_uci nps [--seconds 5]       # Threads 1 vs Threads 2
    python -m scripts.bench.bench_uci overhead [--against DIR] # a move's fixed cost: go (depth 1) -> bestmove
    python -m scripts.bench.bench_uci memory [--hash 64]      # peak RSS through a long game
    python -m scripts.bench.bench_uci selfplay [--games 200]  # 1 s + 0.01 s games, clocks kept by python-chess

Targets: uci->uciok <= 0.3 s; launch->readyok <= 1.5 s warm from a checkout; an installed wheel's
readyok <= 10 s cold (an empty compile cache) and <= 0.5 s warm; a checkout's cold start <= 30 s;
Threads 2 >= 1.6x the nps of Threads 1; RSS < Hash + 200 MB; zero time
losses and illegal moves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENGINE = [sys.executable, "-m", "jitfish"]

NPS_FENS = [
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
]


def _spawn(env=None, checkout: Path = REPO, command: list[str] = ENGINE) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        cwd=checkout,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=env,
    )


def _wait_for(process: subprocess.Popen, prefix: str) -> list[str]:
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith(prefix):
            return lines
    raise RuntimeError(f"engine ended before {prefix!r}: {lines[-5:]}")


def time_start(env=None, checkout: Path = REPO, command: list[str] = ENGINE) -> tuple[float, float, float]:
    """(launch->uciok, uci->uciok on a loaded engine, launch->readyok) in seconds."""
    started = time.perf_counter()
    process = _spawn(env, checkout, command)
    process.stdin.write("uci\n")
    process.stdin.flush()
    _wait_for(process, "uciok")
    uciok = time.perf_counter() - started
    process.stdin.write("isready\n")
    process.stdin.flush()
    _wait_for(process, "readyok")
    readyok = time.perf_counter() - started
    again = time.perf_counter()
    process.stdin.write("uci\n")
    process.stdin.flush()
    _wait_for(process, "uciok")
    uci_loaded = time.perf_counter() - again
    process.stdin.write("quit\n")
    process.stdin.flush()
    process.wait(30)
    return uciok, uci_loaded, readyok


def startup(args) -> None:
    time_start()  # make sure the cache is warm
    runs = [time_start() for _ in range(args.runs)]
    for name, index in (
        ("launch -> uciok", 0),
        ("uci -> uciok (loaded engine)", 1),
        ("launch -> readyok (warm cache)", 2),
    ):
        values = [run[index] for run in runs]
        print(
            f"{name:34s} median {statistics.median(values):.3f} s  "
            f"min {min(values):.3f} s  max {max(values):.3f} s  ({args.runs} runs)"
        )
    if not args.no_cold:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, JITFISH_CACHE_DIR=cache)
            uciok, _, readyok = time_start(env)
            print(f"{'cold start (empty cache)':34s} launch -> uciok {uciok:.3f} s, launch -> readyok {readyok:.1f} s")


def cold(args) -> None:
    """Cold launch -> readyok of this checkout and of ``--against``, alternated (each on an empty cache)."""
    checkouts = {"this checkout": REPO, str(args.against): args.against.resolve()}
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for run in range(args.runs):
        for name, checkout in checkouts.items():
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, JITFISH_CACHE_DIR=cache, PYTHONPATH=str(checkout))
                times[name].append(time_start(env, checkout)[2])
            print(f"run {run + 1}: {name} {times[name][-1]:.1f} s", flush=True)
    for name, values in times.items():
        print(
            f"{name:34s} median {statistics.median(values):.1f} s  "
            f"min {min(values):.1f} s  max {max(values):.1f} s  ({args.runs} runs)"
        )


def _install(revision: str, work: Path) -> Path:
    """Build ``revision``'s wheel (``WORKTREE``: this checkout as it is) and install it into a fresh virtual
    environment under ``work``, as a player would; the environment's ``jitfish``."""
    tree = REPO
    if revision != "WORKTREE":
        tree = work / "tree"
        tree.mkdir()
        archive = subprocess.run(["git", "archive", revision], cwd=REPO, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(work / "dist"), str(tree)],
        check=True,
        capture_output=True,
    )
    wheel = next((work / "dist").glob("*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
    subprocess.run([str(work / "venv" / "bin" / "pip"), "install", "-q", str(wheel)], check=True, capture_output=True)
    print(f"{revision}: wheel {wheel.stat().st_size / 1024:.0f} KiB", flush=True)
    return work / "venv" / "bin" / "jitfish"


def installed(args) -> None:
    """Launch -> readyok of installed wheels (this checkout's and ``--against``'s), cold then warm, alternated.

    Each build's wheel goes into a virtual environment of its own (no other package beside its
    dependencies), started from an empty folder: per round, a first start on an empty compile cache,
    then a start on the cache it left."""
    builds = {"this checkout": "WORKTREE", args.against: args.against}
    cold_times: dict[str, list[float]] = {name: [] for name in builds}
    warm_times: dict[str, list[float]] = {name: [] for name in builds}
    with tempfile.TemporaryDirectory(prefix="jitfish-installed-") as temporary:
        commands = {}
        for index, (name, revision) in enumerate(builds.items()):
            (Path(temporary) / str(index)).mkdir()
            commands[name] = [str(_install(revision, Path(temporary) / str(index)))]
        outside = Path(temporary) / "elsewhere"
        outside.mkdir()
        clean = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        for run in range(args.runs):
            for name, command in commands.items():
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(clean, JITFISH_CACHE_DIR=cache)
                    cold_times[name].append(time_start(env, outside, command)[2])
                    warm_times[name].append(time_start(env, outside, command)[2])
                print(f"run {run + 1}: {name} cold {cold_times[name][-1]:.2f} s, warm {warm_times[name][-1]:.2f} s")
    for label, table in (("cold", cold_times), ("warm", warm_times)):
        for name, values in table.items():
            print(
                f"{label} {name:28s} median {statistics.median(values):.2f} s  "
                f"min {min(values):.2f} s  max {max(values):.2f} s  ({args.runs} runs)"
            )


def measure_nps(threads: int, seconds: float) -> int:
    process = _spawn()
    process.stdin.write(f"uci\nsetoption name Threads value {threads}\nsetoption name Hash value 64\nisready\n")
    process.stdin.flush()
    _wait_for(process, "readyok")
    total_nodes, total_time = 0, 0.0
    for fen in NPS_FENS:
        process.stdin.write(f"ucinewgame\nposition fen {fen}\ngo movetime {int(seconds * 1000)}\n")
        process.stdin.flush()
        lines = _wait_for(process, "bestmove")
        final = [line for line in lines if line.startswith("info depth")][-1].split()
        total_nodes += int(final[final.index("nodes") + 1])
        total_time += int(final[final.index("time") + 1]) / 1000
    process.stdin.write("quit\n")
    process.stdin.flush()
    process.wait(30)
    return int(total_nodes / max(total_time, 1e-9))


def nps(args) -> None:
    one = measure_nps(1, args.seconds)
    two = measure_nps(2, args.seconds)
    print(f"Threads 1: {one} nps")
    print(f"Threads 2: {two} nps ({two / max(one, 1):.2f}x)")


def overhead(args) -> None:
    """What a move costs besides its search: ``go`` with a clock and ``depth 1`` to ``bestmove``, on engines
    kept running, this checkout's and ``--against``'s one ``go`` each in turn."""
    checkouts = {"this checkout": REPO}
    if args.against is not None:
        checkouts[str(args.against)] = args.against.resolve()
    engines = {}
    for name, checkout in checkouts.items():
        engine = engines[name] = _spawn(dict(os.environ, PYTHONPATH=str(checkout)), checkout)
        engine.stdin.write("uci\nisready\n")
        engine.stdin.flush()
        _wait_for(engine, "readyok")
    go = "go wtime 10000 btime 10000 winc 100 binc 100 depth 1\n"
    times: dict[str, list[float]] = {name: [] for name in checkouts}
    for run in range(args.runs + 10):  # the first ten warm the engines up
        for name, engine in engines.items():
            engine.stdin.write(f"position startpos moves {'e2e4 e7e5' if run % 2 else 'd2d4 d7d5'}\n")
            started = time.perf_counter()
            engine.stdin.write(go)
            engine.stdin.flush()
            _wait_for(engine, "bestmove")
            if run >= 10:
                times[name].append((time.perf_counter() - started) * 1000)
    for engine in engines.values():
        engine.stdin.write("quit\n")
        engine.stdin.flush()
        engine.wait(30)
    for name, values in times.items():
        tenth = statistics.quantiles(values, n=10)
        print(
            f"{name:34s} go -> bestmove median {statistics.median(values):.2f} ms  "
            f"10-90 % [{tenth[0]:.2f}, {tenth[-1]:.2f}] ms  ({args.runs} moves)"
        )


def _rss_mb(pid: int, field: str) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def memory(args) -> None:
    import chess
    import chess.engine

    engine = chess.engine.SimpleEngine.popen_uci(ENGINE, cwd=REPO, timeout=300)
    engine.configure({"Hash": args.hash})
    engine.ping()
    pid = engine.transport.get_pid()
    board = chess.Board()
    start_rss = _rss_mb(pid, "VmRSS")
    samples = []
    while not board.is_game_over(claim_draw=True) and board.ply() < args.plies:
        result = engine.play(board, chess.engine.Limit(time=args.move_time))
        board.push(result.move)
        samples.append(_rss_mb(pid, "VmRSS"))
    peak = _rss_mb(pid, "VmHWM")
    engine.quit()
    print(
        f"Hash {args.hash} MB, {board.ply()} plies at {args.move_time} s/move: RSS after load "
        f"{start_rss:.0f} MB, at the end {samples[-1]:.0f} MB, peak {peak:.0f} MB "
        f"(target < {args.hash + 200} MB)"
    )


def selfplay(args) -> None:
    from tests.uci.selfplay import self_play

    def progress(index, record):
        if args.verbose:
            print(
                f"game {index + 1}: {record.result} {record.termination} {record.plies} plies, "
                f"lowest clock {record.min_clock * 1000:.0f} ms",
                flush=True,
            )

    started = time.perf_counter()
    summary = self_play(ENGINE, args.games, args.base, args.inc, cwd=str(REPO), seed=args.seed, progress=progress)
    print(summary.describe())
    print(f"wall time {time.perf_counter() - started:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("startup")
    command.add_argument("--runs", type=int, default=5)
    command.add_argument("--no-cold", action="store_true")
    command.set_defaults(handler=startup)
    command = commands.add_parser("cold")
    command.add_argument("--against", type=Path, required=True, help="another checkout (e.g. the parent commit)")
    command.add_argument("--runs", type=int, default=3)
    command.set_defaults(handler=cold)
    command = commands.add_parser("installed")
    command.add_argument("--against", required=True, help="another commit (e.g. 6a85c0d)")
    command.add_argument("--runs", type=int, default=5)
    command.set_defaults(handler=installed)
    command = commands.add_parser("nps")
    command.add_argument("--seconds", type=float, default=5.0)
    command.set_defaults(handler=nps)
    command = commands.add_parser("overhead")
    command.add_argument("--against", type=Path, help="another checkout (e.g. the parent commit)")
    command.add_argument("--runs", type=int, default=300)
    command.set_defaults(handler=overhead)
    command = commands.add_parser("memory")
    command.add_argument("--hash", type=int, default=64)
    command.add_argument("--plies", type=int, default=300)
    command.add_argument("--move-time", type=float, default=0.2)
    command.set_defaults(handler=memory)
    command = commands.add_parser("selfplay")
    command.add_argument("--games", type=int, default=200)
    command.add_argument("--base", type=float, default=1.0)
    command.add_argument("--inc", type=float, default=0.01)
    command.add_argument("--seed", type=int, default=0)
    command.add_argument("-v", "--verbose", action="store_true")
    command.set_defaults(handler=selfplay)
    args = parser.parse_args()
    args.handler(args)


if __name__ == "__main__":
    main()
