"""The history tables' read and write (jitfish.search.history), against plain-Python versions of the rules."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board.moves import MAX_MOVES, move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.search import Searcher, SearchLimits
from jitfish.search import buffers as B
from jitfish.search import params as P
from jitfish.search.context import new_context
from jitfish.search.evalstack import network_arrays
from jitfish.search.history import (
    CAPTURES,
    CONTINUATION,
    HISTORY,
    HISTORY_MAX,
    KILLERS,
    SCORE_COUNTERMOVE,
    SCORE_KILLER_1,
    SCORE_KILLER_2,
    SEARCHED_NOISY,
    SEARCHED_QUIET,
    _apply_bonus,
    capture_history,
    countermove_index,
    history_bonus,
    history_index,
    mark_searched,
    order_quiets,
    piece_to,
    update_histories,
)
from jitfish.search.movepick import SCORE_BAD_CAPTURE, SCORE_UNDERPROMOTION
from jitfish.search.params import default_params
from jitfish.search.tt import new_table
from tests.reference_history import butterfly_index, capture_index, continuation_indices
from tests.reference_history import piece_to as piece_to_reference

PLY = 5
FENS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 0 10",
    "8/2k5/3p4/p2P1p2/P2P1P2/8/4K3/8 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
]
CASES = [(fen, seed) for fen in FENS for seed in range(4)]
CAPTURE_CASES = [(fen, seed) for fen, seed in CASES if any(chess.Board(fen).generate_legal_captures())]


def _is_quiet(board: chess.Board, move: int) -> bool:
    m = chess.Move.from_uci(move_to_uci(move))
    return not board.is_capture(m) and m.promotion is None


def _context(fen: str, seed: int):
    """A search context of ``fen`` whose history tables hold random values, the moves one, two and four
    plies back random ones (or, by the seed's bits, the null move), and the position's quiet moves and
    captures."""
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
    moves = [int(m) for m in position.legal_moves()]
    quiets = [m for m in moves if _is_quiet(board, m)]
    captures = [m for m in moves if board.is_capture(chess.Move.from_uci(move_to_uci(m)))]
    work[: B.HEURISTICS_SIZE] = rng.integers(-HISTORY_MAX, HISTORY_MAX, B.HEURISTICS_SIZE)
    random.Random(seed).shuffle(quiets)
    work[KILLERS + 2 * PLY : KILLERS + 2 * PLY + 2] = quiets[:2]
    stack["move"][PLY - 1 + B.STACK_ROOT] = quiets[-1] ^ 0x41  # any move code: its countermove is set below
    work[countermove_index(quiets[-1] ^ 0x41)] = quiets[2]
    for back in (1, 2, 4):
        record = PLY - back + B.STACK_ROOT
        stack["piece_to"][record] = rng.integers(12 * 64)
        if back > 1:  # the seed's bits say which were the null move: no continuation entry after it
            stack["move"][record] = 999 if seed & (back // 2) else 0
    return ctx, quiets, captures


def _continuation_indices(ctx, board: chess.Board, ply: int, move: int) -> list[int]:
    """The continuation entries of ``move`` after the moves one and two plies back that were made (not four
    back: :func:`_context` sets that record too, and no entry may follow from it)."""
    records = [ctx.stack[ply - back + B.STACK_ROOT] for back in (1, 2)]
    return continuation_indices([int(r["piece_to"]) for r in records if r["move"] != 0], board, move)


def _reference_order(ctx, board, work: np.ndarray, ply: int, previous: int, move: int) -> int:
    if move == work[KILLERS + 2 * ply]:
        return SCORE_KILLER_1
    if move == work[KILLERS + 2 * ply + 1]:
        return SCORE_KILLER_2
    if move == work[countermove_index(previous)]:
        return SCORE_COUNTERMOVE
    indices = [butterfly_index(board, move)] + _continuation_indices(ctx, board, ply, move)
    return sum(int(work[i]) for i in indices)


def test_the_indices_follow_the_plain_python_rules():
    for fen in FENS:
        board = chess.Board(fen)
        position = jitfish.Board(fen).position
        for move in (int(m) for m in position.legal_moves()):
            assert history_index(int(board.turn == chess.BLACK), move) == butterfly_index(board, move)
            assert piece_to(position.state, move) == piece_to_reference(board, move)
            m = chess.Move.from_uci(move_to_uci(move))
            if board.is_capture(m):
                index = capture_index(board, move)
                assert CAPTURES <= index < B.HEURISTICS_SIZE
                work = np.zeros(B.WORK_SIZE, dtype=np.int32)
                work[index] = 777  # the kernel must read this entry and no other
                victim = chess.PAWN if board.is_en_passant(m) else board.piece_type_at(m.to_square)
                assert capture_history(position.state, work, move, victim - 1) == 777


def test_a_promotion_that_takes_nothing_has_no_capture_history():
    position = jitfish.Board("8/4P3/8/8/8/8/k7/4K3 w - - 0 1").position
    work = np.full(B.WORK_SIZE, 5, dtype=np.int32)
    queen = next(int(m) for m in position.legal_moves() if move_to_uci(int(m)) == "e7e8q")
    assert capture_history(position.state, work, queen, -1) == 0


@pytest.mark.parametrize("fen,seed", CASES)
@pytest.mark.parametrize("parents_move", [True, False])
def test_order_quiets_scores_killers_then_the_countermove_then_history(fen, seed, parents_move):
    ctx, quiets, _ = _context(fen, seed)
    board = chess.Board(fen)
    start = B.MOVES + PLY * MAX_MOVES
    ctx.work[start : start + len(quiets)] = quiets
    previous = int(ctx.stack["move"][PLY - 1 + B.STACK_ROOT]) if parents_move else 0
    before = ctx.work.copy()
    order_quiets(ctx, PLY, start, start + len(quiets), previous)
    expected = [_reference_order(ctx, board, before, PLY, previous, move) for move in quiets]
    assert list(ctx.work[start + B.SCORES : start + B.SCORES + len(quiets)]) == expected
    if parents_move:
        assert expected.count(SCORE_KILLER_1) == expected.count(SCORE_KILLER_2) == 1
        assert expected.count(SCORE_COUNTERMOVE) == 1
    ctx.work[start + B.SCORES : start + B.SCORES + len(quiets)] = 0
    assert np.array_equal(ctx.work, before)  # it writes the scores and nothing else


def _reference_gravity(value: int, bonus: int) -> int:
    return value + bonus - value * abs(bonus) // HISTORY_MAX


def _reference_bonus(depth: int) -> tuple[int, int]:
    values = P.params_to_dict(default_params())
    bonus = min(
        values["HISTORY_BONUS_DEPTH2"] * depth**2 + values["HISTORY_BONUS_DEPTH"] * depth, values["HISTORY_BONUS_MAX"]
    )
    return bonus, bonus * values["HISTORY_MALUS_PCT"] // 100


@pytest.mark.parametrize("depth", [1, 2, 5, 30])
def test_the_bonus_grows_with_depth_up_to_its_cap(depth):
    assert history_bonus(default_params(), depth) == _reference_bonus(depth)[0] > 0


@pytest.mark.parametrize(
    "fen,seed,quiet_cutoff", [case + (True,) for case in CASES] + [case + (False,) for case in CAPTURE_CASES]
)
@pytest.mark.parametrize("depth", [1, 4, 12])
def test_a_cutoff_updates_the_tables_as_the_rules_say(fen, seed, depth, quiet_cutoff):
    ctx, quiets, captures = _context(fen, seed)
    board = chess.Board(fen)
    rng = random.Random(seed)
    moves = captures + quiets if quiet_cutoff else quiets + captures  # the move that cuts off comes last
    start = B.MOVES + PLY * MAX_MOVES
    ctx.work[start : start + len(moves)] = moves
    cutoff = len(captures) + rng.randrange(1, len(quiets)) if quiet_cutoff else len(moves) - 1
    searched = {slot for slot in range(start, start + cutoff) if rng.random() < 0.6}
    for slot in searched:
        mark_searched(ctx, slot, _is_quiet(board, moves[slot - start]))
    before = ctx.work.copy()
    move = moves[cutoff]
    update_histories(ctx, PLY, move, depth, start + cutoff, quiet_cutoff)

    expected = before.copy()
    bonus, malus = _reference_bonus(depth)
    changes = [(move, bonus)] + [(moves[slot - start], -malus) for slot in sorted(searched)]
    for tried, change in changes:
        if _is_quiet(board, tried):
            if quiet_cutoff:
                for index in [butterfly_index(board, tried)] + _continuation_indices(ctx, board, PLY, tried):
                    expected[index] = _reference_gravity(int(expected[index]), change)
        else:
            index = capture_index(board, tried)
            expected[index] = _reference_gravity(int(expected[index]), change)
    if quiet_cutoff:
        if before[KILLERS + 2 * PLY] != move:
            expected[KILLERS + 2 * PLY : KILLERS + 2 * PLY + 2] = [move, before[KILLERS + 2 * PLY]]
        expected[countermove_index(int(ctx.stack["move"][PLY - 1 + B.STACK_ROOT]))] = move
    assert np.array_equal(ctx.work, expected)
    assert (np.abs(ctx.work[HISTORY : B.HEURISTICS_OFFSETS["countermoves"]]) <= HISTORY_MAX).all()
    assert (np.abs(ctx.work[CONTINUATION : B.HEURISTICS_SIZE]) <= HISTORY_MAX).all()


def test_a_cutoff_rewards_its_move_and_punishes_those_tried_before_it():
    ctx, quiets, captures = _context(FENS[3], 0)
    board = chess.Board(FENS[3])
    ctx.work[: B.HEURISTICS_SIZE] = 0
    ctx.stack["move"][PLY - 2 + B.STACK_ROOT] = 999
    start = B.MOVES + PLY * MAX_MOVES
    moves = [captures[0], quiets[0], quiets[1]]
    ctx.work[start : start + 3] = moves
    mark_searched(ctx, start, False)
    mark_searched(ctx, start + 1, True)
    update_histories(ctx, PLY, quiets[1], 3, start + 2, True)
    bonus, malus = _reference_bonus(3)
    assert bonus > 0 and malus > 0
    for index in [butterfly_index(board, quiets[1])] + _continuation_indices(ctx, board, PLY, quiets[1]):
        assert ctx.work[index] == bonus
    for index in [butterfly_index(board, quiets[0])] + _continuation_indices(ctx, board, PLY, quiets[0]):
        assert ctx.work[index] == -malus
    assert ctx.work[capture_index(board, captures[0])] == -malus
    ctx.work[: B.HEURISTICS_SIZE] = 0
    ctx.work[start : start + 2] = captures[:2]
    mark_searched(ctx, start, False)
    update_histories(ctx, PLY, captures[1], 3, start + 1, False)
    assert ctx.work[capture_index(board, captures[1])] == bonus
    assert ctx.work[capture_index(board, captures[0])] == -malus
    assert np.count_nonzero(ctx.work[: B.HEURISTICS_SIZE]) == 2  # no killer, countermove or quiet entry


def test_gravity_keeps_every_entry_within_its_bound():
    rng = np.random.default_rng(3)
    work = np.zeros(4, dtype=np.int32)
    for _ in range(20_000):
        slot = int(rng.integers(4))
        bonus = int(rng.choice([HISTORY_MAX, -HISTORY_MAX, rng.integers(-HISTORY_MAX, HISTORY_MAX + 1)]))
        before = int(work[slot])
        _apply_bonus(work, slot, bonus)
        assert -HISTORY_MAX <= work[slot] <= HISTORY_MAX
        assert work[slot] == _reference_gravity(before, bonus)
        if bonus > 0:
            assert work[slot] >= before
        elif bonus < 0:
            assert work[slot] <= before
    work[:] = HISTORY_MAX
    _apply_bonus(work, 0, HISTORY_MAX)
    assert work[0] == HISTORY_MAX


def test_a_cutoff_at_the_root_sets_no_countermove():
    ctx, quiets, _ = _context(FENS[0], 0)
    board = chess.Board(FENS[0])
    start = B.MOVES
    ctx.work[start : start + len(quiets)] = quiets
    before = ctx.work.copy()
    update_histories(ctx, 0, quiets[0], 3, start, True)
    changed = set(np.flatnonzero(ctx.work != before))
    assert changed <= {KILLERS, KILLERS + 1, butterfly_index(board, quiets[0])}  # padding: no earlier moves


def test_the_markers_are_below_every_ordering_score():
    assert SEARCHED_QUIET == np.iinfo(np.int32).min and SEARCHED_NOISY == SEARCHED_QUIET + 1
    lowest = min(-3 * HISTORY_MAX, SCORE_BAD_CAPTURE, SCORE_UNDERPROMOTION)  # butterfly + 2 continuation entries
    assert SEARCHED_NOISY < lowest


def test_ucinewgame_clears_the_new_tables():
    searcher = Searcher(hash_mb=1)
    searcher.search(jitfish.Board(FENS[3]), SearchLimits(nodes=20_000))
    heuristics = searcher.workers[0].heuristics
    assert np.count_nonzero(heuristics[CONTINUATION:CAPTURES]) > 0
    assert np.count_nonzero(heuristics[CAPTURES:]) > 0
    searcher.clear()
    assert not heuristics.any()
