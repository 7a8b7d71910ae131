"""Tactical strength at a fixed node budget (deterministic): Win At Chess."""

from __future__ import annotations

import chess
import pytest

import jitfish
from jitfish.search import SearchLimits
from tests.search.conftest import DATA

NODES = 20000
WAC = DATA / "win_at_chess.epd"


def _solve_rate(searcher, path, count=None):
    solved = total = 0
    for line in path.read_text().splitlines()[:count]:
        if not line.strip():
            continue
        board, ops = chess.Board.from_epd(line)
        searcher.clear()
        result = searcher.search(jitfish.Board(board.fen()), SearchLimits(nodes=NODES))
        solved += result.best_move in {m.uci() for m in ops["bm"]}
        total += 1
    return solved, total


def test_win_at_chess_sample(fresh):
    """The first 60 WAC positions at 20k nodes each."""
    solved, total = _solve_rate(fresh, WAC, count=60)
    assert total == 60
    assert solved >= 42, f"{solved}/{total}"


@pytest.mark.slow
def test_win_at_chess_full(fresh):
    solved, total = _solve_rate(fresh, WAC)
    assert total == 300
    assert solved >= 170, f"{solved}/{total}"
