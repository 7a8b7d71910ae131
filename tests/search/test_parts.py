"""The search's parts against obvious references: SEE, TT packing and mate scores, UCI mate numbers."""

from __future__ import annotations

import numpy as np
import pytest

import jitfish
from jitfish.board.tables import lookup_tables
from jitfish.search.see import see_ge
from jitfish.search.tt import (
    BUCKET_WORDS,
    FIELD_LAYOUT,
    TTEntry,
    hashfull,
    new_table,
    probe,
    tt_bound,
    tt_depth,
    tt_eval,
    tt_move,
    tt_probe,
    tt_score,
    tt_store,
)
from jitfish.types import BOUND_EXACT, BOUND_LOWER, MATE, mate_in, mate_moves, mated_in


def _see(fen, uci, threshold):
    board = jitfish.Board(fen)
    move = board.parse_uci(uci)
    p = board.position
    return bool(see_ge(p.bbs, p.state, lookup_tables(), move, threshold))


@pytest.mark.parametrize(
    "fen,uci,value",
    [
        ("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 100),  # free pawn
        ("4k3/8/2p5/3p4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0),  # pawn for pawn
        ("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 100 - 900),  # queen for pawn
        ("4k3/8/2p5/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 100 - 500 + 100),  # x-ray rook behind
        ("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100),  # the CPW example
    ],
)
def test_see_thresholds(fen, uci, value):
    assert _see(fen, uci, value)
    assert not _see(fen, uci, value + 1)


def test_tt_store_and_probe_restore_mate_distance():
    table = new_table(1)
    key = np.uint64(0x1234_5678_9ABC_DEF0)
    # A mate found 3 plies below a node at ply 5: stored relative to the node.
    tt_store(table, key, 1234, mate_in(8), 17, 6, BOUND_EXACT, 5, 1)
    found, data = tt_probe(table, key)
    assert found
    assert int(data) & 0x3FFFF == 1234
    from jitfish.search.tt import tt_depth, tt_eval, tt_score

    assert tt_depth(np.uint64(data)) == 6 and tt_eval(np.uint64(data)) == 17
    # Probed from ply 2, the same mate is 3 plies away: mate_in(5).
    assert tt_score(np.uint64(data), 2) == mate_in(5)
    tt_store(table, key, 0, mated_in(9), -5, 7, BOUND_LOWER, 3, 1)
    found, data = tt_probe(table, key)
    assert int(data) & 0x3FFFF == 1234  # an entry without a move keeps the old one
    assert tt_score(np.uint64(data), 0) == mated_in(6)
    assert not tt_probe(table, key ^ np.uint64(1))[0]
    assert hashfull(table, 1) == 0 or hashfull(table, 1) <= 1


def test_decoded_entry_agrees_with_the_kernel_accessors():
    table = new_table(1)
    key = np.uint64(0xDEAD_BEEF_0BAD_F00D)
    tt_store(table, key, 0x2ABCD, -1234, -700, 9, BOUND_LOWER, 0, 37)
    entry = probe(table, key)
    assert entry == TTEntry(move=0x2ABCD, bound=BOUND_LOWER, depth=9, age=37, score=-1234, eval=-700)
    data = np.uint64(tt_probe(table, key)[1])
    assert (tt_move(data), tt_bound(data), tt_depth(data), tt_score(data, 0), tt_eval(data)) == (
        entry.move,
        entry.bound,
        entry.depth,
        entry.score,
        entry.eval,
    )
    assert probe(table, key ^ np.uint64(1)) is None


def _key_in_bucket(table: np.ndarray, bucket: int) -> np.uint64:
    """A key whose low 32 bits scale to ``bucket`` (see ``tt_bucket``)."""
    buckets = len(table) // BUCKET_WORDS
    low = -(-(bucket << 32) // buckets)  # the smallest low half that lands in the bucket
    return np.uint64((0x5151 << 40) | low)


def test_hashfull_counts_the_sampled_entries_of_the_current_search_only():
    table = new_table(1)  # the first 1000 entries are the first 250 buckets
    for bucket in range(150):
        age = 5 if bucket < 100 else 4
        tt_store(table, _key_in_bucket(table, bucket), 1, 0, 0, 3, BOUND_EXACT, 0, age)
    tt_store(table, _key_in_bucket(table, 400), 1, 0, 0, 3, BOUND_EXACT, 0, 5)  # past the sample
    assert hashfull(table, 5) == 100
    assert hashfull(table, 4) == 50
    assert hashfull(table, 6) == 0


@pytest.mark.parametrize("words", [8, 2000, 1 << 17])
def test_hashfull_agrees_with_a_plain_count_of_the_sample(words):
    rng = np.random.default_rng(words)
    table = rng.integers(0, 1 << 63, size=words, dtype=np.uint64)
    table[1::2][rng.random(words // 2) < 0.3] = 0  # unused entries
    shift, mask, _ = (int(x) for x in FIELD_LAYOUT["age"])
    table[1::2] &= ~np.uint64(mask << shift)
    table[1::2] |= rng.integers(0, 3, size=words // 2, dtype=np.uint64) << np.uint64(shift)  # ages 0 to 2
    for age in (0, 1, 2, 3, mask + 2):
        sample = [int(d) for d in table[1:2000:2]]
        used = sum(1 for d in sample if d != 0 and (d >> shift) & mask == age & mask)
        assert hashfull(table, age) == used * 1000 // len(sample)


def test_mate_moves_follows_uci():
    assert mate_moves(mate_in(1)) == 1
    assert mate_moves(mate_in(3)) == 2
    assert mate_moves(mated_in(2)) == -1
    assert mate_moves(mated_in(4)) == -2
    assert mate_moves(150) is None
    assert mate_in(0) == MATE


def test_transposition_table_buckets_start_on_cache_lines():
    for megabytes in (1, 3, 16):
        table = new_table(megabytes)
        assert table.ctypes.data % 64 == 0
        assert table.nbytes == (megabytes << 20) // 64 * 64
        assert not table.any()


def test_late_move_reduction_table_follows_its_formula():
    from jitfish.search.buffers import LMR_SIDE
    from jitfish.search.negamax import late_move_reductions

    table = late_move_reductions()
    assert table.shape == (LMR_SIDE * LMR_SIDE,)
    # 0.75 + ln(d) ln(m) / 2.25, truncated: (3, 4) -> 1.43, (8, 20) -> 3.52, (20, 40) -> 5.66.
    assert table[3 * LMR_SIDE + 4] == 1
    assert table[8 * LMR_SIDE + 20] == 3
    assert table[20 * LMR_SIDE + 40] == 5
    assert table[1 * LMR_SIDE + 30] == 0  # ln 1 = 0: base only, truncated
    assert (np.diff(table.reshape(LMR_SIDE, LMR_SIDE)[1:, 1:], axis=1) >= 0).all()  # later moves, more


def test_searcher_work_array_holds_the_reduction_table():
    from jitfish.search import Searcher
    from jitfish.search.buffers import LMR, LMR_SIDE
    from jitfish.search.negamax import late_move_reductions

    searcher = Searcher(hash_mb=1)
    searcher.search(jitfish.Board(), jitfish.SearchLimits(depth=4))
    searcher.clear()
    work = searcher.workers[0].work
    assert (work[LMR : LMR + LMR_SIDE * LMR_SIDE] == late_move_reductions()).all()


@pytest.mark.parametrize(
    "fen,expected",
    [
        ("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", True),  # Ra8+
        ("4k3/8/8/8/4N3/8/8/4R1K1 w - - 0 1", True),  # any knight move uncovers the rook
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", False),  # kings only
        ("4k3/8/8/8/8/8/4p3/4R1K1 w - - 0 1", False),  # only Rxe2+ checks: a capture
        ("4k3/P7/8/8/8/8/8/6K1 w - - 0 1", False),  # only a8=Q+ and a8=R+ check: promotions
        ("r3k3/8/8/8/8/8/8/4K3 b - - 0 1", True),  # ...Ra1+ for black
    ],
)
def test_has_quiet_check_finds_quiet_checks_only(fen, expected):
    """Razoring's guard (negamax step 7b): a quiet move that gives check, directly or by discovery."""
    from jitfish.search.negamax import has_quiet_check

    p = jitfish.Board(fen).position
    assert has_quiet_check(p.bbs, p.state, lookup_tables(), np.zeros(256, dtype=np.int32), 0) is expected
