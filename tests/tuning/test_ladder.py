"""The ladder's placement on the Stockfish UCI_Elo scale, its table and its plot (no games played here)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.extras import importorskip
from tuning import ladder


def summary(wins: int, draws: int, losses: int) -> dict:
    from tuning.results import GameRecord, match_summary

    results = ["1-0"] * wins + ["1/2-1/2"] * draws + ["0-1"] * losses
    records = [GameRecord(i + 1, i // 2, "J", "X", result, "") for i, result in enumerate(results)]  # type: ignore
    return match_summary(records, ["J", "X"], [(0, 1)], None, "test")


def test_even_score_lands_on_the_anchor() -> None:
    placement = ladder.place_on_scale([ladder.AnchorResult(2000, 40, 20.0, 0.2)])
    assert placement is not None
    rating, low, high = placement
    assert rating == pytest.approx(2000, abs=0.01)
    assert low == pytest.approx(2000 - (high - 2000))


def test_three_quarters_is_191_above_the_anchor() -> None:
    rating, _, _ = ladder.place_on_scale([ladder.AnchorResult(1500, 40, 30.0, 0.15)])
    assert rating == pytest.approx(1500 + 190.85, abs=0.05)


def test_two_anchors_pull_to_the_middle() -> None:
    rating, low, high = ladder.place_on_scale(
        [ladder.AnchorResult(1500, 40, 30.0, 0.15), ladder.AnchorResult(2000, 40, 10.0, 0.15)]
    )
    assert 1500 < rating < 2000 and rating == pytest.approx(1750, abs=1)
    assert low < rating < high


def test_interval_shrinks_with_more_games() -> None:
    _, low_few, high_few = ladder.place_on_scale([ladder.AnchorResult(2000, 40, 24.0, 0.2)])
    _, low_many, high_many = ladder.place_on_scale([ladder.AnchorResult(2000, 400, 240.0, 0.2)])
    assert (high_many - low_many) == pytest.approx((high_few - low_few) / 10**0.5, rel=0.01)


def test_all_losses_give_no_placement() -> None:
    assert ladder.place_on_scale([ladder.AnchorResult(1500, 4, 0.0, 0.0)]) is None


def test_table_and_plot(tmp_path: Path) -> None:
    rows = [
        {"opponent": "Sunfish", "anchor_elo": None, "summary": summary(3, 2, 1)},
        {"opponent": "Stockfish 1500", "anchor_elo": 1500, "summary": summary(1, 2, 3)},
        {"opponent": "Stockfish 2000", "anchor_elo": 2000, "summary": summary(0, 0, 4)},
    ]
    anchors = [ladder.anchor_result(row["summary"], row["anchor_elo"]) for row in rows if row["anchor_elo"]]
    placement = ladder.place_on_scale(anchors)
    text = ladder.markdown_table("J", rows, placement, "10+0.1")
    assert "| Sunfish |  | 6 | 3 | 2 | 1 | 66.7 % |" in text
    assert "| Stockfish 2000 | 2000 | 4 | 0 | 0 | 4 | 0.0 % | -inf |" in text
    assert "on the Stockfish UCI_Elo scale" in text
    importorskip("matplotlib")
    assert ladder.plot(rows, "J", tmp_path / "ladder.png")
    assert (tmp_path / "ladder.png").read_bytes()[:4] == b"\x89PNG"


def test_every_default_opponent_has_a_program() -> None:
    assert {"fairymax", "phalanx", "glaurung", "toga2", "sunfish", "sf1500", "sf2000", "sf2400", "sf2800"} == set(
        ladder.OPPONENTS
    )
    sf = ladder.OPPONENTS["sf2400"]
    assert sf.anchor_elo == 2400 and "option.UCI_Elo=2400" in sf.tokens


def test_resume_keeps_finished_opponents_and_plays_no_game_for_them(tmp_path: Path) -> None:
    rows = [{"opponent": "Stockfish 1500", "key": "sf1500", "anchor_elo": 1500, "summary": summary(2, 0, 2)}]
    ladder.write_report(rows, "J", "10+0.1", tmp_path)
    pgn = tmp_path / "games.pgn.gz"
    pgn.write_bytes(gzip.compress(b"[Event \"kept\"]\n"))
    assert (
        ladder.main(
            ["--opponents", "sf1500", "--output-dir", str(tmp_path), "--resume", "--quiet", "--backend", "python-chess"]
        )
        == 0
    )
    report = json.loads((tmp_path / "ladder.json").read_text())
    assert [row["key"] for row in report["rows"]] == ["sf1500"]
    assert report["placement"]["elo"] == pytest.approx(1500, abs=0.01)
    assert gzip.decompress(pgn.read_bytes()) == b"[Event \"kept\"]\n"  # resuming keeps the games already played
    assert "| Stockfish 1500 | 1500 | 4 | 2 | 0 | 2 | 50.0 % |" in (tmp_path / "ladder.md").read_text()


def test_any_stockfish_level_is_an_anchor_and_other_keys_are_unknown() -> None:
    sf = ladder.find_opponent("sf2600")
    assert sf is not None and sf.anchor_elo == 2600 and "option.UCI_Elo=2600" in sf.tokens
    assert ladder.find_opponent("sf2400") is ladder.OPPONENTS["sf2400"]
    assert ladder.find_opponent("sf1000") is None  # below Stockfish's UCI_Elo range
    assert ladder.find_opponent("crafty") is None
