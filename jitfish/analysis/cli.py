"""``jitfish analyse GAME.pgn``: every game of a file analysed, written to ``GAME-analysed.pgn``, summed up.

Exit status: 0 when every game was analysed; 1 when some were and others could not be (each has its
``error:`` line on stderr, and is copied to the output as it was); 2 when nothing could be (a file that
is empty, unreadable or not PGN, every game bad, a bad option).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from jitfish.runtime.extras import require


def default_output(game_file: str) -> Path:
    """``games.pgn`` -> ``games-analysed.pgn``, beside it."""
    path = Path(game_file)
    return path.with_name(f"{path.stem}-analysed{path.suffix or '.pgn'}")


def plot_paths(plot: str, count: int) -> list[Path]:
    """One picture per game: ``PLOT`` itself for one game, ``PLOT-1.png``, ``PLOT-2.png``, ... for more."""
    path = Path(plot)
    if count == 1:
        return [path]
    return [path.with_name(f"{path.stem}-{number}{path.suffix or '.png'}") for number in range(1, count + 1)]


def _analyse(args: argparse.Namespace) -> int:
    from jitfish.analysis.games import analyse, budget_text, search_limits, write_pgn

    if args.plot:  # before minutes of searching
        require("matplotlib", "jitfish analyse --plot")
    to_stdout = args.output == "-"
    report = sys.stderr if to_stdout else sys.stdout
    try:
        budget = {"depth": args.depth, "nodes": args.nodes, "movetime": args.movetime}
        limits = search_limits(**budget)
        results = analyse(args.game, **budget, workers=args.workers, progress=not args.quiet, skip_bad_games=True)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failed = [result for result in results if result.error is not None]
    for result in failed:
        print(f"error: {result.error}", file=sys.stderr)
    if len(failed) == len(results):
        return 2
    text = write_pgn(results)
    if to_stdout:
        sys.stdout.write(text)
    else:
        output = Path(args.output) if args.output else default_output(args.game)
        output.write_text(text)
    analysed = [result for result in results if result.error is None]
    if not args.quiet:
        for result in analysed:
            print(result.summary(), file=report)
        where = "stdout" if to_stdout else output
        print(
            f"{len(analysed)} of {len(results)} games analysed ({budget_text(limits)}), written to {where}", file=report
        )
    if args.plot:
        from jitfish.analysis.plot import plot_game

        for result, path in zip(analysed, plot_paths(args.plot, len(analysed))):
            plot_game(result, path)
            if not args.quiet:
                print(f"Plot of {result.name} written to {path}", file=report)
    return 1 if failed else 0


def add_analyse_parser(commands: argparse._SubParsersAction) -> None:
    """The ``analyse`` subcommand (``analyze`` too)."""
    from jitfish.analysis import DEFAULT_NODES

    parser = commands.add_parser(
        "analyse",
        aliases=["analyze"],
        help="analyse the games of a PGN file: evaluations, mistakes, accuracy (docs/analyse.md)",
        description="Search every position of every game, mark inaccuracies (?!), mistakes (?) and blunders (??) "
        "by the winning chances they lost, and write the games back with [%%eval] comments and best lines.",
    )
    parser.add_argument("game", metavar="GAME.pgn", help="a PGN file of one or more games")
    budget = parser.add_argument_group(f"the search of each position (default: --nodes {DEFAULT_NODES})")
    budget.add_argument("--nodes", type=int, help="nodes a position (reproducible)")
    budget.add_argument("--depth", type=int, help="depth a position (reproducible)")
    budget.add_argument("--movetime", type=float, metavar="SECONDS", help="seconds a position (not reproducible)")
    parser.add_argument("--workers", type=int, default=1, help="processes searching at once (default 1)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT.pgn",
        help="where the analysed games go (default GAME-analysed.pgn; - for stdout)",
    )
    parser.add_argument("--plot", metavar="PICTURE.png", help="draw each game's evaluation (needs matplotlib)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary")
    parser.set_defaults(handler=_analyse)
