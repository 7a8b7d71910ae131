"""Speed in play: two UCI engines search the positions of real games, is one faster, and on the same tree?

    python -m scripts.bench.play_speed /tmp/eng-new /tmp/eng-parent --pgn records/matches/X/games.pgn.gz \
        --nodes 200000 --every 400 --option Hash=16 --option EvalFile=$PWD/records/matches/nnue-issue50/nets/wdl0.1.nnue

``bench`` searches 40 positions from an empty table; a game searches one position after another with the
table kept from the moves before, where other nodes carry a TT move. A change that is faster in ``bench``
may not be in play (the TT move searched before generation, issue 74: 1.06 in ``bench``, 1.01 here). This
replays every ``--every``-th game of ``--pgn`` (its first ``--plies`` plies) with both engines, each told
``ucinewgame`` at a game's start (python-chess's ``game=``) and then ``go nodes N`` at each position, the
order of the two alternating from position to position. Prints how many positions gave the same move, node
count and score (a change meant to keep the tree must give all), each engine's total search time (its own
``info time``) and the ratio of the second's time to the first's (above 1: the first is faster): the
geometric mean over the games, with a 95 % interval (normal, over the games' log ratios). Stop the data
generator first.
"""

from __future__ import annotations

import argparse
import io
import math
import statistics
import sys

import chess
import chess.engine
import chess.pgn

from tuning.pgnfile import read_text


def sample_games(path: str, every: int) -> list[chess.pgn.Game]:
    """Every ``every``-th game of a match's PGN file ``path`` (:func:`tuning.pgnfile.read_text`: plain or
    gzipped, a member cut short left out), from the first."""
    games = []
    handle = io.StringIO(read_text(path))
    index = 0
    while (game := chess.pgn.read_game(handle)) is not None:
        if index % every == 0:
            games.append(game)
        index += 1
    return games


def option(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, value


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", help="the engine measured (a UCI command)")
    parser.add_argument("second", help="the engine it is compared with, usually its parent")
    parser.add_argument("--pgn", required=True, help="games to replay (.pgn or .pgn.gz)")
    parser.add_argument("--nodes", type=positive, default=200_000, help="nodes per search (default 200000)")
    parser.add_argument("--every", type=positive, default=100, help="replay every N-th game (default 100)")
    parser.add_argument("--plies", type=positive, default=60, help="plies replayed per game (default 60)")
    parser.add_argument("--option", type=option, action="append", default=[], help="NAME=VALUE for both engines")
    args = parser.parse_args(argv)
    games = sample_games(args.pgn, args.every)
    if not games:
        parser.error(f"{args.pgn} holds no game")
    engines = [chess.engine.SimpleEngine.popen_uci(command, timeout=300) for command in (args.first, args.second)]
    try:
        for engine in engines:
            engine.configure(dict(args.option))
        same = positions = 0
        totals = [0.0, 0.0]
        per_game: list[float] = []
        for game in games:
            board, spent = game.board(), [0.0, 0.0]
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= args.plies:
                    break
                found = [None, None]
                for side in (0, 1) if ply % 2 == 0 else (1, 0):
                    limit = chess.engine.Limit(nodes=args.nodes)
                    result = engines[side].play(board, limit, info=chess.engine.INFO_ALL, game=game)
                    found[side] = (result.move, result.info.get("nodes"), result.info.get("score"))
                    spent[side] += result.info.get("time", 0.0)
                same += found[0] == found[1]
                positions += 1
                board.push(move)
            totals = [total + part for total, part in zip(totals, spent)]
            if spent[0] > 0 and spent[1] > 0:
                per_game.append(math.log(spent[1] / spent[0]))
    finally:
        for engine in engines:
            engine.quit()
    print(f"positions {positions} in {len(games)} games, {args.nodes} nodes each; same tree at {same}")
    print(f"search time: first {totals[0]:.2f} s, second {totals[1]:.2f} s")
    if len(per_game) > 1:
        mean, margin = statistics.fmean(per_game), 1.96 * statistics.stdev(per_game) / math.sqrt(len(per_game))
        ratio, lower, upper = (math.exp(value) for value in (mean, mean - margin, mean + margin))
        print(f"speed of the first over the second: {ratio:.3f} [{lower:.3f}, {upper:.3f}] (geometric mean over games)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
