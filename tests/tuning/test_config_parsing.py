"""Time controls, engine specifications, openings and adjudication options as given on the command line."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from tuning.config import DrawAdjudication, MatchConfig, ResignAdjudication, schedule
from tuning.engines import EngineSpec, parse_engine_spec, with_unique_names
from tuning.openings import Opening, opening_sequence, read_openings
from tuning.tc import TimeControl, parse_time_control

BALANCED = Path(__file__).parents[2] / "tuning" / "openings" / "balanced.epd"


@pytest.mark.parametrize(
    ("text", "expected", "cutechess"),
    [
        ("10+0.1", TimeControl(base=10, increment=0.1), ["tc=10+0.1"]),
        ("40/60", TimeControl(base=60, moves_per_period=40), ["tc=40/60"]),
        ("40/1:00+0.5", TimeControl(base=60, increment=0.5, moves_per_period=40), ["tc=40/60+0.5"]),
        ("st=1", TimeControl(move_time=1.0), ["st=1"]),
        ("nodes=5000", TimeControl(nodes=5000), ["tc=inf", "nodes=5000"]),
        ("depth=6", TimeControl(depth=6), ["tc=inf", "depth=6"]),
        ("tc=5+0.05 nodes=100", TimeControl(base=5, increment=0.05, nodes=100), ["tc=5+0.05", "nodes=100"]),
    ],
)
def test_time_controls(text: str, expected: TimeControl, cutechess: list[str]) -> None:
    control = parse_time_control(text)
    assert control == expected
    assert control.cutechess_options() == cutechess


def test_time_control_pgn_tags() -> None:
    assert parse_time_control("10+0.1").pgn_tag() == "10+0.1"
    assert parse_time_control("40/60").pgn_tag() == "40/60"
    assert parse_time_control("st=2").pgn_tag() == "*2"
    assert parse_time_control("depth=3").pgn_tag() == "-"


@pytest.mark.parametrize("text", ["", "ten", "10+x", "st=0", "nodes=-5", "10+0.1 st=1", "speed=3"])
def test_bad_time_controls(text: str) -> None:
    with pytest.raises(ValueError):
        parse_time_control(text)


def test_engine_spec_full() -> None:
    spec = parse_engine_spec(
        ["cmd=/usr/games/fairymax", "name=Fairy-Max", "proto=xboard", "dir=/tmp", "option.Hash=64", "arg=-x"]
    )
    assert spec == EngineSpec("/usr/games/fairymax", "Fairy-Max", "xboard", "/tmp", ("-x",), {"Hash": "64"})
    assert spec.argv() == ["/usr/games/fairymax", "-x"]
    assert spec.cutechess_tokens() == [
        "cmd=/usr/games/fairymax",
        "name=Fairy-Max",
        "dir=/tmp",
        "arg=-x",
        "proto=xboard",
        "option.Hash=64",
    ]


def test_engine_spec_defaults_and_shell_words() -> None:
    spec = parse_engine_spec(["cmd=python -m jitfish"])
    assert spec.name == "jitfish" and spec.protocol == "uci"
    assert spec.argv() == ["python", "-m", "jitfish"]
    assert parse_engine_spec(["cmd=/usr/games/stockfish"]).name == "stockfish"


@pytest.mark.parametrize("tokens", [["name=x"], ["cmd=x", "proto=cecp"], ["cmd=x", "colour=red"], ["cmd"]])
def test_bad_engine_specs(tokens: list[str]) -> None:
    with pytest.raises(ValueError):
        parse_engine_spec(tokens)


def test_repeated_names_are_made_unique() -> None:
    specs = [parse_engine_spec(["cmd=sf"]), parse_engine_spec(["cmd=sf"]), parse_engine_spec(["cmd=sf"])]
    assert [spec.name for spec in with_unique_names(specs)] == ["sf", "sf-2", "sf-3"]


def test_read_epd_and_pgn(tmp_path: Path) -> None:
    epd = tmp_path / "o.epd"
    epd.write_text("# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"e4\";\n\n")
    [opening] = read_openings(epd)
    after_e4 = chess.Board()
    after_e4.push_san("e4")
    assert opening.board().epd() == after_e4.epd(en_passant="legal")
    pgn = tmp_path / "o.pgn"
    pgn.write_text('[Event "?"]\n\n1. d4 d5 2. c4 e6 *\n\n[Event "?"]\n\n1. e4 c5 *\n')
    openings = read_openings(pgn, plies=3)
    assert [len(o.moves) for o in openings] == [3, 2]
    assert openings[0].board().fen().startswith("rnbqkbnr/ppp1pppp/8/3p4/2PP4/")


def test_bad_epd_line_is_reported(tmp_path: Path) -> None:
    epd = tmp_path / "bad.epd"
    epd.write_text("not a position\n")
    with pytest.raises(ValueError, match="bad.epd:1"):
        read_openings(epd)


def test_shipped_balanced_suite() -> None:
    openings = read_openings(BALANCED)
    assert 50 <= len(openings) <= 100
    assert len({opening.fen for opening in openings}) == len(openings)
    for opening in openings:
        board = opening.board()
        assert board.is_valid() and not board.is_game_over()


def test_opening_sequence_cycles_and_is_seeded() -> None:
    suite = [Opening(), Opening(chess.STARTING_FEN, (chess.Move.from_uci("e2e4"),))]
    assert opening_sequence(suite, 5, "sequential", None) == [suite[0], suite[1], suite[0], suite[1], suite[0]]
    assert opening_sequence(suite, 4, "random", 7) == opening_sequence(suite, 4, "random", 7)
    assert opening_sequence([], 2, "random", None) == [Opening(), Opening()]


def test_adjudication_options() -> None:
    assert DrawAdjudication.parse(["movenumber=30", "movecount=6", "score=5"]) == DrawAdjudication(30, 6, 5)
    assert ResignAdjudication.parse(["movecount=4", "score=600", "twosided=true"]) == ResignAdjudication(4, 600, True)
    assert ResignAdjudication.parse([]) == ResignAdjudication()
    with pytest.raises(ValueError):
        DrawAdjudication.parse(["moves=3"])


def test_schedule_round_robin_and_gauntlet() -> None:
    engines = tuple(parse_engine_spec([f"cmd=e{i}"]) for i in range(3))
    round_robin = MatchConfig(engines=engines, time_control=TimeControl(depth=1), rounds=2)
    assert round_robin.pairings() == [(0, 1), (0, 2), (1, 2)]
    assert round_robin.total_games == 12
    gauntlet = MatchConfig(engines=engines, time_control=TimeControl(depth=1), tournament="gauntlet")
    encounters = schedule(gauntlet)
    assert [(e.first, e.second, e.round) for e in encounters] == [(0, 1, 1), (0, 2, 1)]
    with pytest.raises(ValueError):
        MatchConfig(engines=engines[:1], time_control=TimeControl(depth=1))
