#!/usr/bin/env python3
"""Generate a small suite of balanced opening positions (EPD) for engine matches.

Each candidate is a short random game from the start position: at every ply a move is drawn uniformly from the
moves a shallow Stockfish MultiPV search scores within ``--spread`` centipawns of its best (so the lines stay
plausible chess), for a random length between ``--min-plies`` and ``--max-plies``. A candidate is kept when a
deeper search (``--depth``) scores it within ``--max-score`` centipawns of equality and it is not a repeat.
Stockfish does the scoring because Jitfish's own search is not finished; any UCI engine works (``--engine``).

    python scripts/make_openings.py --count 80 --seed 1 --output tuning/openings/balanced.epd
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from pathlib import Path

import chess
import chess.engine

DEFAULT_STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"


def _plausible_moves(engine: chess.engine.SimpleEngine, board: chess.Board, depth: int, width: int,
                     spread: int) -> list[chess.Move]:
    """Moves scored within ``spread`` centipawns of the best by a shallow MultiPV search."""
    infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=width)
    scored = [(info["score"].relative.score(mate_score=100_000), info["pv"][0]) for info in infos if info.get("pv")]
    best = max(score for score, _ in scored)
    return [move for score, move in scored if score >= best - spread]


def random_opening(engine: chess.engine.SimpleEngine, rng: random.Random, args: argparse.Namespace) -> chess.Board:
    board = chess.Board()
    for _ in range(rng.randint(args.min_plies, args.max_plies)):
        if board.is_game_over():
            break
        board.push(rng.choice(_plausible_moves(engine, board, args.walk_depth, args.width, args.spread)))
    return board


def evaluation(engine: chess.engine.SimpleEngine, board: chess.Board, depth: int) -> int:
    """Centipawns from White's side after a search to ``depth``."""
    info = engine.analyse(board, chess.engine.Limit(depth=depth))
    return info["score"].white().score(mate_score=100_000)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default=DEFAULT_STOCKFISH, help="UCI engine used for scoring")
    parser.add_argument("--count", type=int, default=80)
    parser.add_argument("--min-plies", type=int, default=6)
    parser.add_argument("--max-plies", type=int, default=10)
    parser.add_argument("--walk-depth", type=int, default=6, help="search depth when choosing moves")
    parser.add_argument("--width", type=int, default=6, help="MultiPV width when choosing moves")
    parser.add_argument("--spread", type=int, default=60, help="centipawns below the best a move may be")
    parser.add_argument("--depth", type=int, default=12, help="search depth of the balance check")
    parser.add_argument("--max-score", type=int, default=35, help="largest |eval| kept, centipawns")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=Path("tuning/openings/balanced.epd"))
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    kept: dict[str, int] = {}
    tried = 0
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        engine.configure({"Threads": 1, "Hash": 16})
        while len(kept) < args.count:
            tried += 1
            if tried > 50 * args.count:
                print(f"gave up after {tried} candidates", file=sys.stderr)
                return 1
            board = random_opening(engine, rng, args)
            epd = board.epd()
            if epd in kept or board.is_game_over():
                continue
            score = evaluation(engine, board, args.depth)
            if abs(score) <= args.max_score:
                kept[epd] = score
                print(f"{len(kept):3d}/{args.count} {score:+4d} {epd}", file=sys.stderr)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("".join(f"{epd}\n" for epd in kept))
    print(f"kept {len(kept)} of {tried} candidates -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
