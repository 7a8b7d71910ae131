"""``jitfish perft`` through a real child process, as a user or a script runs it."""

from __future__ import annotations

import re
import subprocess
import sys

import chess

import jitfish
from tests.reference import reference_divide

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
DIVIDE_LINE = re.compile(r"^([a-h][1-8][a-h][1-8][nbrq]?): (\d+)$")


def run_jitfish(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jitfish", *args], capture_output=True, text=True, timeout=300)


def parse_divide(stdout: str) -> tuple[dict[str, int], int]:
    """The ``move: count`` lines and the closing node count; every other line must be blank."""
    counts, total = {}, None
    lines = stdout.splitlines()
    for line in lines[:-1]:
        match = DIVIDE_LINE.match(line)
        if match:
            assert match.group(1) not in counts, f"{match.group(1)} printed twice"
            counts[match.group(1)] = int(match.group(2))
        else:
            assert line == "", f"unexpected line {line!r}"
    closing = re.fullmatch(r"Nodes searched: (\d+)", lines[-1])
    assert closing, f"last line is {lines[-1]!r}"
    total = int(closing.group(1))
    return counts, total


def test_divide_prints_each_root_move_and_the_total():
    result = run_jitfish("perft", "3", "--divide")
    assert result.returncode == 0, result.stderr
    counts, total = parse_divide(result.stdout)
    assert result.stdout.splitlines()[-1] == "Nodes searched: 8902"
    assert total == sum(counts.values()) == 8902
    assert counts == reference_divide(chess.Board(), 3)
    assert counts["e2e4"] == 600 and counts["g1f3"] == 440


def test_divide_from_a_fen_writes_castling_as_the_king_step():
    result = run_jitfish("perft", "2", "--divide", "--fen", KIWIPETE)
    assert result.returncode == 0, result.stderr
    counts, total = parse_divide(result.stdout)
    assert total == 2039
    assert counts == reference_divide(chess.Board(KIWIPETE), 2)
    assert counts["e1g1"] == 43 and counts["e1c1"] == 43


def test_chess960_divide_writes_castling_king_takes_rook():
    fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 9"
    result = run_jitfish("perft", "3", "--divide", "--chess960", "--fen", fen)
    assert result.returncode == 0, result.stderr
    counts, total = parse_divide(result.stdout)
    assert total == 12189
    assert counts == reference_divide(chess.Board(fen, chess960=True), 3)


def test_perft_prints_only_the_total_and_leaf_by_leaf_agrees():
    for extra in ([], ["--no-bulk"]):
        result = run_jitfish("perft", "4", *extra)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == ["Nodes searched: 197281"]


def test_verbose_reports_time_on_stderr():
    result = run_jitfish("perft", "3", "-v")
    assert result.returncode == 0
    assert result.stdout.splitlines() == ["Nodes searched: 8902"]
    assert re.search(r"Time: [\d.]+ s \([\d.]+ Mnps\)", result.stderr)


def test_bad_fen_exits_non_zero_with_the_reason():
    result = run_jitfish("perft", "2", "--fen", "4k3/8/8/8/8/8/8/4K2X w - - 0 1")
    assert result.returncode != 0
    assert "invalid FEN" in result.stderr and "bad piece letter 'X'" in result.stderr
    assert "Traceback" not in result.stderr
    assert "Nodes searched" not in result.stdout


def test_depth_that_is_not_a_number_exits_with_usage_error():
    result = run_jitfish("perft", "three")
    assert result.returncode == 2
    assert "invalid int value" in result.stderr


def test_python_api_and_cli_count_the_same():
    fen = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
    result = run_jitfish("perft", "5", "--fen", fen)
    assert result.stdout.splitlines()[-1] == f"Nodes searched: {jitfish.perft(fen, 5)}" == "Nodes searched: 674624"


def test_depth_out_of_range_exits_with_a_message_not_a_traceback():
    result = run_jitfish("perft", "65")
    assert result.returncode != 0
    assert "perft depth must be between 0 and 64" in result.stderr
    assert "Traceback" not in result.stderr
