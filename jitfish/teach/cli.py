"""``jitfish teach ladder|horizon|tree|mcts|kriegspiel``: the teaching mode from the command line."""

from __future__ import annotations

import argparse
import json
import sys

from jitfish.runtime.extras import require

EXAMPLE_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
DEFAULT_MCTS_ITERATIONS = 10_000


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
    from jitfish.teach.plot import plot_bounds, plot_nodes

    if args.plot:  # before minutes of searching
        require("matplotlib", "jitfish teach ladder --plot")
    algorithms = args.algorithms.split(",") if args.algorithms else None
    if args.bounds_plot:
        require("matplotlib", "jitfish teach ladder --bounds-plot")
        if args.epd or (algorithms is not None and "mtdf" not in algorithms):
            raise ValueError("--bounds-plot draws the mtdf rung's passes on one position (no --epd)")
    trace = None
    if args.html:
        from jitfish.teach.trace import Trace

        if args.epd or algorithms is None or len(algorithms) != 1:
            raise ValueError("--html traces one rung on one position: give --algorithms with one rung, no --epd")
        trace = Trace(_command(args, ("fen", "depth", "algorithms")))
        trace.title = f"The ladder's {algorithms[0]} rung to depth {args.depth}, step by step"
    loading = warm_up(engine=algorithms is None or "engine" in algorithms)
    print(f"Search kernels ready in {loading:.1f} s (compiled, or loaded from the cache)")
    if args.epd:
        report = ladder_suite(_read_suite(args.epd, args.limit), args.depth, algorithms, args.minimax_budget)
    else:
        report = ladder(args.fen, args.depth, algorithms, args.minimax_budget, trace)
    print(report)
    if args.plot:
        plot_nodes(report, args.plot)
        print(f"\nPlot written to {args.plot}")
    if args.bounds_plot:
        plot_bounds(report, args.bounds_plot)
        print(f"\nMTD(f)'s bounds drawn to {args.bounds_plot}")
    if trace is not None:
        if (algorithms[0], args.depth) not in report.results:
            raise ValueError(f"{algorithms[0]} did not run at depth {args.depth} (over --minimax-budget)")
        _write_page(trace, args.html)
    return 0


def _horizon(args: argparse.Namespace) -> int:
    from jitfish.teach.horizon import horizon, load_positions

    trace = None
    if args.html:
        from jitfish.teach.trace import Trace

        if not args.fen:
            raise ValueError("--html traces the searches of one position: give --fen")
        trace = Trace(_command(args, ("fen", "depth")))
        trace.title = f"The horizon effect: depth {args.depth} without, then with quiescence, step by step"
    entries = [(args.fen, args.depth, "")] if args.fen else load_positions()
    for fen, depth, comment in entries:
        if comment:
            print(f"# {comment}")
        result = horizon(fen, depth, trace)
        print(result.text())
        print()
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def _command(args: argparse.Namespace, options: tuple[str, ...]) -> str:
    """The command line that made a page: ``jitfish teach MODE`` and the options given (``--html`` left out)."""
    import shlex

    words = ["jitfish", "teach", args.mode]
    for name in options:
        value = getattr(args, name, None)
        if value is None or value is False:
            continue
        words.append("--" + name.replace("_", "-"))
        if value is not True:
            words.extend(str(v) for v in (value if isinstance(value, (list, tuple)) else [value]))
    return shlex.join(words)


def _new_trace(args: argparse.Namespace, title: str):
    """A trace to record into when ``--html`` is given, else None."""
    if not args.html:
        return None
    from jitfish.teach.trace import Trace

    # --depth and --width shape only a tree built from --fen
    options = ("leaves", "fen", "depth", "width") if args.fen else ("leaves", "chance", "bounds", "players")
    trace = Trace(_command(args, options))
    trace.title = title
    return trace


def _write_page(trace, path: str) -> None:
    """The page of ``trace``; the search that filled it wrote its report's numbers in as its ``summary``."""
    from jitfish.teach.page import write_page

    write_page(trace, path)
    print(f"Step-by-step page written to {path}")


def _parse_tree(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--leaves must be nested JSON lists of numbers: {error}") from None


def _tree(args: argparse.Namespace) -> int:
    from jitfish.teach.toytree import TEXTBOOK_TREE, alphabeta_tree, describe_tree, draw_tree, tree_from_position

    if args.out:
        require("matplotlib", "jitfish teach tree --out")
    if args.players is not None:
        return _players_tree(args)
    if args.chance:
        return _chance_tree(args)
    if args.bounds:
        raise ValueError("--bounds are the utilities' range for --chance trees")
    if args.fen:
        tree = tree_from_position(args.fen, args.depth, args.width)
    else:
        tree = _parse_tree(args.leaves) if args.leaves else TEXTBOOK_TREE
    trace = _new_trace(args, "Alpha-beta, step by step")
    result = alphabeta_tree(tree, trace=trace)
    print(describe_tree(result))
    if args.out:
        draw_tree(result, args.out)
        print(f"Tree drawn to {args.out}")
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def _chance_tree(args: argparse.Namespace) -> int:
    from jitfish.teach.chance import CHANCE_BOUNDS, CHANCE_TREE, build_chance_tree, describe, leaf_bounds, star1_tree
    from jitfish.teach.toytree import draw_tree

    if args.fen:
        raise ValueError("--chance takes the textbook tree or --leaves, not --fen")
    root = build_chance_tree(_parse_tree(args.leaves) if args.leaves else CHANCE_TREE)
    bounds = tuple(args.bounds) if args.bounds else leaf_bounds(root) if args.leaves else CHANCE_BOUNDS
    trace = _new_trace(args, f"Expectiminimax with Star1, utilities in [{bounds[0]:g}, {bounds[1]:g}], step by step")
    result = star1_tree(root, bounds, trace)
    print(describe(result, bounds))
    if args.out:
        draw_tree(
            result,
            args.out,
            title=f"expectiminimax {result.value:g}; Star1 with utilities in "
            f"[{bounds[0]:g}, {bounds[1]:g}] prunes the grey leaves",
        )
        print(f"Tree drawn to {args.out}")
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def _players_tree(args: argparse.Namespace) -> int:
    from jitfish.teach.multiplayer import MAX_PLAYERS, OPPONENT_TREE, THREE_PLAYER_TREE, players_tree, reduction
    from jitfish.teach.toytree import draw_tree, minimax_value

    if args.fen or args.chance or args.bounds:
        raise ValueError("--players takes the shipped tree or --leaves, not --fen, --chance or --bounds")
    if not 2 <= args.players <= MAX_PLAYERS:
        raise ValueError(f"--players must be between 2 and {MAX_PLAYERS}, got {args.players}")
    default = OPPONENT_TREE if args.players == 2 else THREE_PLAYER_TREE if args.players == 3 else None
    if default is None and not args.leaves:
        raise ValueError(f"no shipped tree for {args.players} players: give one with --leaves")
    trace = _new_trace(args, f"max^n with {args.players} players, step by step")
    result = players_tree(_parse_tree(args.leaves) if args.leaves else default, args.players, trace)
    print(result.text())
    if args.out:
        if result.zero_sum:  # two players: the opponent's nodes replaced by chance nodes
            root = reduction(result.root, 2, 0, "random")
            for node in root.walk():
                node.value = minimax_value(node)
            title = f"B plays at random: expectimax {root.value:.4g} (minimax {max(result.values['paranoid']):g})"
        else:
            root = result.root
            title = f"max^n with {args.players} players: {', '.join(f'{v:g}' for v in root.value)}"
        draw_tree(root, args.out, title=title)
        print(f"Tree drawn to {args.out}")
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def _mcts(args: argparse.Namespace) -> int:
    from jitfish.teach.mcts import POLICIES, load_positions, mcts
    from jitfish.teach.plot import plot_visits

    if args.plot:
        require("matplotlib", "jitfish teach mcts --plot")
    trace = None
    if args.html:
        from jitfish.teach.trace import Trace

        if not args.fen or args.policy == "both":
            raise ValueError("--html traces one search: give --fen and --policy random or eval")
        trace = Trace(_command(args, ("fen", "iterations", "policy", "exploration", "playout_plies", "seed")))
        trace.title = f"Monte Carlo tree search (UCT, {args.policy} playouts), iteration by iteration"
    if args.fen:
        entries = [(args.fen, DEFAULT_MCTS_ITERATIONS, "")]
    else:
        entries = load_positions()
    if args.iterations is not None:
        entries = [(fen, args.iterations, comment) for fen, _, comment in entries]
    policies = list(POLICIES) if args.policy == "both" else [args.policy]
    reports = []
    for fen, iterations, comment in entries:
        for policy in policies:
            if comment:
                print(f"# {comment}")
            report = mcts(fen, iterations, policy, args.exploration, args.seed, args.playout_plies, trace=trace)
            print(report.text())
            print()
            reports.append(report)
    if args.plot:
        plot_visits(reports, args.plot, columns=len(policies))
        print(f"Plot written to {args.plot}")
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def _kriegspiel(args: argparse.Namespace) -> int:
    import time

    import chess

    from jitfish.teach.kriegspiel_clairvoyance import clairvoyance
    from jitfish.teach.kriegspiel_game import RandomPlayer, SamplingPlayer, game_text, match, play_game
    from jitfish.teach.ladder import warm_up
    from jitfish.teach.plot import plot_belief

    if args.plot:
        require("matplotlib", "jitfish teach kriegspiel --plot")
    if args.games < 1 or args.max_moves < 1 or args.limit < 1:
        raise ValueError("--games, --max-moves and --limit must be at least 1")
    trace = None
    if args.html:
        from jitfish.teach.trace import Trace

        if args.games != 1 or args.clairvoyance:
            raise ValueError("--html replays one game: no --games or --clairvoyance")
        options = ("samples", "opponent_samples", "depth", "limit", "max_moves", "seed")
        trace = Trace(_command(args, options))
        trace.title = "Kriegspiel: the umpire's announcements and the belief states, ply by ply"
    print(f"Search kernels ready in {warm_up(engine=False):.1f} s (compiled, or loaded from the cache)")
    if args.clairvoyance:
        print(clairvoyance(depth=args.depth).text())
        return 0
    started = time.perf_counter()
    if args.games == 1:
        player = SamplingPlayer(chess.WHITE, args.samples, args.depth, args.limit, args.seed)
        if args.opponent_samples is None:
            opponent = RandomPlayer(args.seed)
        else:
            opponent = SamplingPlayer(chess.BLACK, args.opponent_samples, args.depth, args.limit, args.seed + 1000)
        game = play_game(player, opponent, args.seed, args.max_moves, trace=trace)
        print(game_text(game))
    else:
        played = match(
            args.games, args.samples, args.opponent_samples, args.depth, args.limit, args.seed, args.max_moves
        )
        print(played.text())
        game = played.games[0]
    print(f"({time.perf_counter() - started:.1f} s)")
    if args.plot:
        plot_belief(game, args.plot)
        print(f"Belief state sizes drawn to {args.plot}")
    if trace is not None:
        _write_page(trace, args.html)
    return 0


def add_teach_parser(commands) -> None:
    """Register ``teach`` and its subcommands on the main parser's subcommands."""
    from jitfish.teach import kriegspiel_game as KG
    from jitfish.teach.ladder import DEFAULT_MINIMAX_BUDGET, MAX_LADDER_DEPTH
    from jitfish.teach.mcts import DEFAULT_SEED, POLICIES
    from jitfish.teach.report import ALGORITHM_NAMES

    teach = commands.add_parser("teach", help="search algorithms side by side, for learning")
    modes = teach.add_subparsers(dest="mode", required=True)
    ladder = modes.add_parser("ladder", help="nodes, time, value and EBF per depth for each algorithm")
    ladder.add_argument("--fen", default=EXAMPLE_FEN, help="position (default: after 1.e4 e5 2.Nf3 Nc6)")
    ladder.add_argument("--epd", help="a suite: FEN or EPD file, one position a line (sums are reported)")
    ladder.add_argument("--limit", type=int, help="use only the first N positions of --epd")
    ladder.add_argument("--depth", type=int, default=5, help=f"deepest depth, 1-{MAX_LADDER_DEPTH} (default 5)")
    ladder.add_argument("--algorithms", help=f"comma-separated subset of {','.join(ALGORITHM_NAMES)}")
    ladder.add_argument(
        "--minimax-budget",
        type=int,
        default=DEFAULT_MINIMAX_BUDGET,
        help="skip minimax and plain alpha-beta where the full tree has more nodes",
    )
    ladder.add_argument("--plot", help="write a PNG (or SVG) of nodes against depth")
    ladder.add_argument("--bounds-plot", help="write a PNG (or SVG) of MTD(f)'s bounds closing in, pass by pass")
    ladder.add_argument(
        "--html",
        help="write a page that replays one rung's search at --depth step by step (needs --algorithms with one rung)",
    )
    ladder.set_defaults(handler=_reporting_errors(_ladder))
    horizon = modes.add_parser("horizon", help="fixed-depth search without and with quiescence")
    horizon.add_argument("--fen", help="position (default: the shipped horizon-effect positions)")
    horizon.add_argument("--depth", type=int, default=3)
    horizon.add_argument("--html", help="write a page that replays both searches step by step (needs --fen)")
    horizon.set_defaults(handler=_reporting_errors(_horizon))
    tree = modes.add_parser("tree", help="alpha-beta on a small tree, pruned branches marked")
    tree.add_argument(
        "--leaves", help='nested JSON lists of leaf values (default: the textbook "[[3,12,8],[2,4,6],[14,5,2]]")'
    )
    tree.add_argument("--fen", help="build the tree from this position instead")
    tree.add_argument("--depth", type=int, default=2, help="plies of the position tree (1-4)")
    tree.add_argument("--width", type=int, default=3, help="moves per node of the position tree (1-6)")
    tree.add_argument(
        "--chance",
        action="store_true",
        help="expectiminimax: a chance level after each player's, its children [probability, "
        "subtree] pairs (default: a lecture-style tree with utilities in [-3, 3])",
    )
    tree.add_argument(
        "--bounds",
        type=float,
        nargs=2,
        metavar=("LOW", "HIGH"),
        help="with --chance: every utility lies in [LOW, HIGH] (default: the leaves' range)",
    )
    tree.add_argument(
        "--players",
        type=int,
        help="max^n with N players, leaves utility tuples '[[[3,1,2],[4,2,1]],..]', beside paranoid and random "
        "opponents (default tree for 2 and 3; with 2 a number u is the zero-sum (u, -u))",
    )
    tree.add_argument("--out", help="draw the tree to this PNG or SVG file")
    tree.add_argument("--html", help="write a page that replays the search step by step (self-contained, offline)")
    tree.set_defaults(handler=_reporting_errors(_tree))
    mcts = modes.add_parser("mcts", help="Monte Carlo tree search (UCT) beside alpha-beta")
    mcts.add_argument("--fen", help="position (default: the shipped positions: quiet, mate in 2, trap)")
    mcts.add_argument(
        "--iterations",
        type=int,
        help=f"UCT iterations (default: the shipped positions' own, {DEFAULT_MCTS_ITERATIONS:,} with --fen)",
    )
    mcts.add_argument(
        "--policy",
        choices=[*POLICIES, "both"],
        default="both",
        help="simulation: random playouts to the end, or a few random plies then the evaluation",
    )
    mcts.add_argument(
        "--exploration",
        type=float,
        help="UCB1's constant c (default: "
        + ", ".join(f"{p.exploration:.2f} {p.name}" for p in POLICIES.values())
        + ")",
    )
    mcts.add_argument(
        "--playout-plies",
        type=int,
        help="random plies before the evaluation (default: "
        + ", ".join(f"{p.playout_plies} {p.name}" for p in POLICIES.values())
        + ")",
    )
    mcts.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"the same seed gives the same search (default {DEFAULT_SEED})"
    )
    mcts.add_argument("--plot", help="write a PNG (or SVG) of the root moves' visit shares against iterations")
    mcts.add_argument(
        "--html", help="write a page that replays the search iteration by iteration (needs --fen and one --policy)"
    )
    mcts.set_defaults(handler=_reporting_errors(_mcts))
    kriegspiel = modes.add_parser(
        "kriegspiel", help="chess unseen: a player averaging searches over its belief state, with an umpire"
    )
    for flag, default, meaning in (
        ("--samples", KG.DEFAULT_SAMPLES, "positions averaged per move"),
        ("--games", 1, "a match of N games, colours alternating"),
        ("--depth", KG.DEFAULT_DEPTH, "search depth, 1-4"),
        ("--limit", KG.DEFAULT_LIMIT, "positions a belief state keeps before it is sampled"),
        ("--max-moves", KG.DEFAULT_MAX_MOVES, "a draw after N moves"),
        ("--seed", KG.DEFAULT_SEED, "the same seed gives the same games"),
    ):
        kriegspiel.add_argument(flag, type=int, default=default, help=f"{meaning} (default {default})")
    kriegspiel.add_argument(
        "--opponent-samples", type=int, help="play a sampling player with this many samples (default: a random player)"
    )
    kriegspiel.add_argument("--plot", help="write a PNG (or SVG) of the belief state's size over the (first) game")
    kriegspiel.add_argument(
        "--clairvoyance", action="store_true", help="the position where averaging over clairvoyance chooses badly"
    )
    kriegspiel.add_argument("--html", help="write a page that replays the game announcement by announcement")
    kriegspiel.set_defaults(handler=_reporting_errors(_kriegspiel))
