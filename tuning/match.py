"""``python -m tuning.match``: run an engine match and print its result; the last line is a JSON summary.

Options follow cutechess-cli's, written with two dashes::

    python -m tuning.match \\
        --engine cmd=./jitfish name=new --engine cmd=stockfish name=sf option.Hash=16 \\
        --tc 10+0.1 --openings tuning/openings/balanced.epd --rounds 100 --concurrency 2 \\
        --pgnout games.pgn.gz --sprt elo0=0 elo1=5 alpha=0.05 beta=0.05

The games are played by cutechess-cli when it is on PATH, else by the built-in python-chess backend
(``--backend`` chooses explicitly). A progress bar goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tqdm import tqdm

from jitfish.runtime.extras import reporting_missing_extras
from tuning import pgnfile
from tuning.backends import Backend, BackendName, MatchOutcome, choose_backend
from tuning.cluster import ClusterExecutor, local_workers
from tuning.config import DrawAdjudication, MatchConfig, ResignAdjudication
from tuning.engines import parse_engine_spec, with_unique_names
from tuning.openings import read_openings
from tuning.results import GameRecord, SprtState, describe, match_summary, pairing_stats, sprt_state
from tuning.resume import played_records
from tuning.sprt import parse_sprt
from tuning.tc import parse_time_control


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tuning.match",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--engine",
        nargs="+",
        action="append",
        required=True,
        metavar="KEY=VALUE",
        help="cmd=... [name=...] [dir=...] [proto=uci|xboard] [arg=...] [option.NAME=VALUE]; repeat for every engine",
    )
    parser.add_argument(
        "--each",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="engine options applied to every engine (before its own)",
    )
    parser.add_argument(
        "--tc", required=True, help="time control: 10+0.1, 40/60, st=1, nodes=N, depth=N (tokens may be combined)"
    )
    parser.add_argument("--openings", metavar="FILE", help="EPD or PGN opening suite")
    parser.add_argument("--openings-format", choices=("epd", "pgn"), help="default: from the file name")
    parser.add_argument("--openings-order", choices=("random", "sequential"), default="random")
    parser.add_argument("--openings-plies", type=int, help="cut PGN openings to this many half-moves")
    parser.add_argument("--rounds", type=int, default=1, help="opening pairs per pairing (2 games each)")
    parser.add_argument("--concurrency", type=int, default=1, help="games played at the same time")
    parser.add_argument("--tournament", choices=("round-robin", "gauntlet"), default="round-robin")
    parser.add_argument(
        "--pgnout", metavar="FILE", help="append the games to this PGN file (gzip-compressed when it ends in .gz)"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="go on with a stopped match: count the game pairs already in --pgnout and play the rest "
        "(the same command otherwise; python-chess or cluster backend)",
    )
    parser.add_argument(
        "--sprt",
        nargs="*",
        metavar="KEY=VALUE",
        help="elo0=0 elo1=5 alpha=0.05 beta=0.05 (these are also the defaults)",
    )
    parser.add_argument(
        "--draw", nargs="*", metavar="KEY=VALUE", help="draw adjudication: movenumber=40 movecount=8 score=10"
    )
    parser.add_argument(
        "--resign", nargs="*", metavar="KEY=VALUE", help="resign adjudication: movecount=3 score=1000 [twosided=true]"
    )
    parser.add_argument("--maxmoves", type=int, help="adjudicate a draw after this many full moves")
    parser.add_argument(
        "--timemargin",
        type=int,
        default=0,
        metavar="MS",
        help="milliseconds an engine may overstep its clock (default 0, as cutechess-cli)",
    )
    parser.add_argument(
        "--stall-timeout",
        type=float,
        default=5.0,
        metavar="S",
        help="seconds a flagged engine gets to answer stop/isready before it counts as hung",
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds per move before an engine without a clock (nodes=, depth=) counts as hung",
    )
    parser.add_argument("--startup-timeout", type=float, default=60.0, metavar="S")
    parser.add_argument("--seed", type=int, help="seed for the random opening order")
    parser.add_argument("--event", default="Jitfish match")
    parser.add_argument("--backend", choices=("auto", "cutechess", "python-chess"), default="auto")
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the game pairs on a Dask cluster: a scheduler (tcp://host:8786) or local:N "
        "(N worker processes here); replaces --backend and --concurrency (docs/cluster.md)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no result lines, only the JSON")
    return parser


def config_from_args(args: argparse.Namespace) -> MatchConfig:
    """Validate the command line into a MatchConfig (ValueError explains what is wrong)."""
    engines = with_unique_names([parse_engine_spec([*args.each, *tokens]) for tokens in args.engine])
    time_control = parse_time_control(args.tc)
    if time_control.is_unlimited():
        raise ValueError("the time control sets no limit; engines would think forever")
    openings = ()
    if args.openings:
        openings = tuple(read_openings(args.openings, args.openings_format, args.openings_plies))
    return MatchConfig(
        engines=tuple(engines),
        time_control=time_control,
        rounds=args.rounds,
        concurrency=args.concurrency,
        openings_file=args.openings,
        openings=openings,
        opening_order=args.openings_order,
        opening_plies=args.openings_plies,
        seed=args.seed,
        tournament=args.tournament,
        pgn_out=args.pgnout,
        sprt=parse_sprt(args.sprt) if args.sprt is not None else None,
        draw=DrawAdjudication.parse(args.draw) if args.draw is not None else None,
        resign=ResignAdjudication.parse(args.resign) if args.resign is not None else None,
        max_moves=args.maxmoves,
        time_margin=args.timemargin / 1000.0,
        stall_timeout=args.stall_timeout,
        move_timeout=args.move_timeout,
        startup_timeout=args.startup_timeout,
        event=args.event,
    )


def run_match(
    config: MatchConfig,
    backend: Backend | None = None,
    progress: bool = True,
    played: Sequence[GameRecord] = (),
) -> dict[str, Any]:
    """Play the match and return its summary (see :func:`tuning.results.match_summary`). ``played``: the
    games of an earlier run of it (:func:`tuning.resume.played_records`), counted as if played now; their
    encounters must be in ``config.played``."""
    backend = backend or choose_backend("auto")
    names = [engine.name for engine in config.engines]
    bar = tqdm(
        total=config.total_games,
        initial=len(played),
        unit="game",
        file=sys.stderr,
        disable=not progress,
        dynamic_ncols=True,
    )

    def on_game(record: GameRecord, records: Sequence[GameRecord]) -> None:
        stats = pairing_stats([*played, *records], names[0], names[1])
        postfix = f"{names[0]} {stats.wins}-{stats.losses}-{stats.draws}"
        if config.sprt is not None:
            postfix += f" llr {sprt_state(stats, config.sprt).llr:.2f}"
        bar.set_postfix_str(postfix, refresh=False)
        bar.update(1)

    decided: list[tuple[int, SprtState]] = []  # the first decisive state, and after how many games

    def should_stop(records: Sequence[GameRecord]) -> bool:
        if config.sprt is None:
            return False
        state = sprt_state(pairing_stats([*played, *records], names[0], names[1]), config.sprt)
        if state.decision is not None and not decided:
            decided.append((len(played) + len(records), state))
        return state.decision is not None

    pgnfile.compact(config.pgn_out)  # a gzip member cut short by an earlier run's end would hide what follows it
    try:
        outcome: MatchOutcome = backend.run(config, on_game, should_stop)
    finally:
        bar.close()
        pgnfile.compact(config.pgn_out)  # one gzip member per game while it ran: one for the file now
    summary = match_summary(
        [*played, *outcome.records],
        names,
        config.pairings(),
        config.sprt,
        backend.name,
        outcome.stopped_early,
        outcome.restarts,
    )
    if decided:
        # The games in flight when the test decided still finish and count in the score and the final LLR,
        # which they may pull back inside the bounds; the decision is the one that stopped the match.
        games, state = decided[0]
        summary["sprt"].update(decision=state.decision, decided_after_games=games, llr_at_decision=state.llr)
    summary["time_control"] = str(config.time_control)
    if played:
        summary["resumed_games"] = len(played)
    if outcome.reported:
        summary["reported"] = outcome.reported
    return summary


@reporting_missing_extras
def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
        if args.cluster is not None:
            local_workers(args.cluster)  # ValueError for local: without a count
        played: list[GameRecord] = []
        if args.resume:
            if args.backend == "cutechess":
                raise ValueError("--resume needs the python-chess backend (or --cluster)")
            played = played_records(config)
            config = replace(config, played=frozenset(record.encounter for record in played))
    except (ValueError, OSError) as error:
        parser.error(str(error))
    backend_name: BackendName = "python-chess" if args.resume else args.backend
    try:
        if args.cluster is not None:
            from tuning.backends.cluster import ClusterBackend

            with ClusterExecutor(args.cluster) as executor:
                summary = run_match(config, ClusterBackend(executor), progress=not args.quiet, played=played)
        else:
            summary = run_match(config, choose_backend(backend_name), progress=not args.quiet, played=played)
    except RuntimeError as error:  # an engine that will not start, cutechess-cli failing outright
        print(f"error: {error}", file=sys.stderr)
        return 1
    if not args.quiet:
        for line in describe(summary):
            print(line)
    print(json.dumps(summary, separators=(",", ":"), allow_nan=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
