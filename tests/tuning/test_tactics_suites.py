"""tuning/tactics_suites.py: every suite's lines, whatever their layout, and ``--set`` (no searches)."""

from __future__ import annotations

import argparse

import pytest

from tuning import tactics_suites as suites


def test_best_moves_of_each_layout():
    # Bratko-Kopec: no move counters, bm before id.
    assert suites.best_moves('1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";') == (
        "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - 0 1",
        {"d6d1"},
    )
    # CCR: move counters, id before bm, no space before bm.
    ccr = 'rn1qkb1r/pp2pppp/5n2/3p1b2/3P4/1QN1P3/PP3PPP/R1B1KBNR b KQkq - 1 1 id "CCR02";bm Bc8;'
    fen, moves = suites.best_moves(ccr)
    assert moves == {"f5c8"}
    # Several best moves; a misspelt one is left out; no bm at all is no case.
    assert suites.best_moves("4k3/8/8/8/8/8/8/R3K2R w KQ - bm O-O Kxx1 Ra8+;")[1] == {"e1g1", "a1a8"}
    assert suites.best_moves('4k3/8/8/8/8/8/8/4K3 w - - id "none";') is None


def test_every_suite_has_its_positions():
    counts = {
        name: sum(suites.best_moves(line) is not None for line in (suites.DATA / name).read_text().splitlines())
        for name in suites.SUITES
    }
    assert counts == {"win_at_chess.epd": 300, "bratko_kopec.epd": 24, "ccr_one_hour.epd": 18}


def test_set_reads_name_and_integer():
    assert suites.parameter_setting("RFP_MAX_DEPTH=4") == ("RFP_MAX_DEPTH", 4)
    assert suites.parameter_setting(" LMR_MIN_DEPTH = -2") == ("LMR_MIN_DEPTH", -2)
    for bad in ("RFP_MAX_DEPTH", "RFP_MAX_DEPTH=four", "=3.5"):
        with pytest.raises(argparse.ArgumentTypeError, match="NAME=INTEGER"):
            suites.parameter_setting(bad)
