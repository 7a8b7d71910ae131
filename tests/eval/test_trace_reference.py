"""``trace()``'s coefficients against the counts of :mod:`tests.reference_eval`, made with python-chess.

The tracing build's identity (``trace · weights`` is the evaluation) holds
whatever the terms count, because both sides of it come from the same
kernel source; this test checks what they count.  Positions: the tactics
suites (middlegames full of pieces) and seeded random games played down to
endgames (passed pawns, open files, lone kings).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import chess
import numpy as np

import jitfish
from jitfish.eval import evaluate, trace
from jitfish.eval.params import DANGER_LABELS, OFFSETS, TERMS
from tests.reference_eval import reference_evaluation, reference_trace

DATA = Path(__file__).resolve().parents[1] / "data"
WEIGHTS_JSON = Path(jitfish.__file__).resolve().parent / "eval" / "weights.json"
RANDOM_GAMES = 12
PLIES_PER_GAME = 120
KEEP_EVERY = 4


def positions() -> list[chess.Board]:
    boards = []
    for name in ("win_at_chess.epd", "bratko_kopec.epd"):
        for line in (DATA / name).read_text().splitlines():
            if line.strip():
                boards.append(chess.Board(" ".join(line.split()[:4]) + " 0 1"))
    rng = random.Random(32)
    for _ in range(RANDOM_GAMES):
        board = chess.Board()
        for ply in range(PLIES_PER_GAME):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.6 else moves))
            if ply % KEEP_EVERY == 0:
                boards.append(board.copy(stack=False))
    return boards


def differences(board: chess.Board) -> list[str]:
    coefficients, _, danger = trace(jitfish.Board(board.fen()))
    expected, expected_danger = reference_trace(board)
    found = []
    for name, count in TERMS:
        block = slice(OFFSETS[name], OFFSETS[name] + count)
        if not np.array_equal(coefficients[block], expected[block]):
            slots = np.flatnonzero(coefficients[block] != expected[block])
            found.append(
                f"{name}: slots {slots.tolist()} engine {coefficients[block][slots].tolist()} "
                f"python-chess {expected[block][slots].tolist()}"
            )
    for side in range(2):
        for j, label in enumerate(DANGER_LABELS):
            if danger[side, j] != expected_danger[side, j]:
                found.append(
                    f"king danger {label} of {'white' if side == 0 else 'black'}: "
                    f"engine {danger[side, j]} python-chess {expected_danger[side, j]}"
                )
    return found


def test_every_coefficient_is_the_python_chess_count():
    boards = positions()
    assert len(boards) > 300
    fired = np.zeros(len(TERMS), dtype=int)
    danger_fired = np.zeros(len(DANGER_LABELS), dtype=int)
    wrong = []
    for board in boards:
        found = differences(board)
        if found:
            wrong.append(f"{board.fen()}: " + "; ".join(found))
        expected, expected_danger = reference_trace(board)
        fired += [bool(expected[OFFSETS[name] : OFFSETS[name] + count].any()) for name, count in TERMS]
        danger_fired += expected_danger.any(axis=0)
    assert not wrong, f"{len(wrong)} of {len(boards)} positions differ, first ones:\n" + "\n".join(wrong[:5])
    # Every term must have fired somewhere, or the comparison proves nothing about it.
    # (king_danger's pairs weigh the danger inputs, which are traced apart from the coefficients.)
    silent = [name for (name, _), times in zip(TERMS, fired) if times == 0 and name != "king_danger"]
    silent += [f"king danger {label}" for label, times in zip(DANGER_LABELS, danger_fired) if times == 0]
    assert not silent, f"terms never counted in these positions: {silent}"


def test_the_evaluation_is_the_weight_file_applied_to_the_python_chess_counts():
    """Read ``weights.json`` with ``json`` (not the engine's loader) and score every position in plain Python."""
    weights = json.loads(WEIGHTS_JSON.read_text())
    wrong = []
    for board in positions():
        expected = reference_evaluation(board, weights)
        got = evaluate(jitfish.Board(board.fen()))
        if got != expected:
            wrong.append(f"{board.fen()}: engine {got}, plain Python {expected}")
    assert not wrong, f"{len(wrong)} positions differ, first ones:\n" + "\n".join(wrong[:5])


def test_weights_have_the_signs_chess_gives_them():
    """A weight whose sign is flipped (in the file or by the tuner) must not pass silently."""
    w = json.loads(WEIGHTS_JSON.read_text())
    for half in (0, 1):
        values = [pair[half] for pair in w["material"][:5]]
        assert 0 < values[0] < min(values[1:3]) and max(values[1:3]) < values[3] < values[4], f"material {values}"
        for name in ("knight_mobility", "bishop_mobility", "rook_mobility", "queen_mobility", "passed_pawn"):
            assert w[name][-1][half] > w[name][0][half], f"{name} should grow: {w[name]}"
        for name in ("bishop_pair", "rook_open_file", "rook_semi_open_file", "tempo"):
            assert w[name][0][half] >= 0, f"{name} {w[name]}"
        for name in ("threat_by_pawn", "threat_by_minor", "threat_by_rook"):
            assert all(pair[half] > 0 for pair in w[name]), f"{name} {w[name]}"
        for name in ("doubled_pawn", "isolated_pawn"):
            assert w[name][0][half] <= 0, f"{name} is a penalty: {w[name]}"
        assert all(pair[half] <= 0 for pair in w["passed_blocked"]), f"passed_blocked {w['passed_blocked']}"
        assert all(pair[half] >= 0 for pair in w["passed_pawn"]), f"passed_pawn {w['passed_pawn']}"
    assert w["bishop_pair"][0][1] > 0 and w["rook_open_file"][0][0] > w["rook_semi_open_file"][0][0] > 0
    assert w["king_shelter"][0][0] > 0, f"king_shelter {w['king_shelter']}"
    assert all(pair[1] <= 0 for pair in w["passed_own_king"]) and all(pair[1] >= 0 for pair in w["passed_enemy_king"])
