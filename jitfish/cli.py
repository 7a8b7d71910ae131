"""The ``jitfish`` command line: the UCI loop with no arguments, subcommands (perft, ...), or UCI commands."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from jitfish.runtime.extras import reporting_missing_extras


def _perft_command(args: argparse.Namespace) -> int:
    from jitfish.board.board import Board
    from jitfish.board.perft import MAX_PERFT_DEPTH

    try:
        board = Board(args.fen, chess960=args.chess960)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        print(f"error: perft depth must be between 0 and {MAX_PERFT_DEPTH}, got {args.depth}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    if args.divide and args.depth >= 1:
        counts = board.perft_divide(args.depth, bulk=not args.no_bulk)
        for move, count in counts.items():
            print(f"{move}: {count}")
        print()
        nodes = sum(counts.values())
    else:
        nodes = board.perft(args.depth, bulk=not args.no_bulk)
    elapsed = time.perf_counter() - started
    print(f"Nodes searched: {nodes}")
    if args.verbose:
        print(f"Time: {elapsed:.3f} s ({nodes / max(elapsed, 1e-9) / 1e6:.1f} Mnps)", file=sys.stderr)
    return 0


def _bench_command(args: argparse.Namespace) -> int:
    from jitfish.runtime.compile import one_compile_at_a_time, warm_search
    from jitfish.search.bench import bench_command

    with one_compile_at_a_time():  # OpenBench starts one bench per thread at once, on a cache maybe empty
        warm_search()
    return bench_command(args.depth)


def _compile_command(args: argparse.Namespace) -> int:
    from jitfish.runtime.compile import compile_all

    print("compiling and caching every kernel (a later start loads them in about a second)", flush=True)
    compile_all(lambda line: print(line, flush=True))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from jitfish._version import __version__
    from jitfish.board.position import STARTING_FEN

    parser = argparse.ArgumentParser(
        prog="jitfish",
        description="Jitfish chess engine. Without arguments: the UCI loop. Arguments that are "
        "not a subcommand are UCI commands, run in order: jitfish \"position startpos\" \"go depth 8\" quit",
    )
    parser.add_argument("--version", action="version", version=f"Jitfish {__version__}")
    parser.add_argument(
        "--tune", action="store_true", help="the UCI loop with every search parameter as an option (for tuning.spsa)"
    )
    commands = parser.add_subparsers(dest="command")
    perft = commands.add_parser("perft", help="count leaf nodes of the legal move tree")
    perft.add_argument("depth", type=int)
    perft.add_argument("--fen", default=STARTING_FEN, help="position (default: the start position)")
    perft.add_argument("--chess960", action="store_true", help="Chess960 castling (king takes rook)")
    perft.add_argument("--divide", action="store_true", help="print the count below each root move")
    perft.add_argument("--no-bulk", action="store_true", help="make every leaf move instead of counting")
    perft.add_argument("-v", "--verbose", action="store_true", help="print the time and speed to stderr")
    perft.set_defaults(handler=_perft_command)
    bench = commands.add_parser("bench", help="search the bench positions; print the node count (signature)")
    bench.add_argument("depth", type=int, nargs="?", default=None, help="search depth (default: the bench depth)")
    bench.set_defaults(handler=_bench_command)
    compile_ = commands.add_parser("compile", help="compile every kernel into the cache now (e.g. at install time)")
    compile_.set_defaults(handler=_compile_command)
    from jitfish.analysis.cli import add_analyse_parser  # argparse only: no kernel is imported
    from jitfish.play.cli import add_play_parser
    from jitfish.teach.cli import add_teach_parser

    add_play_parser(commands)
    add_analyse_parser(commands)
    add_teach_parser(commands)
    parser.set_defaults(subcommands=tuple(commands.choices))
    return parser


def _is_subcommand_line(argv: list[str], parser: argparse.ArgumentParser) -> bool:
    """Whether ``argv`` is for argparse (a subcommand or an option) rather than UCI commands."""
    words = argv[1:] if argv[:1] == ["--tune"] else argv
    return not words or words[0].startswith("-") or words[0] in parser.get_default("subcommands")


@reporting_missing_extras
def main(argv: list[str] | None = None) -> int:
    """No arguments: the UCI loop, as GUIs start engines.  A subcommand (``perft``, ``bench``, ...): that.
    Anything else: each argument is a UCI command, run in order, then the engine quits, as Stockfish and the
    engines OpenBench runs do (``jitfish "position startpos" "go depth 8" quit``); ``--tune`` may come first."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        from jitfish.uci.main import run

        return run()
    parser = build_parser()
    if not _is_subcommand_line(argv, parser):
        from jitfish.uci.main import run

        tune = argv[:1] == ["--tune"]
        return run(tune=tune, commands=argv[1:] if tune else argv)
    args = parser.parse_args(argv)
    if args.command is None:
        if args.tune:
            from jitfish.uci.main import run

            return run(tune=True)
        parser.print_help()
        return 0
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
