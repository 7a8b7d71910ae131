"""The correction history (jitfish.search.history): its slots, its read and its write, against plain-Python
statements of the rules; what a node's result teaches it; and a search that reads it and still keeps the
raw evaluation in the TT."""

from __future__ import annotations

import chess
import numpy as np
import pytest

import jitfish
from jitfish.board import layout as L
from jitfish.board.moves import move_to_uci
from jitfish.board.tables import lookup_tables
from jitfish.eval.params import default_weights
from jitfish.search import Searcher, SearchLimits
from jitfish.search import buffers as B
from jitfish.search.context import new_context
from jitfish.search.evalstack import evaluate_at, network_arrays
from jitfish.search.history import (
    CONTINUATION_CORRECTION,
    CORRECTION_BONUS_MAX,
    CORRECTION_MAX,
    NON_PAWN_CORRECTION,
    PAWN_CORRECTION,
    _move_correction,
    corrected_eval,
    correction_bonus,
    correction_slots,
    update_correction,
)
from jitfish.search.negamax import store_result
from jitfish.search.params import Param, default_params
from jitfish.search.quiescence import quiescence
from jitfish.search.tt import new_table, tt_read
from jitfish.types import INF, TB_WIN_BOUND

PLY = 4
FENS = [
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 b - - 0 10",
    "8/2k5/3p4/p2P1p2/P2P1P2/8/4K3/8 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
]
CORRECTIONS = slice(PAWN_CORRECTION, CONTINUATION_CORRECTION + (12 * 64) ** 2)
# The rule, restated: a structure's slot is the top CORRECTION_BITS bits of the wrapping 64-bit sum of its
# bitboards, each times its own odd multiplier (pawns: white's, black's; other pieces: knight ... king).
MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD)
SLOTS = 1 << B.CORRECTION_BITS


def _mix(bitboards: list[int]) -> int:
    total = sum(bb * m for bb, m in zip(bitboards, MULTIPLIERS)) % (1 << 64)
    return total >> (64 - B.CORRECTION_BITS)


def reference_slots(board: chess.Board, before: int | None, last: int | None) -> tuple[int, int, int, int]:
    """The pawn, white non-pawn, black non-pawn and continuation slots of ``board`` after the moves given by
    their ``piece_to`` (None: the null move), the side to move's tables."""
    side = int(board.turn == chess.BLACK)
    pawns = _mix([int(board.pieces(chess.PAWN, colour)) for colour in (chess.WHITE, chess.BLACK)])
    pieces = [
        _mix([int(board.pieces(kind, colour)) for kind in range(chess.KNIGHT, chess.KING + 1)])
        for colour in (chess.WHITE, chess.BLACK)
    ]
    continuation = -1 if before is None or last is None else CONTINUATION_CORRECTION + before * 768 + last
    return (
        PAWN_CORRECTION + side * SLOTS + pawns,
        NON_PAWN_CORRECTION + (2 * side + 0) * SLOTS + pieces[0],
        NON_PAWN_CORRECTION + (2 * side + 1) * SLOTS + pieces[1],
        continuation,
    )


def _context(fen: str, before: int | None = 100, last: int | None = 200, params: np.ndarray | None = None):
    """A search context of ``fen`` at PLY, reached by moves of ``piece_to`` ``before`` and ``last`` (None:
    the null move)."""
    ctx = new_context(
        jitfish.Board(fen).position,
        lookup_tables(),
        default_weights(),
        network_arrays(None),
        default_params() if params is None else params,
        new_table(1),
        np.zeros(B.WORK_SIZE, dtype=np.int32),
        np.zeros(B.CONTROL_SIZE, dtype=np.int64),
        B.new_stack(),
    )
    for back, piece_to in ((2, before), (1, last)):
        record = ctx.stack[PLY - back + B.STACK_ROOT]
        record["move"] = 0 if piece_to is None else 999
        record["piece_to"] = 0 if piece_to is None else piece_to
    return ctx


def _reference_gravity(value: int, bonus: int) -> int:
    return value + bonus - value * abs(bonus) // CORRECTION_MAX


@pytest.mark.parametrize("fen", FENS)
@pytest.mark.parametrize("before, last", [(100, 200), (767, 0), (None, 5), (5, None)])
def test_the_slots_follow_the_plain_python_rule(fen, before, last):
    ctx = _context(fen, before, last)
    assert tuple(int(s) for s in correction_slots(ctx, PLY)) == reference_slots(chess.Board(fen), before, last)


def test_each_structure_has_its_own_slot():
    # Same pawns, other pieces: the pawn slot stays, the slots of the colour whose pieces changed move.
    a = reference_slots(chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1"), None, None)
    b = reference_slots(chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/RN2K2R w - - 0 1"), None, None)
    c = reference_slots(chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b - - 0 1"), None, None)
    assert a[0] == b[0] and a[2] == b[2] and a[1] != b[1]
    assert len({a[0], c[0]}) == 2 and len({a[1], a[2], c[1], c[2]}) == 4  # each side to move has its tables
    # Every slot lies inside its own table.
    for fen in FENS:
        pawn, white, black, continuation = reference_slots(chess.Board(fen), 767, 767)
        assert PAWN_CORRECTION <= pawn < NON_PAWN_CORRECTION <= white < black < CONTINUATION_CORRECTION
        assert continuation < B.HEURISTICS_SIZE


@pytest.mark.parametrize("seed", range(6))
def test_the_corrected_eval_weighs_each_entry(seed):
    rng = np.random.default_rng(seed)
    params = default_params().copy()
    for name in ("CORRECTION_PAWN_CP", "CORRECTION_NON_PAWN_CP", "CORRECTION_CONTINUATION_CP"):
        param = Param[name]
        params[param] = rng.integers(param.low, param.high + 1)
    fen = FENS[seed % len(FENS)]
    null_move = seed % 3 == 0
    ctx = _context(fen, None if null_move else 300, 400, params)
    ctx.work[CORRECTIONS] = rng.integers(-CORRECTION_MAX, CORRECTION_MAX + 1, CORRECTIONS.stop - CORRECTIONS.start)
    pawn, white, black, continuation = reference_slots(chess.Board(fen), None if null_move else 300, 400)
    work = ctx.work
    total = (
        int(work[pawn]) * int(params[Param.CORRECTION_PAWN_CP])
        + (int(work[white]) + int(work[black])) * int(params[Param.CORRECTION_NON_PAWN_CP])
        + (0 if null_move else int(work[continuation]) * int(params[Param.CORRECTION_CONTINUATION_CP]))
    )
    assert total != 0
    for raw in (-250, 0, 37, 1200):
        assert corrected_eval(ctx, PLY, raw) == raw + total // CORRECTION_MAX


def test_whatever_the_tables_hold_a_correction_is_bounded_and_never_a_mate_score():
    params = default_params().copy()
    for name in ("CORRECTION_PAWN_CP", "CORRECTION_NON_PAWN_CP", "CORRECTION_CONTINUATION_CP"):
        params[Param[name]] = Param[name].high
    most = sum(Param[name].high for name in ("CORRECTION_PAWN_CP", "CORRECTION_CONTINUATION_CP"))
    most += 2 * Param.CORRECTION_NON_PAWN_CP.high
    for extreme, sign in ((np.iinfo(np.int32).max, 1), (np.iinfo(np.int32).min, -1)):
        ctx = _context(FENS[2], params=params)
        ctx.work[CORRECTIONS] = extreme
        assert corrected_eval(ctx, PLY, 0) == sign * most  # each entry read as a full one
        assert corrected_eval(ctx, PLY, sign * (TB_WIN_BOUND - 5)) == sign * (TB_WIN_BOUND - 1)


def _quiet_move(fen: str) -> int:
    board = chess.Board(fen)
    return next(
        int(m)
        for m in jitfish.Board(fen).position.legal_moves()
        if not board.is_capture(chess.Move.from_uci(move_to_uci(int(m))))
        and chess.Move.from_uci(move_to_uci(int(m))).promotion is None
    )


def test_an_update_moves_every_entry_of_the_position_with_gravity():
    rng = np.random.default_rng(11)
    for fen in FENS:
        move = _quiet_move(fen)
        for null_move in (False, True):
            ctx = _context(fen, None if null_move else 17, 640)
            slots = [s for s in reference_slots(chess.Board(fen), None if null_move else 17, 640) if s >= 0]
            expected = np.zeros(B.WORK_SIZE, dtype=np.int64)
            for _ in range(60):
                error = int(rng.choice([-1, 1])) * int(rng.integers(1, 901))
                depth = int(rng.integers(1, 30))
                bonus = max(-CORRECTION_BONUS_MAX, min(CORRECTION_BONUS_MAX, error * depth // 8))
                assert correction_bonus(ctx.params, error, depth) == bonus
                update_correction(ctx, PLY, move, 40 + error, 40, INF, depth)  # an exact score with a best move
                for slot in slots:
                    expected[slot] = _reference_gravity(int(expected[slot]), bonus)
                assert np.array_equal(ctx.work, expected)
            assert np.count_nonzero(ctx.work) == len(slots) == 4 - null_move
            assert (np.abs(ctx.work) <= CORRECTION_MAX).all()


def test_gravity_keeps_an_entry_within_its_bound_whatever_it_held():
    work = np.array([np.iinfo(np.int32).max, np.iinfo(np.int32).min, CORRECTION_MAX, 0], dtype=np.int32)
    _move_correction(work, 0, 10)
    _move_correction(work, 1, -10)
    _move_correction(work, 2, CORRECTION_BONUS_MAX)
    _move_correction(work, 3, -CORRECTION_BONUS_MAX)
    assert list(work) == [CORRECTION_MAX, -CORRECTION_MAX, CORRECTION_MAX, -CORRECTION_BONUS_MAX]
    _move_correction(work, -1, 50)  # no entry (the continuation after a null move): nothing moves
    assert list(work) == [CORRECTION_MAX, -CORRECTION_MAX, CORRECTION_MAX, -CORRECTION_BONUS_MAX]


def _teaches(board: chess.Board, move: int, score: int, static_eval: int, beta: int) -> bool:
    """Whether a node's result says how far off its (corrected) evaluation was, stated as Stockfish's rule:
    it has one (not in check), no capture or promotion was best, the score is no mate or tablebase score,
    and it is either below the evaluation without failing high, or above it with a best move."""
    if move:
        m = chess.Move.from_uci(move_to_uci(move))
        if board.is_capture(m) or m.promotion:
            return False
    if static_eval == B.NO_EVAL or abs(score) >= TB_WIN_BOUND:
        return False
    return (score < static_eval and score < beta) or (score > static_eval and move != 0)


@pytest.mark.parametrize("fen", FENS[1:])
def test_a_result_teaches_the_error_only_where_it_measures_it(fen):
    board = chess.Board(fen)
    position = jitfish.Board(fen).position
    moves = [int(m) for m in position.legal_moves()]
    quiet = next(m for m in moves if not board.is_capture(chess.Move.from_uci(move_to_uci(m))))
    capture = next((m for m in moves if board.is_capture(chess.Move.from_uci(move_to_uci(m)))), quiet)
    cases = 0
    seen = set()
    for move in (0, quiet, capture):
        for static_eval in (B.NO_EVAL, 40):
            for score in (-200, 40, 90, TB_WIN_BOUND + 3):
                for beta, pv_node in ((-100, False), (60, False), (60, True), (300, True)):
                    raw = 15 if static_eval != B.NO_EVAL else 0  # the stack's raw evaluation: 0 in check
                    ctx = _context(fen)
                    ctx.stack[PLY + B.STACK_ROOT]["raw_eval"] = raw
                    store_result(
                        ctx, PLY, move, score, static_eval, 9, beta - 150 if pv_node else beta - 1, beta, pv_node
                    )
                    taught = np.count_nonzero(ctx.work[CORRECTIONS]) > 0
                    expected = _teaches(board, move, score, static_eval, beta)
                    assert taught == expected, (move, static_eval, score, beta)
                    if taught:
                        error = score - static_eval
                        bonus = max(-CORRECTION_BONUS_MAX, min(CORRECTION_BONUS_MAX, error * 9 // 8))
                        slots = reference_slots(board, 100, 200)
                        assert [int(ctx.work[s]) for s in slots] == [bonus] * 4
                    entry = tt_read(ctx.tt, ctx.bbs[L.KEY], PLY)
                    assert entry.found and entry.eval == raw  # the raw evaluation
                    cases += 1
                    seen.add(expected)
    assert cases == 96 and seen == {True, False}


def test_a_search_learns_corrections_and_keeps_the_raw_evaluation_in_the_tt():
    fen = FENS[2]
    searcher = Searcher(hash_mb=4)
    searcher.search(jitfish.Board(fen), SearchLimits(depth=9))
    worker = searcher.workers[0]
    tables = worker.heuristics[CORRECTIONS]
    assert np.count_nonzero(tables) > 100 and (np.abs(tables) <= CORRECTION_MAX).all()
    worker.prepare(jitfish.Board(fen).position, 1, 1 << 62, [])
    ctx = worker.context(searcher._tt, searcher._weights, searcher._params)
    raw = jitfish.eval.evaluate(jitfish.Board(fen))
    entry = tt_read(ctx.tt, ctx.bbs[L.KEY], 0)
    assert entry.found and entry.eval == raw
    assert corrected_eval(ctx, 0, raw) != raw  # the root's own structures were corrected by its search


def test_quiescence_stands_on_the_corrected_evaluation_and_stores_the_raw_one():
    fen = FENS[3]  # no capture for the side to move: quiescence stands pat
    ctx = _context(fen)
    ctx.control[B.C_NODE_LIMIT] = 1 << 40
    ctx.work[CORRECTIONS] = CORRECTION_MAX
    params = default_params()
    full = params[Param.CORRECTION_PAWN_CP] + 2 * params[Param.CORRECTION_NON_PAWN_CP]
    full += params[Param.CORRECTION_CONTINUATION_CP]
    raw = evaluate_at(ctx, PLY)
    assert quiescence(ctx, -INF + 1, INF - 1, PLY) == raw + full
    entry = tt_read(ctx.tt, ctx.bbs[L.KEY], PLY)
    assert entry.found and entry.eval == raw
