"""``jitfish analyse`` through a real child process: the files it writes, what it prints, its exit status."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import chess.pgn
import pytest

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "analyse" / "sunfish-jitfish.pgn"
BAD_GAME = '[White "Carl"]\n[Black "Dora"]\n\n1. d4 d5 2. Ke3 *\n'


def run_jitfish(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jitfish", *args], capture_output=True, text=True, timeout=600, cwd=cwd
    )


def test_analyse_writes_the_games_beside_the_file_and_draws_them(tmp_path):
    game = tmp_path / "mine.pgn"
    game.write_text(SHIPPED.read_text())
    done = run_jitfish("analyse", str(game), "--nodes", "5000", "--plot", str(tmp_path / "mine.png"))
    assert done.returncode == 0, done.stderr
    analysed = chess.pgn.read_game(io.StringIO((tmp_path / "mine-analysed.pgn").read_text()))
    assert analysed.errors == [] and analysed.next().eval() is not None
    lines = done.stdout.splitlines()
    assert lines[0] == "game 1 (Sunfish - Jitfish), 0-1"
    assert lines[1].startswith("  White (Sunfish): accuracy ") and lines[2].startswith("  Black (Jitfish): accuracy ")
    assert lines[3] == f"1 of 1 games analysed (5,000 nodes a position), written to {tmp_path / 'mine-analysed.pgn'}"
    assert (tmp_path / "mine.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "text, line",
    [
        ("", "error: FILE is empty: there is no game to analyse"),
        ("just some words\n", "error: FILE is not a PGN file: no tag and no move in it"),
        (BAD_GAME, "error: game 1 (Carl - Dora): 2. Ke3 is not a legal move"),
    ],
    ids=["empty", "not PGN", "illegal move"],
)
def test_bad_input_is_one_line_and_status_2(tmp_path, text, line):
    path = tmp_path / "bad.pgn"
    path.write_text(text)
    done = run_jitfish("analyse", str(path))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [line.replace("FILE", str(path))]
    assert done.stdout == "" and not (tmp_path / "bad-analysed.pgn").exists()


def test_a_bad_game_among_good_ones_is_reported_and_kept(tmp_path):
    path = tmp_path / "two.pgn"
    path.write_text(SHIPPED.read_text() + "\n" + BAD_GAME)
    done = run_jitfish("analyse", str(path), "--nodes", "2000", "--output", "-", "--quiet")
    assert done.returncode == 1
    assert done.stderr.splitlines() == ["error: game 2 (Carl - Dora): 2. Ke3 is not a legal move"]
    assert done.stdout.endswith(BAD_GAME)
    assert chess.pgn.read_game(io.StringIO(done.stdout)).next().eval() is not None


def test_a_bad_limit_is_one_line(tmp_path):
    done = run_jitfish("analyse", str(SHIPPED), "--nodes", "0")
    assert done.returncode == 2
    assert done.stderr.splitlines() == ["error: nodes must be at least 1, got 0"]
