"""``python -m tuning.datagen``: self-play training data; ``pgn FILES…``: data from PGN; ``convert``: formats.

    python -m tuning.datagen --positions 1000000 --seed 106 --data-dir data/nnue   # into the repository's data set
    python -m tuning.datagen --games 100 --output games.bin --eval hce             # run it again to resume
    python -m tuning.datagen check data/nnue                      # recount every file against the manifest
    python -m tuning.datagen pgn lichess.pgn --output lichess.gz  # [%eval] scores, else a search
    python -m tuning.datagen convert data.gz data.bin             # text to games, or back (.bin -> .gz)

Self-play writes game files (``.bin``, tuning/datagen/records.py: a game's start, its moves, each
position's score); PGN import and ``convert`` to ``.gz`` write lines ``FEN | score (cp, white's view) |
result (1.0/0.5/0.0)``, gzip-compressed.  The progress bar goes to stderr; the summary (games, positions,
positions per second, elapsed) is the last line on stdout.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from jitfish.nnue.format import SHIPPED_NETWORK
from jitfish.runtime.extras import reporting_missing_extras
from tuning.datagen import dataset
from tuning.datagen.convert import convert
from tuning.datagen.pgn import import_pgn
from tuning.datagen.run import CHUNK_GAMES, Summary, default_output, generate, parts_dir
from tuning.datagen.selfplay import DEFAULT_DEPTH_CAP, DEFAULT_NODES, GameSettings


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def _search_options(parser: argparse.ArgumentParser, nodes_help: str) -> None:
    parser.add_argument("--nodes", type=int, default=DEFAULT_NODES, help=nodes_help)
    parser.add_argument(
        "--depth-cap",
        type=_positive,
        default=DEFAULT_DEPTH_CAP,
        help=f"deepest iteration of a search (default {DEFAULT_DEPTH_CAP})",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def selfplay_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tuning.datagen",
        description="Self-play training data: quiet positions, scores, results.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    amount = parser.add_mutually_exclusive_group(required=True)
    amount.add_argument("--positions", type=_positive, help="play whole chunks until this many positions")
    amount.add_argument("--games", type=_positive, help="play this many games")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--output", type=Path, help="the game file to write (default ~/.cache/jitfish/data/selfplay-seedS-nodesN.bin)"
    )
    where.add_argument(
        "--data-dir",
        type=Path,
        help="write into this data set (e.g. data/nnue): its file and manifest row are rewritten "
        "after every finished chunk; the chunks for resuming are kept beside it in FILE.parts/",
    )
    parser.add_argument(
        "--eval",
        default="default",
        metavar="FILE",
        help="the teacher: a network file, 'default' (the shipped network, the default) or "
        "'hce' (the hand-written evaluation)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the run's seed: same seed, same games (default 1)")
    parser.add_argument(
        "--workers",
        type=_positive,
        default=os.cpu_count() or 1,
        help="worker processes, one search each (default: every core)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="play the chunks on a Dask cluster: a scheduler (tcp://host:8786) or local:N "
        "(N worker processes here); see docs/cluster.md",
    )
    parser.add_argument(
        "--chunk-games",
        type=_positive,
        default=CHUNK_GAMES,
        help=f"games per chunk, the unit of resuming (default {CHUNK_GAMES})",
    )
    parser.add_argument(
        "--keep-parts", action="store_true", help="keep OUTPUT.parts/ after writing OUTPUT, to extend the run later"
    )
    _search_options(parser, f"soft node limit per move (default {DEFAULT_NODES})")
    return parser


def pgn_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tuning.datagen pgn", description="Label the quiet positions of PGN games with their results."
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="PGN files")
    parser.add_argument("--output", type=Path, required=True, help="the .gz file to write")
    _search_options(
        parser,
        f"soft node limit of the search that scores a position without an [%%eval] "
        f"comment; 0 skips such positions (default {DEFAULT_NODES})",
    )
    return parser


def convert_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tuning.datagen convert",
        description="Convert FEN | score | result text (.gz) to a game file (.bin) or back.",
    )
    parser.add_argument("source", type=Path, help="the file to read")
    parser.add_argument("target", type=Path, help="the file to write: .bin for games, .gz for text")
    return parser


def teacher_network(name: str) -> Path | None:
    """The network file ``--eval`` names (``None`` for the hand-written evaluation)."""
    if name == dataset.HCE_TEACHER:
        return None
    path = Path(SHIPPED_NETWORK if name == "default" else name).expanduser()
    if not path.is_file():
        raise ValueError(f"no such network file: {path}")
    return path


def _self_play(args: argparse.Namespace) -> tuple[Path, Summary]:
    """Run (or resume) the self-play run the arguments describe; its output and summary."""
    if args.nodes <= 0:
        raise ValueError("--nodes must be positive for self-play")
    network = teacher_network(args.eval)
    teacher = dataset.teacher_name(network)
    settings = GameSettings(args.nodes, args.depth_cap)
    common = dict(
        seed=args.seed,
        settings=settings,
        games=args.games,
        positions=args.positions,
        workers=args.workers,
        chunk_games=args.chunk_games,
        keep_parts=args.keep_parts,
        progress=not args.quiet,
        network=network,
        cluster=args.cluster,
    )
    if args.data_dir is None:
        output = args.output or default_output(args.seed, args.nodes)
        return output, generate(output, **common)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    output = args.data_dir / dataset.file_name(args.seed, args.nodes, teacher)
    commit = dataset.build_commit()

    def published(summary: Summary) -> None:
        """The file was just rewritten (a rename, so whole) to hold ``summary``'s games: its row follows."""
        white, draws, black = summary.results
        size, sha256 = dataset.file_digest(output)
        dataset.write_row(
            args.data_dir,
            dataset.FileRow(
                output.name,
                summary.positions,
                summary.games,
                white,
                draws,
                black,
                args.seed,
                commit,
                teacher,
                args.nodes,
                args.depth_cap,
                size,
                sha256,
            ),
        )

    held = {row.file: row.games for row in dataset.read_manifest(args.data_dir)}.get(output.name, 0)
    parts = parts_dir(output)
    if held and not parts.is_dir():
        raise ValueError(
            f"{output} holds {held} games whose chunks are not in {parts}: "
            f"start another seed rather than play them again"
        )
    return output, generate(output, published=published, **{**common, "keep_parts": True})


@reporting_missing_extras
def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["check"]:
            folder = Path(argv[1]) if len(argv) == 2 else None
            if folder is None or not folder.is_dir():
                raise ValueError("usage: python -m tuning.datagen check DIR (a data folder with a manifest)")
            problems = dataset.check(folder)
            for problem in problems:
                print(problem)
            print(", ".join(f"{name} {value:,}" for name, value in dataset.totals(folder).items()))
            return 1 if problems else 0
        if argv[:1] == ["convert"]:
            args = convert_parser().parse_args(argv[1:])
            if not args.source.is_file():
                raise ValueError(f"no such file: {args.source}")
            count = convert(args.source, args.target)
            print(f"wrote {args.target}: {count} positions, {args.target.stat().st_size / count:.2f} bytes each")
            return 0
        if argv[:1] == ["pgn"]:
            args = pgn_parser().parse_args(argv[1:])
            summary = import_pgn(
                args.files, args.output, nodes=args.nodes, depth_cap=args.depth_cap, progress=not args.quiet
            )
            print(f"wrote {args.output}")
        else:
            output, summary = _self_play(selfplay_parser().parse_args(argv))
            print(f"wrote {output}")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    print(summary.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
