"""The history tables' read and write (jitfish.search.history), against plain-Python versions of the rules."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.layout import SIDE_TO_MOVE
from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.search import buffers as B
from jitfish.search.context import new_context
from jitfish.search.evalstack import network_arrays
from jitfish.search.history import (
    CORRECTION_GRAIN,
    HISTORY_MAX,
    NON_PAWN_CORRECTION,
    PAWN_CORRECTION,
    KILLERS,
    SCORE_COUNTERMOVE,
    SCORE_KILLER_1,
    SCORE_KILLER_2,
    SEARCHED_QUIET,
    corrected_eval,
    countermove_index,
    history_index,
    mark_searched_quiet,
    non_pawn_correction_index,
    order_quiets,
    pawn_correction_index,
    update_correction,
    update_quiet_histories,
)
from jitfish.search.params import (
    CORRECTION_LIMIT,
    CORRECTION_NON_PAWN_PCT,
    CORRECTION_PAWN_PCT,
    default_params,
)
from jitfish.types import TB_WIN_BOUND
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
    return ctx, quiets


def _reference_order(work: np.ndarray, side: int, ply: int, previous: int, move: int) -> int:
    if move == work[KILLERS + 2 * ply]:
        return SCORE_KILLER_1
    if move == work[KILLERS + 2 * ply + 1]:
        return SCORE_KILLER_2
    if move == work[countermove_index(previous)]:
        return SCORE_COUNTERMOVE
    return int(work[history_index(side, move)])


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
    expected = [_reference_order(before, side, PLY, previous, move) for move in quiets]
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
    expected[index] = _reference_gravity(int(before[index]), bonus)
    for slot in searched:
        index = history_index(side, quiets[slot - start])
        expected[index] = _reference_gravity(int(before[index]), -bonus)
    if before[KILLERS + 2 * PLY] != move:
        expected[KILLERS + 2 * PLY : KILLERS + 2 * PLY + 2] = [move, before[KILLERS + 2 * PLY]]
    expected[countermove_index(int(ctx.stack["move"][PLY - 1 + B.STACK_ROOT]))] = move
    assert np.array_equal(ctx.work, expected)
    assert (
        np.abs(ctx.work[B.HEURISTICS_OFFSETS["history"] : B.HEURISTICS_OFFSETS["countermoves"]]) <= HISTORY_MAX
    ).all()


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


# The correction history: read clamped, folded as a running mean, never a tablebase or mate score.
_MIX = [0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD]
_MASK = (1 << 64) - 1


def _reference_correction_slots(position, side) -> list[int]:
    """The three slots a position's correction reads (pawns; white's, then black's other pieces), in Python."""
    bbs = [int(b) for b in position.bbs[:12]]
    shift = 64 - B.CORRECTION_BITS
    pawns = ((bbs[0] * _MIX[0] + bbs[6] * _MIX[1]) & _MASK) >> shift
    slots = [PAWN_CORRECTION + side * B.CORRECTION_SLOTS + pawns]
    for colour in range(2):
        mixed = sum(bbs[colour * 6 + piece] * _MIX[piece - 1] for piece in range(1, 6)) & _MASK
        slots.append(NON_PAWN_CORRECTION + (side * 2 + colour) * B.CORRECTION_SLOTS + (mixed >> shift))
    return slots


@pytest.mark.parametrize("fen", FENS)
def test_correction_slots_are_the_reference_hashes(fen):
    ctx, _ = _context(fen, 0)
    side = int(ctx.state[SIDE_TO_MOVE])
    expected = _reference_correction_slots(jitfish.Board(fen).position, side)
    got = [pawn_correction_index(ctx.bbs, side)] + [non_pawn_correction_index(ctx.bbs, side, c) for c in range(2)]
    assert got == expected
    assert len(set(expected)) == 3


def test_a_correction_is_the_weighted_mean_of_its_tables():
    ctx, _ = _context(FENS[1], 0)
    side = int(ctx.state[SIDE_TO_MOVE])
    pawn, white, black = _reference_correction_slots(jitfish.Board(FENS[1]).position, side)
    ctx.work[pawn], ctx.work[white], ctx.work[black] = (
        40 * CORRECTION_GRAIN,
        -20 * CORRECTION_GRAIN,
        8 * CORRECTION_GRAIN,
    )
    params = default_params()
    expected = (40 * params[CORRECTION_PAWN_PCT] + (-20 + 8) * params[CORRECTION_NON_PAWN_PCT]) // 100
    assert corrected_eval(ctx, 100) == 100 + expected


@pytest.mark.parametrize("raw_eval", [0, 900, -900, TB_WIN_BOUND - 2, -(TB_WIN_BOUND - 2)])
@pytest.mark.parametrize("extreme", [np.iinfo(np.int32).max, np.iinfo(np.int32).min])
def test_a_correction_never_turns_an_evaluation_into_a_tablebase_or_mate_score(raw_eval, extreme):
    """The first correction history (9b2a066) read its table unclamped: filled with arbitrary values, it
    moved evaluations by thousands of centipawns and the mate suite missed a mate in 4.  Every entry is
    read within +-CORRECTION_LIMIT, and the sum stays below the tablebase scores."""
    ctx, _ = _context(FENS[0], 0)
    ctx.work[PAWN_CORRECTION : PAWN_CORRECTION + 2 * B.CORRECTION_SLOTS] = extreme
    ctx.work[NON_PAWN_CORRECTION : NON_PAWN_CORRECTION + 4 * B.CORRECTION_SLOTS] = extreme
    params = default_params()
    most = params[CORRECTION_LIMIT] * (params[CORRECTION_PAWN_PCT] + 2 * params[CORRECTION_NON_PAWN_PCT]) // 100
    corrected = corrected_eval(ctx, raw_eval)
    assert abs(corrected - raw_eval) <= most
    assert abs(corrected) < TB_WIN_BOUND


def test_correction_entries_are_running_means_within_the_limit():
    ctx, _ = _context(FENS[2], 0)
    side = int(ctx.state[SIDE_TO_MOVE])
    slots = _reference_correction_slots(jitfish.Board(FENS[2]).position, side)
    params = default_params()
    for _ in range(200):
        update_correction(ctx, 30, 20)
    assert all(abs(int(ctx.work[slot]) - 30 * CORRECTION_GRAIN) <= CORRECTION_GRAIN for slot in slots)
    for _ in range(200):
        update_correction(ctx, -10_000, 20)  # a far error counts as the limit
    limit = params[CORRECTION_LIMIT] * CORRECTION_GRAIN
    assert all(-limit <= int(ctx.work[slot]) <= -limit + CORRECTION_GRAIN for slot in slots)
    before = [int(ctx.work[slot]) for slot in slots]
    update_correction(ctx, 0, 0)  # depth 0 weighs 1/256: a small step toward 0
    after = [int(ctx.work[slot]) for slot in slots]
    assert all(b < a <= b - b // 256 + 1 for a, b in zip(after, before))
