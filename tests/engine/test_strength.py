"""The Engine facade's pure rules: WDL model, UCI_Elo's handicaps and pick, Stockfish's weaker-move pick."""

from __future__ import annotations

import random

from jitfish.engine.strength import (
    MAX_ELO,
    MIN_ELO,
    calibrated_levels,
    handicap_for_elo,
    pick_noisy_move,
    pick_weaker_move,
)
from jitfish.search import SearchInfo


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


def test_uci_elo_handicaps_grow_with_the_setting_and_stay_in_range():
    """The mapping's shape, not its Elo (python -m tuning.calibrate measures that): more nodes, fewer lines and less
    noise as the setting rises, the measured rows hit exactly, the window's ends held outside it."""
    levels = calibrated_levels()
    assert (MIN_ELO, MAX_ELO) == (levels[0][0], levels[-1][0]) and MIN_ELO <= 1000 and MAX_ELO >= 2200
    handicaps = [handicap_for_elo(elo) for elo in range(MIN_ELO, MAX_ELO + 1, 10)]
    nodes = [handicap.nodes for handicap in handicaps]
    noise = [handicap.noise_cp for handicap in handicaps]
    lines = [handicap.lines for handicap in handicaps]
    assert nodes == sorted(nodes) and noise == sorted(noise, reverse=True) and lines == sorted(lines, reverse=True)
    assert 1 <= min(lines) and max(lines) <= 16
    assert nodes[0] >= 1 and 0 <= noise[-1] <= noise[0] <= 800  # less than a queen: never thrown away
    assert all(handicap_for_elo(elo) == handicap for elo, handicap in levels)
    assert handicap_for_elo(MIN_ELO - 500) == levels[0][1] and handicap_for_elo(MAX_ELO + 500) == levels[-1][1]


def test_uci_elo_pick_never_plays_a_line_further_below_the_best_than_its_noise():
    lines = [line(1, "e2e4", 40), line(2, "d2d4", 30), line(3, "g1f3", -20), line(4, "a2a3", -900)]
    rng = random.Random(2)
    picks = [pick_noisy_move(lines, 50, rng) for _ in range(600)]
    assert set(picks) == {"e2e4", "d2d4"}  # g1f3 is 60 below: out of reach of a noise of 50
    assert picks.count("e2e4") > picks.count("d2d4")
    assert {pick_noisy_move(lines, 0, rng) for _ in range(50)} == {"e2e4"}
    mate = [line(1, "h5f7", mate=2), line(2, "d2d4", 300), line(3, "g1f3", 200)]
    assert {pick_noisy_move(mate, 400, rng) for _ in range(200)} == {"h5f7"}


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
