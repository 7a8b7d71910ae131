"""The Engine facade's pure rules: WDL model, Elo to skill, Stockfish's weaker-move pick."""

from __future__ import annotations

import random

from jitfish.search import SearchInfo
from jitfish.engine.strength import MAX_ELO, MIN_ELO, SKILL_MAX_LEVEL, pick_weaker_move, skill_for_elo


def line(multipv: int, move: str, cp: int | None = None, mate: int | None = None) -> SearchInfo:
    return SearchInfo(
        depth=5,
        seldepth=7,
        multipv=multipv,
        score_cp=cp,
        score_mate=mate,
        bound="",
        nodes=1000,
        time=0.1,
        nps=10000,
        hashfull=0,
        pv=[move],
    )


def test_elo_maps_to_levels_and_growing_node_budgets():
    levels, budgets = zip(*(skill_for_elo(elo, MIN_ELO, MAX_ELO) for elo in range(MIN_ELO, MAX_ELO + 1, 100)))
    assert levels[0] == 0 and levels[-1] == SKILL_MAX_LEVEL - 1
    assert list(levels) == sorted(levels) and list(budgets) == sorted(budgets)
    assert budgets[0] == 200 and budgets[-1] == 200 * 2**8


def test_full_skill_style_pick_prefers_the_best_and_low_skill_varies():
    lines = [line(1, "e2e4", 40), line(2, "d2d4", 30), line(3, "g1f3", 20), line(4, "a2a3", -60)]
    rng = random.Random(1)
    strong = {pick_weaker_move(lines, 19, rng) for _ in range(200)}
    weak = [pick_weaker_move(lines, 0, rng) for _ in range(400)]
    assert "e2e4" in strong
    assert len(set(weak)) >= 2  # level 0 does not always play the best move
    assert all(move in {"e2e4", "d2d4", "g1f3", "a2a3"} for move in weak)


def test_a_mate_is_never_thrown_away_for_a_big_margin():
    lines = [line(1, "h5f7", mate=1), line(2, "d2d4", 30), line(3, "g1f3", 20), line(4, "a2a3", 10)]
    rng = random.Random(3)
    assert {pick_weaker_move(lines, 10, rng) for _ in range(100)} == {"h5f7"}
