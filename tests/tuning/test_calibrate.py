"""The UCI_Elo calibration's pairings and its Bradley-Terry fit (no games played here)."""

from __future__ import annotations

import json

import pytest

from tuning import calibrate
from tuning.calibrate import fit_ratings, pairings_for
from tuning.elo import expected_score
from tuning.results import PairingStats


def test_settings_stockfish_has_play_it_and_the_others_are_chained_up_to_it():
    assert pairings_for([1700, 800, 1100, 1400]) == [
        ("j1400", "sf1400"),
        ("j1700", "sf1700"),
        ("j800", "j1100"),
        ("j1100", "sf1350"),
        ("j1100", "j1400"),
    ]


def pairing(first: str, second: str, difference: float, games: int = 400) -> PairingStats:
    """``games`` games scored as expected ``difference`` Elo apart (wins and losses, a fifth drawn)."""
    score = expected_score(difference)
    draws = games // 5
    wins = round(score * games - draws / 2)
    return PairingStats(first, second, wins, draws, games - wins - draws)


def test_the_fit_recovers_ratings_down_a_chain_with_wider_intervals_further_from_the_anchors():
    truth = {"j800": 760.0, "j1100": 1130.0, "j1400": 1390.0, "j1700": 1750.0}
    pairings = [
        pairing("j1700", "sf1700", truth["j1700"] - 1700),
        pairing("j1400", "sf1400", truth["j1400"] - 1400),
        pairing("j1100", "sf1350", truth["j1100"] - 1350),
        pairing("j1100", "j1400", truth["j1100"] - truth["j1400"]),
        pairing("j800", "j1100", truth["j800"] - truth["j1100"]),
    ]
    fit = fit_ratings(pairings)
    assert set(fit) == set(truth)
    for key, (rating, low, high) in fit.items():
        assert rating == pytest.approx(truth[key], abs=8) and low < rating < high
    width = {key: high - low for key, (_, low, high) in fit.items()}
    assert width["j800"] > width["j1100"] and width["j1700"] < 120


def test_a_setting_that_lost_every_game_has_no_estimate():
    fit = fit_ratings([PairingStats("j1400", "sf1400", 0, 0, 20), PairingStats("j1700", "sf1700", 5, 10, 5)])
    assert set(fit) == {"j1700"} and fit["j1700"][0] == pytest.approx(1700, abs=1)


PLAYED_WITH = [[800, 1, 800, 12], [1600, 1000, 50, 4], [2400, 100000, 0, 4]]  # a run's table, not the shipped one


def test_refit_turns_measurements_into_rising_rows_with_the_handicaps_of_the_runs_table(tmp_path, capsys):
    fit = {"j800": {"elo": 700.4}, "j2400": {"elo": 2350.0}, "j1200": {"elo": 1150.0}, "j1600": {"elo": 1500.0}}
    (tmp_path / "calibration.json").write_text(json.dumps({"fit": fit, "levels": PLAYED_WITH}))
    assert calibrate.main(["refit", str(tmp_path)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0] == [700, 1, 800, 12] and rows[2] == [1500, 1000, 50, 4] and rows[3] == [2350, 100000, 0, 4]
    assert rows[1] == [1150, round(1000**0.5), 425, 8]  # halfway: nodes geometric, noise and lines linear


def test_refit_needs_the_table_the_run_played_with(tmp_path, capsys):
    (tmp_path / "calibration.json").write_text(json.dumps({"fit": {"j800": {"elo": 700.0}}}))
    assert calibrate.main(["refit", str(tmp_path)]) == 2
    assert "table of levels" in capsys.readouterr().err


def test_a_run_plays_on_to_the_games_asked_and_refuses_another_table(tmp_path, monkeypatch, capsys):
    played = []

    def fake_match(config, backend, progress=True):
        played.append((config.engines[1].name, config.total_games, config.seed))
        return {"wins": config.total_games // 2, "draws": 0, "losses": config.total_games - config.total_games // 2}

    monkeypatch.setattr(calibrate, "run_match", fake_match)
    monkeypatch.setattr(calibrate, "find_program", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr("tuning.ladder.find_program", lambda name: "/usr/bin/" + name)
    run = ["--settings", "1400", "--output-dir", str(tmp_path), "--backend", "python-chess", "--quiet"]
    assert calibrate.main([*run, "--games", "10"]) == 0
    assert calibrate.main([*run, "--games", "10"]) == 0  # nothing left to play
    assert calibrate.main([*run, "--games", "16"]) == 0
    assert played == [("Stockfish 1400", 10, 1), ("Stockfish 1400", 6, 11)]
    data = json.loads((tmp_path / "calibration.json").read_text())
    assert data["pairings"] == [{"first": "j1400", "second": "sf1400", "wins": 8, "draws": 0, "losses": 8}]
    data["levels"] = PLAYED_WITH
    (tmp_path / "calibration.json").write_text(json.dumps(data))
    capsys.readouterr()
    assert calibrate.main([*run, "--games", "20"]) == 2 and len(played) == 2
    assert "another table" in capsys.readouterr().err


def test_settings_no_anchor_reaches_yet_are_left_out_of_the_fit():
    fit = fit_ratings([PairingStats("j1600", "sf1600", 3, 1, 26), PairingStats("j800", "j1200", 8, 5, 17)])
    assert set(fit) == {"j1600"} and 1050 < fit["j1600"][0] < 1450
