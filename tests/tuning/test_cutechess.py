"""The cutechess-cli backend: its command line, and parsing of recorded cutechess-cli output."""

from __future__ import annotations

import gzip
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tuning.backends import choose_backend
from tuning.backends.cutechess import CutechessBackend, build_command, classify_reason, parse_output
from tuning.config import DrawAdjudication, MatchConfig, ResignAdjudication
from tuning.engines import parse_engine_spec
from tuning.match import run_match
from tuning.results import match_summary, pairing_stats
from tuning.sprt import SprtConfig
from tuning.tc import parse_time_control

DATA = Path(__file__).parent / "data"


def two_engine_config(**changes: object) -> MatchConfig:
    fields: dict[str, object] = dict(
        engines=(
            parse_engine_spec(["cmd=./jitfish", "name=new", "option.Hash=64"]),
            parse_engine_spec(["cmd=/usr/games/stockfish", "name=sf", "dir=/tmp", "option.Threads=1"]),
        ),
        time_control=parse_time_control("10+0.1"),
        rounds=500,
        concurrency=2,
        openings_file="tuning/openings/balanced.epd",
        pgn_out="games.pgn",
        sprt=SprtConfig(0, 5, 0.05, 0.05),
    )
    fields.update(changes)
    return MatchConfig(**fields)  # type: ignore[arg-type]


def test_command_line_for_an_sprt_match() -> None:
    assert build_command(two_engine_config()) == [
        "cutechess-cli",
        "-engine",
        "cmd=./jitfish",
        "name=new",
        "option.Hash=64",
        "-engine",
        "cmd=/usr/games/stockfish",
        "name=sf",
        "dir=/tmp",
        "option.Threads=1",
        "-each",
        "tc=10+0.1",
        "proto=uci",
        "-openings",
        "file=tuning/openings/balanced.epd",
        "format=epd",
        "order=random",
        "-repeat",
        "-games",
        "2",
        "-rounds",
        "500",
        "-concurrency",
        "2",
        "-sprt",
        "elo0=0",
        "elo1=5",
        "alpha=0.05",
        "beta=0.05",
        "-pgnout",
        "games.pgn",
        "-event",
        "Jitfish match",
        "-recover",
    ]


def test_command_line_with_mixed_protocols_adjudication_and_gauntlet() -> None:
    engines = (
        parse_engine_spec(["cmd=./jitfish", "name=new"]),
        parse_engine_spec(["cmd=fairymax", "proto=xboard"]),
        parse_engine_spec(["cmd=phalanx", "proto=xboard"]),
    )
    config = two_engine_config(
        engines=engines,
        sprt=None,
        tournament="gauntlet",
        time_control=parse_time_control("40/60"),
        openings_file="book.pgn",
        opening_plies=8,
        draw=DrawAdjudication(40, 8, 10),
        resign=ResignAdjudication(3, 900, True),
        max_moves=150,
        seed=42,
        pgn_out=None,
        time_margin=0.05,
    )
    command = build_command(config, program="/opt/cutechess-cli")
    assert command == [
        "/opt/cutechess-cli",
        "-engine",
        "cmd=./jitfish",
        "name=new",
        "proto=uci",
        "-engine",
        "cmd=fairymax",
        "name=fairymax",
        "proto=xboard",
        "-engine",
        "cmd=phalanx",
        "name=phalanx",
        "proto=xboard",
        "-each",
        "tc=40/60",
        "timemargin=50",
        "-tournament",
        "gauntlet",
        "-openings",
        "file=book.pgn",
        "format=pgn",
        "order=random",
        "plies=8",
        "-repeat",
        "-games",
        "2",
        "-rounds",
        "500",
        "-concurrency",
        "2",
        "-draw",
        "movenumber=40",
        "movecount=8",
        "score=10",
        "-resign",
        "movecount=3",
        "score=900",
        "twosided=true",
        "-maxmoves",
        "150",
        "-srand",
        "42",
        "-event",
        "Jitfish match",
        "-recover",
    ]


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("st=1", ["st=1"]), ("nodes=20000", ["tc=inf", "nodes=20000"]), ("depth=8", ["tc=inf", "depth=8"])],
)
def test_command_line_fixed_limits(text: str, tokens: list[str]) -> None:
    command = build_command(two_engine_config(time_control=parse_time_control(text)))
    each = command.index("-each")
    assert command[each + 1 : each + 1 + len(tokens)] == tokens


def test_parse_recorded_match() -> None:
    parsed = parse_output((DATA / "cutechess_match.txt").read_text(), ["Jitfish-dev", "Jitfish-base"])
    assert len(parsed.records) == 30
    stats = pairing_stats(parsed.records, "Jitfish-dev", "Jitfish-base")
    reported = parsed.reported["score"]
    assert (stats.wins, stats.losses, stats.draws) == (reported["wins"], reported["losses"], reported["draws"])
    assert reported["games"] == 30 and parsed.reported["finished"]
    assert sum(stats.pentanomial) == 15
    assert all(record.fault is None for record in parsed.records)
    summary = match_summary(parsed.records, ["Jitfish-dev", "Jitfish-base"], [(0, 1)], None, "cutechess-cli")
    assert summary["elo_margin_trinomial"] == pytest.approx(parsed.reported["elo"]["margin"], abs=0.05)


def test_parse_recorded_sprt() -> None:
    parsed = parse_output((DATA / "cutechess_sprt.txt").read_text(), ["new", "old"])
    sprt = parsed.reported["sprt"]
    assert sprt == {"llr": 2.95, "lower_bound": -2.94, "upper_bound": 2.94, "decision": "H1"}
    assert parsed.reported["elo"] == pytest.approx({"elo": 114.3, "margin": 29.6, "los": 1.0, "draw_ratio": 0.351})
    assert parsed.reported["score"]["games"] == len(parsed.records) == 362


def test_parse_real_cutechess_1_4_output() -> None:
    """A real cutechess-cli 1.4.0 match (no -sprt, fixed nodes): it prints an SPRT line with infinite bounds,
    which is no SPRT, and its per-player result table; the summary stays strict JSON."""
    names = ["9dbfecb", "2609b46"]
    parsed = parse_output((DATA / "cutechess_1.4_nodes.txt").read_text(), names)
    assert len(parsed.records) == parsed.reported["score"]["games"] == 40
    stats = pairing_stats(parsed.records, *names)
    assert (stats.wins, stats.losses, stats.draws) == (12, 15, 13)
    assert (parsed.reported["score"]["wins"], parsed.reported["score"]["losses"]) == (12, 15)
    assert "sprt" not in parsed.reported
    assert parsed.reported["elo"] == pytest.approx({"elo": -26.1, "margin": 90.5, "los": 0.282, "draw_ratio": 0.325})
    summary = match_summary(parsed.records, names, [(0, 1)], None, "cutechess-cli")
    assert summary["elo"] == pytest.approx(parsed.reported["elo"]["elo"], abs=0.05)
    # cutechess-cli's normal quantile comes from an approximate inverse erf (1.956 for 1.960): its margin is
    # 0.2 % narrower than the exact one (90.5 printed, 90.62 exact).
    assert summary["elo_margin_trinomial"] == pytest.approx(90.62, abs=0.005)
    assert summary["elo_margin_trinomial"] == pytest.approx(parsed.reported["elo"]["margin"], rel=3e-3)
    json.dumps(dict(summary, reported=parsed.reported), allow_nan=False)


def test_non_finite_figures_become_none() -> None:
    """cutechess-cli prints ``inf +/- nan`` for the Elo of a 100 % score: no number, not a NaN in the JSON."""
    text = (
        "Finished game 1 (a vs b): 1-0 {White mates}\n"
        "Score of a vs b: 1 - 0 - 0  [1.000] 1\n"
        "Elo difference: inf +/- nan, LOS: 84.1 %, DrawRatio: 0.0 %\n"
    )
    assert parse_output(text, ["a", "b"]).reported["elo"] == {
        "elo": None,
        "margin": None,
        "los": 0.841,
        "draw_ratio": 0.0,
    }


def test_parse_recorded_gauntlet_faults() -> None:
    names = ["Jitfish", "Fairy-Max", "SF 1500"]
    parsed = parse_output((DATA / "cutechess_gauntlet_faults.txt").read_text(), names)
    summary = match_summary(parsed.records, names, [(0, 1), (0, 2)], None, "cutechess-cli")
    assert summary["faults"]["Jitfish"] == {"time_loss": 1, "illegal_move": 1, "crash": 1, "hang": 0}
    assert summary["faults"]["SF 1500"]["hang"] == 1
    assert (summary["games"], summary["wins"], summary["draws"], summary["losses"]) == (12, 5, 3, 4)
    vs_fairy, vs_sf = summary["pairings"]
    assert (vs_fairy["wins"], vs_fairy["draws"], vs_fairy["losses"]) == (3, 2, 1)
    assert (vs_sf["wins"], vs_sf["draws"], vs_sf["losses"]) == (2, 1, 3)
    assert vs_fairy["pentanomial"] == [0, 0, 1, 2, 0]


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("White loses on time", "time_loss"),
        ("Black makes an illegal move: e1g1", "illegal_move"),
        ("Black disconnects", "crash"),
        ("White's connection stalls", "hang"),
        ("White mates", None),
        ("Draw by adjudication", None),
        ("Black wins by adjudication", None),
    ],
)
def test_classify_reason(reason: str, kind: str | None) -> None:
    assert classify_reason(reason) == kind


def test_backend_runs_cutechess_and_follows_its_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in cutechess-cli on PATH replays a recording and records its arguments."""
    fake = tmp_path / "cutechess-cli"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(tmp_path / 'args')!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
        f"sys.stdout.write(open({str(DATA / 'cutechess_sprt.txt')!r}).read())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    backend = choose_backend("auto")
    assert isinstance(backend, CutechessBackend)
    engines = (parse_engine_spec(["cmd=a", "name=new"]), parse_engine_spec(["cmd=b", "name=old"]))
    config = two_engine_config(engines=engines, rounds=10000)
    summary = run_match(config, backend, progress=False)
    assert (tmp_path / "args").read_text().split("\n") == build_command(config)[1:]
    assert summary["backend"] == "cutechess-cli"
    assert summary["games"] == 362 and summary["stopped_early"]
    assert summary["sprt"]["decision"] == "H1"
    assert summary["reported"]["sprt"]["decision"] == "H1"


def test_a_compressed_pgnout_gets_cutechess_cli_s_plain_games_compressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cutechess-cli writes plain PGN: beside the file, then added to it compressed, and the folder left clean."""
    fake = tmp_path / "bin" / "cutechess-cli"
    fake.parent.mkdir()
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
        "open(args[args.index('-pgnout') + 1], 'a').write('[Event \"fake\"]\\n\\n1. e4 *\\n\\n')\n"
        f"sys.stdout.write(open({str(DATA / 'cutechess_sprt.txt')!r}).read())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    games = tmp_path / "records" / "games.pgn.gz"
    games.parent.mkdir()
    games.write_bytes(gzip.compress(b'[Event "earlier"]\n\n1. d4 *\n\n'))
    engines = (parse_engine_spec(["cmd=a", "name=new"]), parse_engine_spec(["cmd=b", "name=old"]))
    summary = run_match(two_engine_config(engines=engines, rounds=10000, pgn_out=str(games)), CutechessBackend())
    assert summary["games"] == 362
    assert gzip.decompress(games.read_bytes()) == b'[Event "earlier"]\n\n1. d4 *\n\n[Event "fake"]\n\n1. e4 *\n\n'
    assert [path.name for path in games.parent.iterdir()] == ["games.pgn.gz"]
