"""Soundness: no pruning or reduction keeps a forced mate out of the search for good.

Issue 15: after two earlier searches, ``go mate 2`` on ``kbK5/pp6/1P6/8/8/8/8/R7 w``
(1.Ra6 bxa6 2.b7#) ran to depth 67 reporting a mate in 11.  The cause was the null
move at Black's reply to 1.Ra6: Black is in zugzwang (every move loses, passing
would not), and once the root had a mate in 11, Black's window was a mate score,
against which "passing is still not mated" proved nothing about the real moves.
The null move is now never tried against a mate-score beta, nor by a side with a
single piece besides king and pawns, and deep cut-offs are verified.

The other suspects named in the issue are pinned here too: the history malus,
reductions that could outgrow the depth, history-driven pruning, TT mate scores
and stale killers and countermoves (the stress runs fill those with random values).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import jitfish
from jitfish.board.moves import MOVE_NORMAL, encode_move
from jitfish.search import Searcher, SearchLimits
from jitfish.search.buffers import HEURISTICS_SIZE, LMR_SIDE, SCORES, move_list
from jitfish.search.history import HISTORY_MAX, SEARCHED_QUIET, history_index, update_histories
from jitfish.search.negamax import late_move_reductions
from jitfish.types import MATE

DATA = Path(__file__).resolve().parent.parent / "data"
ZUGZWANG_MATE_IN_2 = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1"
AFTER_THE_SACRIFICE = "kbK5/pp6/RP6/8/8/8/8/8 b - - 1 1"  # Black to move: every reply is mated
# Unrelated positions whose searches leave history, killers, countermoves and table entries behind.
UNRELATED = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2",
    "r2q1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R2Q1RK1 w - - 0 10",
]
# Per position.  The hardest of the suite (a mate in 4 whose key move is a quiet knight retreat,
# 1B5b/1p1N4/...) takes 1-3M nodes depending on what the heuristics hold; Stockfish 15.1 takes 0.4M.
NODE_BUDGET = 6_000_000


def _suite():
    cases = []
    for line in (DATA / "mates" / "mate_suite.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fen, mate, _source = (part.strip() for part in line.split(";"))
            cases.append((fen, int(mate.split()[1])))
    return cases


SUITE = _suite()


def _fill_with_unrelated_searches(searcher: Searcher) -> None:
    for fen in UNRELATED:
        searcher.search(jitfish.Board(fen), SearchLimits(nodes=200_000))


def _fill_heuristics(searcher: Searcher, values) -> None:
    for worker in searcher.workers:
        worker.heuristics[:] = values(HEURISTICS_SIZE)


def _root_search(searcher: Searcher, fen: str, alpha: int, beta: int, depth: int) -> int:
    """One call of the kernel at the root with the window (alpha, beta)."""
    worker = searcher.workers[0]
    worker.prepare(jitfish.Board(fen).position, 1, 1 << 62, [])
    return worker.search_root(searcher._tt, searcher._weights, searcher._params, alpha, beta, depth)


def _unsolved(searcher: Searcher, cases, clear_between: bool, limits) -> list:
    failures = []
    for fen, moves in cases:
        if clear_between:
            searcher.clear()  # what ucinewgame does
        result = searcher.search(jitfish.Board(fen), limits(moves))
        if result.score_mate != moves:
            failures.append((fen, moves, result.score_mate, result.best_move, result.nodes))
    return failures


def test_the_suite_holds_mates_in_one_to_four():
    assert len(SUITE) > 200
    assert {moves for _, moves in SUITE} == {1, 2, 3, 4}


@pytest.mark.parametrize("depth", range(3, 11))
def test_no_null_move_against_a_mate_score_beta(depth):
    # The question at Black's node is "is Black mated within 20 plies?": yes, in 2.
    # Passing (not mated) must not answer it for the real moves.
    searcher = Searcher(hash_mb=1)
    beta = -(MATE - 21)
    score = _root_search(searcher, AFTER_THE_SACRIFICE, beta - 1, beta, depth)
    assert score < beta  # fails low: an upper bound, so any score below beta is right


@pytest.mark.parametrize("depth", range(3, 11))
def test_a_side_with_one_piece_is_not_trusted_to_pass(depth):
    # Black's static evaluation is far above -300 (Black is about to win the rook), yet every
    # move is mated: a null move would cut this node off at every depth.
    searcher = Searcher(hash_mb=1)
    score = _root_search(searcher, AFTER_THE_SACRIFICE, -301, -300, depth)
    assert score < -300


@pytest.mark.parametrize("state", ["fresh", "after unrelated searches", "random heuristics"])
def test_the_issue_position_is_solved_quickly_whatever_came_before(state):
    searcher = Searcher(hash_mb=16)
    if state == "after unrelated searches":
        _fill_with_unrelated_searches(searcher)
    elif state == "random heuristics":
        rng = np.random.default_rng(15)
        _fill_heuristics(searcher, lambda n: rng.integers(-HISTORY_MAX, HISTORY_MAX, n))
    result = searcher.search(jitfish.Board(ZUGZWANG_MATE_IN_2), SearchLimits(mate=2, nodes=200_000))
    assert result.best_move == "a1a6"
    assert result.score_mate == 2
    assert result.depth < 20


def test_history_malus_touches_only_the_quiet_moves_searched():
    searcher = Searcher(hash_mb=1)
    worker = searcher._workers[0]
    worker.prepare(jitfish.Board().position, 1, 1 << 62, [])
    ctx = worker.context(searcher._tt, searcher._weights, searcher._params)
    base = move_list(0)
    moves = [encode_move(from_sq, from_sq + 16, 0, MOVE_NORMAL) for from_sq in (12, 13, 14)]  # three quiet moves
    cutoff = encode_move(6, 21, 0, MOVE_NORMAL)
    ctx.work[base : base + 4] = moves + [cutoff]
    ctx.work[base + SCORES] = SEARCHED_QUIET  # searched, failed low
    ctx.work[base + 1 + SCORES] = 500  # pruned (still carries its ordering score)
    ctx.work[base + 2 + SCORES] = SEARCHED_QUIET  # searched, failed low
    depth = 2  # a bonus of 16 * 2^2 + 37 * 2 = 138 with the shipped HISTORY_BONUS_*, the malus 100 % of it
    update_histories(ctx, 0, cutoff, depth, base + 3, True)
    assert ctx.work[history_index(0, cutoff)] == 138
    assert ctx.work[history_index(0, moves[0])] == -138
    assert ctx.work[history_index(0, moves[1])] == 0
    assert ctx.work[history_index(0, moves[2])] == -138


def test_reduced_depth_grows_with_depth_whatever_the_history():
    # The most a quiet move is reduced: the table, +1 off the PV, +1 not improving, +1 at a cut
    # node, +2 for the worst history.  What is left must keep growing with the depth.
    table = late_move_reductions().reshape(LMR_SIDE, LMR_SIDE)
    worst_extra = 5
    left = [depth - 1 - min(int(table[depth].max()) + worst_extra, depth - 2) for depth in range(3, LMR_SIDE)]
    assert all(b >= a for a, b in zip(left, left[1:]))
    assert left[-1] >= (LMR_SIDE - 1) // 2


@pytest.mark.parametrize(
    "state",
    [
        "ucinewgame between",
        "after unrelated searches, no ucinewgame",
        "random heuristics",
        "worst history",
        "best history",
    ],
)
def test_every_suite_mate_is_found_with_its_exact_distance(state):
    searcher = Searcher(hash_mb=16)
    rng = np.random.default_rng(15)
    if state.startswith("after unrelated"):
        _fill_with_unrelated_searches(searcher)
    elif state == "random heuristics":
        # Killers and countermoves become arbitrary move codes, history arbitrary values.
        _fill_heuristics(searcher, lambda n: rng.integers(-HISTORY_MAX, HISTORY_MAX, n))
    elif state == "worst history":
        _fill_heuristics(searcher, lambda n: np.full(n, -HISTORY_MAX))
    elif state == "best history":
        _fill_heuristics(searcher, lambda n: np.full(n, HISTORY_MAX))
    failures = _unsolved(
        searcher, SUITE, state == "ucinewgame between", lambda moves: SearchLimits(mate=moves, nodes=NODE_BUDGET)
    )
    assert failures == []


@pytest.mark.parametrize("clear_between", [True, False])
def test_every_suite_mate_is_found_with_two_threads(clear_between):
    # A node limit searches with one thread, so the helper thread runs under a depth cap here.
    searcher = Searcher(hash_mb=16, threads=2)
    _fill_with_unrelated_searches(searcher)
    failures = _unsolved(searcher, SUITE, clear_between, lambda moves: SearchLimits(mate=moves, depth=2 * moves + 24))
    assert failures == []
