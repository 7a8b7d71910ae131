"""Lazy SMP: the helpers' iterative deepening and the vote that picks the line played."""

from __future__ import annotations

import pytest

import jitfish
from jitfish.board.moves import move_to_uci
from jitfish.search import SearchLimits
from jitfish.search import searcher as searcher_module
from jitfish.search.threads import VOTE_FLOOR, vote
from jitfish.types import MATE, TB_WIN

E4, D4, NF3 = 1, 2, 3  # three root moves (the vote compares them, nothing else)
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8"


@pytest.mark.parametrize(
    ("lines", "chosen", "why"),
    [
        ([(10, 20, [E4, D4]), (10, 20, [E4]), (11, 25, [E4])], 0, "all agree: the main thread's line"),
        ([(10, 20, [E4]), (10, 18, [D4]), (10, 18, [D4])], 1, "two threads' votes outweigh one"),
        ([(14, 60, [E4]), (10, 20, [D4]), (10, 20, [D4])], 0, "deeper and better outweighs two"),
        ([(10, MATE - 5, [E4]), (9, MATE - 3, [D4]), (12, 30, [NF3])], 1, "the faster mate"),
        ([(10, MATE - 3, [E4]), (12, 40, [D4]), (12, 40, [D4])], 0, "a mate is kept against votes"),
        ([(10, 20, [E4]), (9, TB_WIN - 4, [D4])], 1, "a tablebase win replaces an evaluation"),
        ([(10, 20, [E4]), (12, 15, [D4]), (12, -MATE + 6, [NF3])], 2, "a proven loss is believed"),
        ([(10, -MATE + 4, [E4]), (10, -MATE + 8, [D4])], 1, "the longest defence"),
        ([(10, -MATE + 8, [E4]), (12, 30, [D4]), (12, 30, [D4])], 0, "a proven loss is kept against votes"),
        ([(10, 0, [E4, D4]), (10, 0, [D4, E4, NF3])], 1, "equal votes: the longer line"),
        ([(10, 0, [E4, D4, NF3]), (10, 0, [D4, E4, NF3])], 0, "equal votes and weights: the main thread"),
    ],
)
def test_vote(lines, chosen, why):
    assert vote(lines) == chosen, why


def test_the_lowest_score_still_votes():
    """A thread's weight is its score over the lowest plus ``VOTE_FLOOR``, times its depth."""
    assert VOTE_FLOOR == 14
    assert vote([(10, 0, [E4]), (4, 10, [D4])]) == 0  # 14 * 10 = 140 against 24 * 4 = 96
    assert vote([(10, 0, [E4]), (4, 30, [D4])]) == 1  # 140 against 44 * 4 = 176


def test_two_threads_play_a_legal_line(fresh):
    """A clocked two-thread search (the vote among both threads' lines) answers with a legal line."""
    fresh.set_threads(2)
    try:
        for fen in (MIDDLEGAME, "4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"):
            result = fresh.search(jitfish.Board(fen), SearchLimits(movetime=0.3))
            board = jitfish.Board(fen)
            for move in result.pv:
                board.push_uci(move)
        assert result.best_move == "d1d5" and result.score > 400  # a mate, or the queen won
    finally:
        fresh.set_threads(1)


def test_a_helper_picked_by_the_vote_is_played(fresh, monkeypatch):
    """When the vote picks a helper, its line, score and depth are the answer."""
    monkeypatch.setattr(searcher_module, "vote", lambda lines: len(lines) - 1)
    fresh.set_threads(2)
    try:
        result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(movetime=0.3))
        helper = fresh.workers[1].completed
        score, pv = helper.lines[0]
        assert (result.depth, result.score) == (helper.depth, score)
        assert result.pv[: len(pv)] == [move_to_uci(move) for move in pv]
    finally:
        fresh.set_threads(1)


def test_a_depth_limit_plays_the_main_thread(fresh, monkeypatch):
    """No vote under a depth limit (nor MultiPV, nor a mate search), as in Stockfish."""
    monkeypatch.setattr(searcher_module, "vote", lambda lines: pytest.fail("voted under a depth limit"))
    fresh.set_threads(2)
    try:
        result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=6))
        assert result.depth == 6
    finally:
        fresh.set_threads(1)
