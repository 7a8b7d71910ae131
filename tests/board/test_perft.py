"""Perft: leaf counts of the legal move tree against published suites, the move generator's proof.

Each suite position is checked at every depth whose count fits the suite's
leaf budget, chosen so that the default run of this file stays well under a
minute on the 2-core CI machine; the slow pass (``-m slow``) goes deep.
Every suite ships in ``tests/data/perft`` (see ``tests/perft_data.py``).
"""

from __future__ import annotations

import chess
import numpy as np
import pytest

import jitfish
from tests.perft_data import SUITES, PerftCase, affordable
from tests.reference import reference_divide, reference_perft

# Leaves per checked depth in the default run: about 1.3 billion leaves in
# all, ~20 s on the 2-core machine (the bulk-counting kernel does 50-90
# million leaves a second; on the big suites the per-call overhead of
# parsing a FEN dominates).
DEFAULT_BUDGETS = {
    "perft-classic": 10_000_000,
    "perft-random": 10_000_000,
    "perft-chess960": 10_000_000,
    "sunfish-perft": 10_000_000,
    "pychess-tricky": 10_000_000,
    "pychess-chess960": 1_000_000,
    "pychess-random": 100_000,
}
# Every Nth pychess-random position is also checked deeper by default (the shipped
# file keeps every 5th of the original suite: this is every 100th of the original).
RANDOM_SAMPLE_STEP = 20
RANDOM_SAMPLE_BUDGET = 10_000_000

# The slow pass (about 6 billion leaves).
SLOW_CLASSIC_DEPTHS = {0: 6, 1: 5, 2: 7}  # start position d6, Kiwipete d5, position 3 d7; the rest: all
FULL_DEPTH = 10**12
SLOW_CHESS960_SAMPLE_STEP = 40
SLOW_CHESS960_SAMPLE_BUDGET = 250_000_000
SLOW_RANDOM_BUDGET = 1_000_000
SLOW_SUNFISH_BUDGET = 100_000_000


def suite_params(name: str, budget: int, step: int = 1) -> list:
    """One pytest param per position (every ``step``-th)."""
    cases = SUITES[name].cases()[::step]
    return [pytest.param(case, affordable(case, budget), id=case.name) for case in cases]


def chunk_params(name: str, budget: int, size: int, step: int = 1) -> list:
    """Positions in chunks of ``size`` per test: the big suites would cost more in pytest's overhead than in perft."""
    cases = SUITES[name].cases()[::step]
    chunks = [cases[i : i + size] for i in range(0, len(cases), size)]
    return [
        pytest.param(
            [(case, affordable(case, budget)) for case in chunk],
            id=f"{chunk[0].name}..{chunk[-1].name.rsplit(':', 1)[-1]}",
        )
        for chunk in chunks
    ]


def assert_counts(case: PerftCase, depths: list[tuple[int, int]]) -> None:
    assert depths, f"{case.name}: no depth within the budget, so nothing would be checked"
    got = {depth: jitfish.perft(case.fen, depth, chess960=case.chess960) for depth, _ in depths}
    assert got == dict(depths), f"{case.name} {case.fen!r} (chess960={case.chess960})"


def assert_chunk_counts(chunk: list[tuple[PerftCase, list[tuple[int, int]]]]) -> None:
    """Check every position of the chunk, then report all the wrong counts at once."""
    wrong = []
    checked = 0
    for case, depths in chunk:
        assert depths, f"{case.name}: no depth within the budget, so nothing would be checked"
        for depth, expected in depths:
            got = jitfish.perft(case.fen, depth, chess960=case.chess960)
            checked += 1
            if got != expected:
                wrong.append(
                    f"{case.name} {case.fen!r} chess960={case.chess960} depth {depth}: expected {expected}, got {got}"
                )
    assert checked >= len(chunk)
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("case, depths", suite_params("perft-classic", DEFAULT_BUDGETS["perft-classic"]))
def test_classic_positions_match_published_counts(case, depths):
    assert_counts(case, depths)


@pytest.mark.parametrize("case, depths", suite_params("perft-random", DEFAULT_BUDGETS["perft-random"]))
def test_random_play_positions_match_stockfish_counts(case, depths):
    assert_counts(case, depths)


@pytest.mark.parametrize("case, depths", suite_params("perft-chess960", DEFAULT_BUDGETS["perft-chess960"]))
def test_chess960_positions_match_stockfish_counts(case, depths):
    assert_counts(case, depths)


@pytest.mark.parametrize("case, depths", suite_params("sunfish-perft", DEFAULT_BUDGETS["sunfish-perft"]))
def test_sunfish_suite_matches_published_counts(case, depths):
    assert_counts(case, depths)


@pytest.mark.parametrize("case, depths", suite_params("pychess-tricky", DEFAULT_BUDGETS["pychess-tricky"]))
def test_python_chess_tricky_positions_match_as_chess960(case, depths):
    assert_counts(case, depths)


@pytest.mark.parametrize("chunk", chunk_params("pychess-chess960", DEFAULT_BUDGETS["pychess-chess960"], 60))
def test_all_960_chess960_starting_setups_match_published_counts(chunk):
    assert_chunk_counts(chunk)


@pytest.mark.parametrize("chunk", chunk_params("pychess-random", DEFAULT_BUDGETS["pychess-random"], 250))
def test_python_chess_random_positions_match_published_counts(chunk):
    assert_chunk_counts(chunk)


@pytest.mark.parametrize("chunk", chunk_params("pychess-random", RANDOM_SAMPLE_BUDGET, 50, step=RANDOM_SAMPLE_STEP))
def test_sampled_python_chess_random_positions_match_deeper(chunk):
    assert_chunk_counts(chunk)


def test_classic_file_ships_with_the_repository():
    classic = SUITES["perft-classic"]
    cases = classic.cases()
    assert len(cases) == 7
    assert cases[0].fen == jitfish.STARTING_FEN
    assert cases[0].counts[6] == 119_060_324


# --- The API around the counts -------------------------------------------


def test_depth_zero_counts_the_position_itself():
    assert jitfish.perft(jitfish.STARTING_FEN, 0) == 1
    assert jitfish.perft(jitfish.STARTING_FEN, 0, bulk=False) == 1


def test_checkmated_position_has_no_leaves():
    fools_mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    assert jitfish.perft(fools_mate, 1) == 0
    assert jitfish.perft(fools_mate, 3) == 0


@pytest.mark.parametrize("depth", [-1, 65])
def test_depth_out_of_range_raises_value_error(depth):
    with pytest.raises(ValueError, match="perft depth"):
        jitfish.perft(jitfish.STARTING_FEN, depth)


def test_divide_needs_positive_depth():
    with pytest.raises(ValueError, match="divide needs depth"):
        jitfish.perft_divide(jitfish.STARTING_FEN, 0)


def test_perft_leaves_the_board_unchanged():
    board = jitfish.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    arrays = [a.copy() for a in (board.position.bbs, board.position.state)]
    for bulk in (True, False):
        assert board.perft(3, bulk=bulk) == 97862
        board.perft_divide(2, bulk=bulk)
    assert np.array_equal(board.position.bbs, arrays[0])
    assert np.array_equal(board.position.state, arrays[1])
    assert board.move_stack == []


BULK_POSITIONS = [
    (jitfish.STARTING_FEN, False, 4, 197281),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False, 3, 97862),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False, 5, 674624),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", False, 4, 422333),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", False, 3, 62379),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9", True, 4, 326672),
]


@pytest.mark.parametrize("fen, chess960, depth, expected", BULK_POSITIONS)
def test_bulk_counting_agrees_with_making_every_leaf_move(fen, chess960, depth, expected):
    assert jitfish.perft(fen, depth, chess960=chess960, bulk=True) == expected
    assert jitfish.perft(fen, depth, chess960=chess960, bulk=False) == expected


DIVIDE_POSITIONS = [
    (jitfish.STARTING_FEN, False, 3),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False, 3),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", False, 4),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", False, 3),
    ("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9", True, 3),
    ("1r2kb2/1q2p3/1npp2p1/p1P5/7r/8/3P2P1/4KB2 b b - 3 24", True, 3),
]


@pytest.mark.parametrize("fen, chess960, depth", DIVIDE_POSITIONS)
def test_divide_sums_to_perft_and_matches_python_chess_per_move(fen, chess960, depth):
    divide = jitfish.perft_divide(fen, depth, chess960=chess960)
    assert sum(divide.values()) == jitfish.perft(fen, depth, chess960=chess960)
    assert len(divide) == len(set(divide)) == jitfish.perft(fen, 1, chess960=chess960)
    assert divide == reference_divide(chess.Board(fen, chess960=chess960), depth)
    assert jitfish.Board(fen, chess960=chess960).perft_divide(depth, bulk=False) == divide


def test_reference_perft_agrees_with_a_published_count():
    """The reference itself is sound: python-chess gives Kiwipete's published depth-2 count."""
    board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    assert reference_perft(board, 2) == 2039


# --- The slow pass --------------------------------------------------------


def _classic_deep_params() -> list:
    params = []
    for index, case in enumerate(SUITES["perft-classic"].cases()):
        depth = SLOW_CLASSIC_DEPTHS.get(index, max(case.counts))
        params.append(pytest.param(case, [(depth, case.counts[depth])], id=f"{case.name}-d{depth}"))
    return params


@pytest.mark.slow
@pytest.mark.parametrize("case, depths", _classic_deep_params())
def test_classic_positions_match_at_full_depth(case, depths):
    assert_counts(case, depths)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case, depths",
    suite_params("perft-random", FULL_DEPTH)
    + suite_params("perft-chess960", FULL_DEPTH)
    + suite_params("pychess-tricky", FULL_DEPTH),
)
def test_small_suites_match_at_every_published_depth(case, depths):
    assert_counts(case, depths)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case, depths", suite_params("pychess-chess960", SLOW_CHESS960_SAMPLE_BUDGET, step=SLOW_CHESS960_SAMPLE_STEP)
)
def test_sampled_chess960_setups_match_deep(case, depths):
    assert_counts(case, depths)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", chunk_params("pychess-random", SLOW_RANDOM_BUDGET, 250))
def test_python_chess_random_positions_match_to_a_million_leaves(chunk):
    assert_chunk_counts(chunk)


@pytest.mark.slow
@pytest.mark.parametrize("case, depths", suite_params("sunfish-perft", SLOW_SUNFISH_BUDGET))
def test_sunfish_suite_matches_deep(case, depths):
    assert_counts(case, depths)
