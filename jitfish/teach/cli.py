"""``jitfish teach ladder|horizon|tree``: the teaching mode from the command line."""

from __future__ import annotations

import argparse
import json
import sys

from jitfish.extras import require

EXAMPLE_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def _read_suite(path: str, limit: int | None) -> list[str]:
    """FENs from an EPD or FEN file (one position a line; EPD operations are dropped)."""
    import chess

    fens = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board, _ = chess.Board.from_epd(line)
            except ValueError:
                board = chess.Board(line.split(";")[0])
            fens.append(board.fen())
            if limit is not None and len(fens) >= limit:
                break
    return fens


def _reporting_errors(handler):
    """Bad input (a FEN, a tree, a depth, a file) ends the command with a one-line error and status 2."""
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (ValueError, OSError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    return run


def _ladder(args: argparse.Namespace) -> int:
    from jitfish.teach.ladder import ladder, ladder_suite, warm_up
    from jitfish.teach.plot import plot_nodes

    if args.plot:  # before minutes of searching
        require("matplotlib", "jitfish teach ladder --plot")
    algorithms = args.algorithms.split(",") if args.algorithms else None
    loading = warm_up(engine=algorithms is None or "engine" in algorithms)
    print(f"Search kernels ready in {loading:.1f} s (compiled, or loaded from the cache)")
    if args.epd:
        report = ladder_suite(_read_suite(args.epd, args.limit), args.depth, algorithms, args.minimax_budget)
    else:
        report = ladder(args.fen, args.depth, algorithms, args.minimax_budget)
    print(report)
    if args.plot:
        plot_nodes(report, args.plot)
        print(f"\nPlot written to {args.plot}")
    return 0


def _horizon(args: argparse.Namespace) -> int:
    from jitfish.teach.horizon import horizon, load_positions

    entries = [(args.fen, args.depth, "")] if args.fen else load_positions()
    for fen, depth, comment in entries:
        if comment:
            print(f"# {comment}")
        print(horizon(fen, depth).text())
        print()
    return 0


def _tree(args: argparse.Namespace) -> int:
    from jitfish.teach.toytree import TEXTBOOK_TREE, alphabeta_tree, draw_tree, minimax_value, tree_from_position

    if args.out:
        require("matplotlib", "jitfish teach tree --out")
    if args.fen:
        tree = tree_from_position(args.fen, args.depth, args.width)
    else:
        try:
            tree = json.loads(args.leaves) if args.leaves else TEXTBOOK_TREE
        except json.JSONDecodeError as error:
            raise ValueError(f"--leaves must be nested JSON lists of numbers: {error}") from None
    result = alphabeta_tree(tree)
    print(f"minimax value {minimax_value(result.root):g}, alpha-beta value {result.value:g}")
    print(f"leaves visited: {len(result.visited_leaves)} of {len(result.root.leaves())}")
    print("pruned leaves (path from the root: value): "
          + (", ".join(f"{list(leaf.path)}: {leaf.value:g}" for leaf in result.pruned_leaves) or "none"))
    if args.out:
        draw_tree(result, args.out)
        print(f"Tree drawn to {args.out}")
    return 0


def add_teach_parser(commands) -> None:
    """Register ``teach`` and its subcommands on the main parser's subcommands."""
    from jitfish.teach.ladder import DEFAULT_MINIMAX_BUDGET, MAX_LADDER_DEPTH
    from jitfish.teach.report import ALGORITHM_NAMES

    teach = commands.add_parser("teach", help="search algorithms side by side, for learning")
    modes = teach.add_subparsers(dest="mode", required=True)
    ladder = modes.add_parser("ladder", help="nodes, time, value and EBF per depth for each algorithm")
    ladder.add_argument("--fen", default=EXAMPLE_FEN, help="position (default: after 1.e4 e5 2.Nf3 Nc6)")
    ladder.add_argument("--epd", help="a suite: FEN or EPD file, one position a line (sums are reported)")
    ladder.add_argument("--limit", type=int, help="use only the first N positions of --epd")
    ladder.add_argument("--depth", type=int, default=5, help=f"deepest depth, 1-{MAX_LADDER_DEPTH} (default 5)")
    ladder.add_argument("--algorithms", help=f"comma-separated subset of {','.join(ALGORITHM_NAMES)}")
    ladder.add_argument("--minimax-budget", type=int, default=DEFAULT_MINIMAX_BUDGET,
                        help="skip minimax and plain alpha-beta where the full tree has more nodes")
    ladder.add_argument("--plot", help="write a PNG (or SVG) of nodes against depth")
    ladder.set_defaults(handler=_reporting_errors(_ladder))
    horizon = modes.add_parser("horizon", help="fixed-depth search without and with quiescence")
    horizon.add_argument("--fen", help="position (default: the shipped horizon-effect positions)")
    horizon.add_argument("--depth", type=int, default=3)
    horizon.set_defaults(handler=_reporting_errors(_horizon))
    tree = modes.add_parser("tree", help="alpha-beta on a small tree, pruned branches marked")
    tree.add_argument("--leaves", help='nested JSON lists of leaf values (default: the textbook '
                                       '"[[3,12,8],[2,4,6],[14,5,2]]")')
    tree.add_argument("--fen", help="build the tree from this position instead")
    tree.add_argument("--depth", type=int, default=2, help="plies of the position tree (1-4)")
    tree.add_argument("--width", type=int, default=3, help="moves per node of the position tree (1-6)")
    tree.add_argument("--out", help="draw the tree to this PNG or SVG file")
    tree.set_defaults(handler=_reporting_errors(_tree))


