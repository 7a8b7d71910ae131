#!/usr/bin/env python3
"""A tiny UCI engine that plays random legal moves, with switchable faults for testing the match runner.

    random_mover.py [--seed N] [--crash-after N] [--illegal-after N] [--hang-after N]
                    [--sleep-after N --sleep SECONDS] [--no-move-after N]

Each ``--X-after N`` misbehaves on the (N+1)-th ``go`` of the process: exits, sends an illegal move, stops
reading input for good, sleeps before answering (without reading ``stop``), or answers ``bestmove (none)``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import chess


def _illegal_move(board: chess.Board) -> str:
    """A well-formed move string that is not legal here (a piece of the side to move jumping to its own king)."""
    legal = {move.uci() for move in board.legal_moves}
    for from_square in chess.SQUARES:
        for to_square in chess.SQUARES:
            move = chess.Move(from_square, to_square)
            if from_square != to_square and move.uci() not in legal:
                return move.uci()
    return "a1a1"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=None)
    for fault in ("crash", "illegal", "hang", "sleep", "no-move"):
        parser.add_argument(f"--{fault}-after", type=int, default=None)
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--name", default="RandomMover")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    board = chess.Board()
    searches = 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            print(f"id name {args.name}")
            print("id author Jitfish tests")
            print("option name Hash type spin default 16 min 1 max 1024")
            print("uciok")
        elif command == "isready":
            print("readyok")
        elif command == "position":
            if words[1] == "startpos":
                board = chess.Board()
                rest = words[2:]
            else:
                board = chess.Board(" ".join(words[2:8]))
                rest = words[8:]
            if rest and rest[0] == "moves":
                for move in rest[1:]:
                    board.push_uci(move)
        elif command == "go":
            number = searches  # this is search number `number` (0-based) of the process
            searches += 1
            if number == args.crash_after:
                return 3
            if number == args.hang_after:
                while True:
                    time.sleep(3600)
            if number == args.sleep_after:
                time.sleep(args.sleep)
            moves = list(board.legal_moves)
            if number == args.illegal_after:
                print(f"bestmove {_illegal_move(board)}")
            elif number == args.no_move_after or not moves:
                print("bestmove (none)")
            else:
                print("info depth 1 score cp 0 nodes 1")
                print(f"bestmove {rng.choice(moves).uci()}")
        elif command == "quit":
            return 0
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
