"""The history tables' read and write (jitfish.search.history), against plain-Python versions of the rules."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.layout import MAILBOX, SIDE_TO_MOVE
from jitfish.board.moves import MAX_MOVES, move_from, move_to, move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.search import buffers as B
from jitfish.search.context import new_context
from jitfish.search.evalstack import network_arrays
from jitfish.search.history import (
    CONTINUATION,
    HISTORY_MAX,
    KILLERS,
    SCORE_COUNTERMOVE,
    SCORE_KILLER_1,
    SCORE_KILLER_2,
    SEARCHED_QUIET,
    countermove_index,
    history_index,
    mark_searched_quiet,
    order_quiets,
    update_quiet_histories,
)
from jitfish.search.params import default_params
from jitfish.search.tt import new_table

PLY = 5
FENS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 0 10",
    "8/2k5/3p4/p2P1p2/P2P1P2/8/4K3/8 w - - 0 1",
]
CASES = [(fen, seed) for fen in FENS for seed in range(4)]


def _context(fen: str, seed: int):
    """A search context of ``fen`` whose history tables hold random values, and the position's quiet moves."""
    rng = np.random.default_rng(seed)
    position = jitfish.Board(fen).position
    work = np.zeros(B.WORK_SIZE, dtype=np.int32)
    stack = B.new_stack()
    ctx = new_context(
        position,
        lookup_tables(),
        default_weights(),
        network_arrays(None),
        default_params(),
        new_table(1),
        work,
        np.zeros(B.CONTROL_SIZE, dtype=np.int64),
        stack,
    )
    board = chess.Board(fen)
    quiets = [
        int(m)
        for m in position.legal_moves()
        if not board.is_capture(move := chess.Move.from_uci(move_to_uci(m))) and move.promotion is None
    ]
    work[: B.HEURISTICS_SIZE] = rng.integers(-HISTORY_MAX, HISTORY_MAX, B.HEURISTICS_SIZE)
    random.Random(seed).shuffle(quiets)
    work[KILLERS + 2 * PLY : KILLERS + 2 * PLY + 2] = quiets[:2]
    stack["move"][PLY - 1 + B.STACK_ROOT] = quiets[-1] ^ 0x41  # any move code: its countermove is set below
    work[countermove_index(quiets[-1] ^ 0x41)] = quiets[2]
    stack["piece_to"][PLY - 1 + B.STACK_ROOT] = rng.integers(12 * 64)
    if seed % 2:  # else two plies back is the null move: no continuation entry
        stack["move"][PLY - 2 + B.STACK_ROOT] = 999
        stack["piece_to"][PLY - 2 + B.STACK_ROOT] = rng.integers(12 * 64)
    return ctx, quiets


def _continuation_indices(ctx, ply: int, move: int) -> list[int]:
    piece_to = int(ctx.state[MAILBOX + move_from(move)]) * 64 + move_to(move)
    return [
        CONTINUATION + int(record["piece_to"]) * 12 * 64 + piece_to
        for record in (ctx.stack[ply - back + B.STACK_ROOT] for back in (1, 2))
        if record["move"] != 0
    ]


def _reference_order(ctx, work: np.ndarray, side: int, ply: int, previous: int, move: int) -> int:
    if move == work[KILLERS + 2 * ply]:
        return SCORE_KILLER_1
    if move == work[KILLERS + 2 * ply + 1]:
        return SCORE_KILLER_2
    if move == work[countermove_index(previous)]:
        return SCORE_COUNTERMOVE
    return int(work[history_index(side, move)]) + sum(int(work[i]) for i in _continuation_indices(ctx, ply, move))


@pytest.mark.parametrize("fen,seed", CASES)
@pytest.mark.parametrize("parents_move", [True, False])
def test_order_quiets_scores_killers_then_the_countermove_then_history(fen, seed, parents_move):
    ctx, quiets = _context(fen, seed)
    start = B.MOVES + PLY * MAX_MOVES
    ctx.work[start : start + len(quiets)] = quiets
    previous = int(ctx.stack["move"][PLY - 1 + B.STACK_ROOT]) if parents_move else 0
    before = ctx.work.copy()
    order_quiets(ctx, PLY, start, start + len(quiets), previous)
    side = int(ctx.state[SIDE_TO_MOVE])
    expected = [_reference_order(ctx, before, side, PLY, previous, move) for move in quiets]
    assert list(ctx.work[start + B.SCORES : start + B.SCORES + len(quiets)]) == expected
    if parents_move:
        assert expected.count(SCORE_KILLER_1) == expected.count(SCORE_KILLER_2) == 1
        assert expected.count(SCORE_COUNTERMOVE) == 1
    ctx.work[start + B.SCORES : start + B.SCORES + len(quiets)] = 0
    assert np.array_equal(ctx.work, before)  # it writes the scores and nothing else


def _reference_gravity(value: int, bonus: int) -> int:
    return value + bonus - value * abs(bonus) // HISTORY_MAX


@pytest.mark.parametrize("fen,seed", CASES)
@pytest.mark.parametrize("depth", [1, 4, 12])
def test_a_cutoff_updates_killers_countermove_and_history_as_the_rules_say(fen, seed, depth):
    ctx, quiets = _context(fen, seed)
    rng = random.Random(seed)
    start = B.MOVES + PLY * MAX_MOVES
    ctx.work[start : start + len(quiets)] = quiets
    cutoff = rng.randrange(1, len(quiets))
    searched = {slot for slot in range(start, start + cutoff) if rng.random() < 0.6}
    for slot in searched:
        mark_searched_quiet(ctx, slot)
    before = ctx.work.copy()
    move = quiets[cutoff]
    update_quiet_histories(ctx, PLY, move, depth, start + cutoff)

    expected = before.copy()
    side = int(ctx.state[SIDE_TO_MOVE])
    bonus = min(16 * depth * depth + 32 * depth, 1200)
    index = history_index(side, move)
    for tried, change in [(move, bonus)] + [(quiets[slot - start], -bonus) for slot in sorted(searched)]:
        for index in [history_index(side, tried)] + _continuation_indices(ctx, PLY, tried):
            expected[index] = _reference_gravity(int(expected[index]), change)
    if before[KILLERS + 2 * PLY] != move:
        expected[KILLERS + 2 * PLY : KILLERS + 2 * PLY + 2] = [move, before[KILLERS + 2 * PLY]]
    expected[countermove_index(int(ctx.stack["move"][PLY - 1 + B.STACK_ROOT]))] = move
    assert np.array_equal(ctx.work, expected)
    assert (
        np.abs(ctx.work[B.HEURISTICS_OFFSETS["history"] : B.HEURISTICS_OFFSETS["countermoves"]]) <= HISTORY_MAX
    ).all()
    assert (np.abs(ctx.work[CONTINUATION : B.HEURISTICS_SIZE]) <= HISTORY_MAX).all()


def test_a_cutoff_at_the_root_sets_no_countermove():
    ctx, quiets = _context(FENS[0], 0)
    start = B.MOVES
    ctx.work[start : start + len(quiets)] = quiets
    before = ctx.work.copy()
    update_quiet_histories(ctx, 0, quiets[0], 3, start)
    changed = set(np.flatnonzero(ctx.work != before))
    assert changed <= {KILLERS, KILLERS + 1, history_index(int(ctx.state[SIDE_TO_MOVE]), quiets[0])}


def test_the_marker_is_below_every_ordering_score():
    assert SEARCHED_QUIET < -3 * HISTORY_MAX and SEARCHED_QUIET == np.iinfo(np.int32).min
