"""Hostile UCI lines, seeded: what a broken GUI, a bad network link or a fuzzer may write.

:func:`hostile_batch` draws a batch of lines from every kind the protocol must survive: bad FENs and
illegal moves, garbage words and bytes, lines past the length limit, ``go`` with every combination of
limits (huge, negative, not numbers, missing), ``ponderhit`` and ``stop`` out of place, ``stop`` with
junk after it, options good and bad.  :func:`replay` writes a batch at once, then ``stop`` and
``isready``, and checks the rule of ``docs/gui.md``: every ``go`` of the batch is answered, in order,
before ``readyok``, and the engine is then idle: a sane ``go movetime 50`` is answered at once with a
legal move.
"""

from __future__ import annotations

import os
import random

import chess

from jitfish.uci.commands import GO_INT_PARAMS, starts_search
from jitfish.uci.protocol import MAX_LINE_CHARS
from tests.uci.conftest import UciPipe, errors_in

# The sane search after each batch, and how long its bestmove may take (issue 78's bound).
FINAL_GO = "go movetime 50"
FINAL_ANSWER_S = 2.0
# Long enough for a batch's own commands (each stopped search answers from its first iteration).
BATCH_DEADLINE = 120.0
FINAL_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"

INTEGERS = ["0", "1", "-1", "7", "50", "3000", "2147483647", "2147483648", "-2147483649", "9223372036854775808"]
SEARCHMOVES = ["e2e4", "g1f3", "e1g1", "a7a8q", "zz", "1", "0000"]
NOT_INTEGERS = ["3.5", "soon", "1e9", "0x10", "", "inf", "nan", "--", "½"]
BAD_FENS = [
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
    "kkkkkkkk/8/8/8/8/8/8/KKKKKKKK w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w KQkq e3 -5 0",
    "4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1",
    "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 99999999999999999999 1",
]
GOOD_POSITIONS = [
    "startpos",
    "startpos moves e2e4 e7e5 g1f3 b8c6 f1b5",
    "fen 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
    "fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate: the search has no move to give
    "fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "fen 8/8/8/8/8/2k5/2p5/2K5 w - - 0 1",
]
OPTIONS = [
    "MultiPV value {n}",
    "Hash value {n}",
    "Threads value {n}",
    "Skill Level value {n}",
    "UCI_LimitStrength value true",
    "UCI_LimitStrength value false",
    "UCI_Elo value {n}",
    "Ponder value maybe",
    "Move Overhead value {n}",
    "Clear Hash",
    "UCI_ShowWDL value true",
    "EvalFile value /nonexistent/net.nnue",
    "BookFile value /dev/null",
    "SyzygyPath value /nonexistent",
    "Nonsense value 3",
    "",
]


def _number(rng: random.Random) -> str:
    return rng.choice(INTEGERS) if rng.random() < 0.8 else rng.choice(NOT_INTEGERS)


def hostile_go(rng: random.Random) -> str:
    """``go`` with any combination of limits, flags, ``searchmoves`` and junk, in any order."""
    words = ["go"]
    for _ in range(rng.randint(0, 6)):
        kind = rng.random()
        if kind < 0.55:
            name = rng.choice(GO_INT_PARAMS)
            words += [name] if rng.random() < 0.08 else [name, _number(rng)]
        elif kind < 0.75:
            words.append(rng.choice(["infinite", "ponder"]))
        elif kind < 0.85:
            words += ["searchmoves"] + rng.sample(SEARCHMOVES, rng.randint(0, 3))
        else:
            words.append(rng.choice(["go", "bogus", "perft", "stop", "-", "\t"]))
    return " ".join(words)


def _moves(rng: random.Random, count: int) -> str:
    board = chess.Board()
    moves = []
    for _ in range(count):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    if rng.random() < 0.3:  # a bad move at the end: the moves before it are kept
        moves.append(rng.choice(["e2e5", "a1a1", "e7e8k", "xyz", "e1g1"]))
    return " ".join(moves)


def hostile_line(rng: random.Random) -> str:
    """One line of any kind (never ``quit``)."""
    choice = rng.randrange(20)
    if choice < 5:
        return hostile_go(rng)
    if choice == 5:
        return rng.choice(["stop", "ponderhit"])
    if choice == 6:
        return "stop " + rng.choice(["now", "please", "stop", "go infinite", "position startpos", "\x00", "🐟"])
    if choice == 7:
        return f"position fen {rng.choice(BAD_FENS)}" + rng.choice(["", " moves e2e4", " moves"])
    if choice == 8:
        return f"position {rng.choice(GOOD_POSITIONS)}"
    if choice == 9:
        return f"position startpos moves {_moves(rng, rng.randint(0, 60))}"
    if choice == 10:
        return rng.choice(["position", "position fen", "position moves e2e4", "position startpos moves", "position 42"])
    if choice == 11:
        option = rng.choice(OPTIONS).format(n=_number(rng))
        return f"setoption name {option}" if option else "setoption"
    if choice == 12:
        return rng.choice(["isready", "ucinewgame", "uci", "d", "eval", "debug on", "debug off", "debug loud"])
    if choice == 13:
        return rng.choice(["go perft 1", "go perft 2", "go perft", "go perft -3", "go perft x", "bench x"])
    if choice == 14:  # past the length limit, or long but under it
        size = rng.choice([MAX_LINE_CHARS + 1, 5000, 200_000])
        return rng.choice(["go ", "position fen ", "x", "setoption name Hash value "]) + "9" * size
    if choice == 15:
        return "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(160, 0x2FFF)])) for _ in range(30))
    if choice == 16:
        return " ".join(rng.choice(["go", "stop", "x", "moves", "fen", "name", "value", "\t", "\r"]) for _ in range(5))
    if choice == 17:
        return ""
    if choice == 18:
        return rng.choice(["register later", "register name x code y", "ucinewgame now", "isready please"])
    return "\x00\x01 \x7f \u200b go"


def hostile_batch(rng: random.Random, size: int) -> list[str]:
    return [hostile_line(rng) for _ in range(size)]


def _command(line: str) -> list[str]:
    return line.split() if len(line) <= MAX_LINE_CHARS else []


def searches(batch: list[str]) -> int:
    """How many lines of ``batch`` start a search (each gets one ``bestmove``)."""
    return sum(1 for words in map(_command, batch) if words and starts_search(words[0], words[1:]))


def readies(batch: list[str]) -> int:
    """How many lines of ``batch`` are ``isready`` (each gets one ``readyok``)."""
    return sum(1 for words in map(_command, batch) if words[:1] == ["isready"])


def _report(problem: str, batch: list[str], lines: list[str]) -> str:
    """The problem, the batch (each line cut to 100 characters) and what the engine answered to it."""
    shown = [repr(line[:100]) for line in batch] + ["-----"] + [line[:160] for line in lines if "currmove" not in line]
    return "\n".join([problem, *shown])


def replay(pipe: UciPipe, batch: list[str]) -> None:
    """Write ``batch``, ``stop`` and ``isready`` at once; check that each search of the batch is answered before
    the last ``readyok`` with a legal move, and that a sane ``go movetime 50`` then answers within 2 s."""
    expected = searches(batch)
    pipe.transcript.append(f"> ({len(batch)} lines, {expected} searches)")
    os.write(pipe.process.stdin.fileno(), "".join(line + "\n" for line in batch + ["stop", "isready"]).encode())
    lines: list[str] = []
    for _ in range(readies(batch) + 1):
        lines += pipe.read_until("readyok", BATCH_DEADLINE)
    answered = [line for line in lines if line.startswith("bestmove ")]
    assert len(answered) == expected, _report(f"{len(answered)} bestmoves for {expected} searches", batch, lines)
    pipe.send(f"position fen {FINAL_FEN}")
    pipe.send(FINAL_GO)
    final = pipe.read_until("bestmove", FINAL_ANSWER_S)
    move = final[-1].split()[1]
    assert chess.Move.from_uci(move) in chess.Board(FINAL_FEN).legal_moves, pipe.dump()
    assert not errors_in(final), pipe.dump()
