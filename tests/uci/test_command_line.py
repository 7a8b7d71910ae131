"""UCI commands given as arguments (``jitfish "position startpos" "go depth 8" quit``), and ``genfens``:
what OpenBench's client runs (docs/openbench.md)."""

from __future__ import annotations

import os
import subprocess

import chess
import pytest

from jitfish.engine.engine import Engine
from jitfish.engine.genfens import MAX_SCORE_CP, generate_fens, parse_genfens
from tests.uci.conftest import ENGINE_COMMAND, REPO

GENFENS_PREFIX = "info string genfens "


def run_commands(*commands: str, cwd=REPO) -> list[str]:
    completed = subprocess.run(
        ENGINE_COMMAND + list(commands),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.splitlines()


def genfens_lines(*commands: str, cwd=REPO) -> list[str]:
    return [line[len(GENFENS_PREFIX) :] for line in run_commands(*commands, cwd=cwd) if line.startswith(GENFENS_PREFIX)]


@pytest.fixture(scope="module")
def engine(warm_cache) -> Engine:
    return Engine()


def test_commands_run_in_order_and_a_search_ends_before_the_next(warm_cache):
    lines = run_commands("position startpos moves e2e4", "go depth 8", "d", "quit")
    depths = [int(line.split()[2]) for line in lines if line.startswith("info depth")]
    best = [index for index, line in enumerate(lines) if line.startswith("bestmove")]
    # The search reached its depth (quit did not cut it short) and `d` ran after its bestmove.
    assert max(depths) == 8 and len(best) == 1
    assert any("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq" in line for line in lines[best[0] :])


def test_an_infinite_search_ends_at_the_next_command(warm_cache):
    lines = run_commands("position startpos", "go infinite", "stop")
    assert sum(line.startswith("bestmove") for line in lines) == 1


def test_tune_comes_before_the_commands_and_adds_the_search_parameters(warm_cache):
    lines = run_commands("--tune", "uci", "quit")
    assert "uciok" in lines and any(line.startswith("option name RFP_MARGIN type spin") for line in lines)
    assert not any("RFP_MARGIN" in line for line in run_commands("uci", "quit"))


def test_subcommands_still_take_the_command_line(warm_cache):
    assert run_commands("perft", "3")[-1] == "Nodes searched: 8902"


def test_genfens_prints_the_same_distinct_legal_positions_for_a_seed(warm_cache):
    first = genfens_lines("genfens 50 seed 7 book None", "quit")
    assert first == genfens_lines("genfens 50 seed 7 book None", "quit")
    assert len(first) == 50 == len({" ".join(fen.split()[:4]) for fen in first})
    for fen in first:
        board = chess.Board(fen)
        assert board.is_valid() and any(board.legal_moves), fen
        assert board.fullmove_number >= 5  # 8 or 9 random plies from the start position


def test_another_seed_gives_other_positions(engine):
    assert set(generate_fens(engine, 20, 7, None)).isdisjoint(generate_fens(engine, 20, 8, None))


# A balanced book position no game from the start position reaches: kings and three pawns each.
BOOK_POSITION = "4k3/3ppp2/8/8/8/8/3PPP2/4K3 w - -"


def from_the_book(fen: str) -> bool:
    board = chess.Board(fen)
    return {piece.piece_type for piece in board.piece_map().values()} <= {chess.KING, chess.PAWN}


def test_positions_come_from_the_book(engine, tmp_path):
    book = tmp_path / "book.epd"
    book.write_text(f'{BOOK_POSITION} c0 "kings and pawns";\n')
    fens = list(generate_fens(engine, 5, 1, book))
    assert len(fens) == 5 and all(map(from_the_book, fens))
    assert all(" ".join(fen.split()[:4]) != BOOK_POSITION for fen in fens)  # random plies were played


def test_genfens_reads_the_book_relative_to_the_working_directory(warm_cache, tmp_path):
    (tmp_path / "Books").mkdir()
    (tmp_path / "Books" / "b.epd").write_text(BOOK_POSITION + "\n")
    fens = genfens_lines("genfens 3 seed 1 book Books/b.epd extra words", "quit", cwd=tmp_path)
    assert len(fens) == 3 and all(map(from_the_book, fens))


def test_kept_positions_pass_the_quick_search(engine):
    from jitfish.board.board import Board
    from jitfish.engine.genfens import FILTER_DEPTH
    from jitfish.search import Searcher, SearchLimits

    searcher = Searcher(threads=1, network=engine.searcher.network)
    for fen in generate_fens(engine, 5, 3, None):
        searcher.clear()
        result = searcher.search(Board(fen), SearchLimits(depth=FILTER_DEPTH))
        assert result.score_mate is None and abs(result.score_cp) <= MAX_SCORE_CP


@pytest.mark.parametrize(
    "args, message",
    [
        ("5 seed 1", "usage"),
        ("x seed 1 book None", "integers"),
        ("0 seed 1 book None", "between"),
        ("5 seed 1 book /no/such.epd", "No such file"),
    ],
)
def test_bad_genfens_arguments_are_one_error_line(warm_cache, args, message):
    lines = run_commands(f"genfens {args}", "quit")
    errors = [line for line in lines if line.startswith("info string error: genfens")]
    assert len(errors) == 1 and message in errors[0], lines


def test_parse_genfens_reads_openbench_arguments():
    assert parse_genfens("64 seed 123 book None".split()) == (64, 123, None)
    count, seed, book = parse_genfens("8 seed 1 book Books/UHO.epd -- extra".split())
    assert (count, seed, str(book)) == (8, 1, "Books/UHO.epd")
