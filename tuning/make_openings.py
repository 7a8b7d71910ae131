#!/usr/bin/env python3
"""Generate a suite of balanced opening positions (EPD) for engine matches.

Each candidate is a short random walk, for a random number of plies, from a start point: the initial position,
or (with ``--seeds``) a position drawn from existing suites, so that the walks branch from many openings rather
than all from move one.  A walk picks each move one of two ways:

* ``--walk-depth`` above 0: uniformly among the moves a shallow Stockfish MultiPV search scores within
  ``--spread`` centipawns of its best (plausible chess, but a search per ply: slow);
* ``--walk-depth 0``: uniformly among the legal moves that do not leave the moved piece en prise (attacked by
  a cheaper piece, or attacked and undefended), king moves other than castling drawn a fifth as often.  No
  search: fast enough for suites of thousands; the balance check below throws out what went wrong.

A candidate is kept when it is not in check and the game is not over, its position (EPD: pieces, side, castling,
en passant) was not kept before -- walks that transpose into one another count once -- and a deeper search
(``--depth``, or ``--nodes``) scores it within ``--max-score`` centipawns of equality.  Any UCI engine works
(``--engine``).  Candidates are walked and checked ``--batch`` at a time (:class:`BalanceCheck`), and the kept
ones appended to ``--output`` after each batch, so a stopped run keeps its work.

    # tuning/openings/balanced.epd (80) and balanced-600.epd (600): MultiPV walks from the start
    python -m tuning.make_openings --count 80 --seed 1 --output tuning/openings/balanced.epd
    # tuning/openings/balanced-10k.epd: cheap walks from the start and from both suites above, two runs
    # (one per core), then the first of each position kept
    for seed in 45 46; do
        nice -n 19 python -m tuning.make_openings --count 5150 --seed $seed --walk-depth 0 --min-plies 6 \\
            --max-plies 14 --seeds tuning/openings/balanced.epd tuning/openings/balanced-600.epd \\
            --seed-plies 1 8 --nodes 10000 --max-score 100 --output /tmp/openings-$seed.epd &
    done; wait
    cat /tmp/openings-45.epd /tmp/openings-46.epd | awk '!seen[$0]++' > tuning/openings/balanced-10k.epd
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import chess
import chess.engine

DEFAULT_STOCKFISH = shutil.which("stockfish") or "/usr/games/stockfish"
PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}
KING_WALK_WEIGHT = 0.2  # how often a cheap walk plays a king move other than castling, against any other move


def _plausible_moves(
    engine: chess.engine.SimpleEngine, board: chess.Board, depth: int, width: int, spread: int
) -> list[chess.Move]:
    """Moves scored within ``spread`` centipawns of the best by a shallow MultiPV search."""
    infos = engine.analyse(board, chess.engine.Limit(depth=depth), multipv=width)
    scored = [(info["score"].relative.score(mate_score=100_000), info["pv"][0]) for info in infos if info.get("pv")]
    best = max(score for score, _ in scored)
    return [move for score, move in scored if score >= best - spread]


def leaves_piece_en_prise(board: chess.Board, move: chess.Move) -> bool:
    """Whether ``move`` puts the moving piece where a cheaper enemy piece attacks it, or where it is attacked
    and not defended."""
    mover = board.turn
    value = PIECE_VALUES[board.piece_type_at(move.from_square)]
    board.push(move)
    try:
        attackers = board.attackers(not mover, move.to_square)
        if not attackers:
            return False
        if min(PIECE_VALUES[board.piece_type_at(square)] for square in attackers) < value:
            return True
        return not board.attackers(mover, move.to_square)
    finally:
        board.pop()


def _cheap_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """A legal move drawn as the module docstring says (``--walk-depth 0``)."""
    moves = list(board.legal_moves)
    safe = [move for move in moves if not leaves_piece_en_prise(board, move)] or moves
    weights = [
        KING_WALK_WEIGHT if board.piece_type_at(move.from_square) == chess.KING and not board.is_castling(move) else 1.0
        for move in safe
    ]
    return rng.choices(safe, weights)[0]


def random_opening(
    engine: chess.engine.SimpleEngine, rng: random.Random, args: argparse.Namespace, seeds: list[chess.Board]
) -> chess.Board:
    """A walk from the initial position (``--min-plies`` to ``--max-plies``) or, a ``--seed-share`` of the
    time when there are seeds, from one of them (``--seed-plies``)."""
    if seeds and rng.random() < args.seed_share:
        board = rng.choice(seeds).copy()
        plies = rng.randint(*args.seed_plies)
    else:
        board = chess.Board()
        plies = rng.randint(args.min_plies, args.max_plies)
    for _ in range(plies):
        if board.is_game_over():
            break
        if args.walk_depth > 0:
            board.push(rng.choice(_plausible_moves(engine, board, args.walk_depth, args.width, args.spread)))
        else:
            board.push(_cheap_move(board, rng))
    return board


class BalanceCheck:
    """Scores positions with a UCI engine, a batch at a time.

    A batch's commands are written all at once (the engine queues each ``go`` behind the search before it),
    so the engine searches without waiting for this script between positions: at ``nice -n 19`` on a busy
    machine, a round trip per position left it idle most of the time.  ``ucinewgame`` before each position
    clears the hash, so a position's score does not depend on the ones searched before it.
    """

    def __init__(self, engine: str, go: str) -> None:
        self._go = go
        self._engine = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._send(["uci", "setoption name Threads value 1", "setoption name Hash value 16", "isready"])
        while self._engine.stdout.readline().strip() != "readyok":
            pass

    def _send(self, lines: list[str]) -> None:
        self._engine.stdin.write("".join(f"{line}\n" for line in lines))
        self._engine.stdin.flush()

    def scores(self, boards: list[chess.Board]) -> list[int]:
        """Each position's score in centipawns for the side to move (a mate counts as 100,000)."""
        commands = [line for board in boards for line in ("ucinewgame", f"position fen {board.fen()}", self._go)]
        writer = threading.Thread(target=self._send, args=(commands,))  # the engine's output is read meanwhile
        writer.start()
        scores: list[int] = []
        score = None
        while len(scores) < len(boards):
            words = self._engine.stdout.readline().split()
            if not words:
                raise RuntimeError("the engine stopped")
            if words[0] == "info" and "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = int(value) if kind == "cp" else 100_000 * (1 if int(value) > 0 else -1)
            elif words[0] == "bestmove":
                scores.append(score)
                score = None
        writer.join()
        return scores

    def close(self) -> None:
        self._send(["quit"])
        self._engine.wait()


def read_seeds(paths: list[Path]) -> list[chess.Board]:
    """The positions of the EPD files (``#`` lines are comments)."""
    seeds = []
    for path in paths:
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                seeds.append(chess.Board.from_epd(line)[0])
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default=DEFAULT_STOCKFISH, help="UCI engine used for scoring")
    parser.add_argument("--count", type=int, default=80)
    parser.add_argument("--min-plies", type=int, default=6, help="shortest walk from the initial position")
    parser.add_argument("--max-plies", type=int, default=10, help="longest walk from the initial position")
    parser.add_argument("--seeds", type=Path, nargs="*", default=[], help="EPD files of positions to walk from")
    parser.add_argument("--seed-share", type=float, default=0.75, help="share of walks that start from a seed")
    parser.add_argument(
        "--seed-plies", type=int, nargs=2, default=(1, 6), metavar=("MIN", "MAX"), help="length of a walk from a seed"
    )
    parser.add_argument(
        "--walk-depth",
        type=int,
        default=6,
        help="search depth when choosing moves (0: no search, see the module docstring)",
    )
    parser.add_argument("--width", type=int, default=6, help="MultiPV width when choosing moves")
    parser.add_argument("--spread", type=int, default=60, help="centipawns below the best a move may be")
    parser.add_argument("--depth", type=int, default=12, help="search depth of the balance check")
    parser.add_argument("--nodes", type=int, default=None, help="node limit of the balance check (not --depth)")
    parser.add_argument("--max-score", type=int, default=35, help="largest |eval| kept, centipawns")
    parser.add_argument("--batch", type=int, default=200, help="candidates walked, then checked at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=Path("tuning/openings/balanced.epd"))
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    seeds = read_seeds(args.seeds)
    go = f"go nodes {args.nodes}" if args.nodes else f"go depth {args.depth}"
    kept = set(args.output.read_text().split("\n")) - {""} if args.output.exists() else set()
    already = len(kept)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    tried = 0
    check = BalanceCheck(args.engine, go)
    with chess.engine.SimpleEngine.popen_uci(args.engine) as walker, args.output.open("a") as out:
        walker.configure({"Threads": 1, "Hash": 16})
        while len(kept) < args.count:
            if tried > 50 * args.count:
                print(f"gave up after {tried} candidates", file=sys.stderr)
                return 1
            batch: dict[str, chess.Board] = {}
            while len(batch) < args.batch:
                tried += 1
                board = random_opening(walker, rng, args, seeds)
                epd = board.epd()
                if epd not in kept and not board.is_game_over() and not board.is_check():
                    batch.setdefault(epd, board)
            for epd, score in zip(batch, check.scores(list(batch.values()))):
                if abs(score) <= args.max_score and len(kept) < args.count:
                    kept.add(epd)
                    out.write(f"{epd}\n")
            out.flush()
            print(f"{len(kept):5d}/{args.count} kept, {tried} walked", file=sys.stderr)
    check.close()
    print(f"kept {len(kept) - already} of {tried} candidates -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
