"""The UCI protocol over raw pipes: replies, searches, and every kind of bad input.

Each bad input must produce an ``info string error`` line (or be ignored where
the protocol says so), leave the engine consistent, and be followed by
``isready`` -> ``readyok``.
"""

from __future__ import annotations

import json
import os
import time

import chess
import chess.polyglot
import pytest

from jitfish.eval.params import WEIGHTS_FILE
from tests.reference_eval import reference_evaluation
from tests.uci.conftest import COLD_START_TIMEOUT, PROMPT, UciPipe, errors_in

MATED_FEN = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"  # fool's mate
STALEMATE_FEN = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"
CHESS960_FEN = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"


def bestmove_of(lines: list[str]) -> str:
    assert lines[-1].startswith("bestmove "), lines
    return lines[-1].split()[1]


def fen_of(uci: UciPipe) -> str:
    uci.send("d")
    lines = uci.read_until("Checkers:")
    return next(line for line in lines if line.startswith("Fen: "))[5:]


def expect_error(uci: UciPipe, command: str, fragment: str) -> list[str]:
    """Send a bad command: one error line mentioning ``fragment``, then readyok."""
    uci.send(command)
    lines = uci.ready()
    errors = errors_in(lines)
    assert errors, f"no error for {command[:80]!r}: {lines}"
    assert any(fragment in line for line in errors), errors
    return lines


# --- replies ------------------------------------------------------------------
def test_uci_lists_id_options_and_uciok(warm_cache):
    pipe = UciPipe()
    try:
        pipe.send("uci")
        lines = pipe.read_until("uciok", PROMPT)  # the latency target is 0.3 s: see scripts/bench/bench_uci.py
        assert lines[0].startswith("id name Jitfish ")
        assert lines[1].startswith("id author ")
        names = {line.split(" type ")[0][len("option name ") :] for line in lines if line.startswith("option")}
        assert {
            "Hash",
            "Clear Hash",
            "Threads",
            "MultiPV",
            "Ponder",
            "Move Overhead",
            "UCI_Chess960",
            "UCI_ShowWDL",
            "UCI_LimitStrength",
            "UCI_Elo",
            "Skill Level",
            "OwnBook",
            "BookFile",
        } <= names
        assert "option name Hash type spin default 16 min 1 max 32768" in lines
        pipe.ready()
    finally:
        assert pipe.close() == 0


def test_search_reports_info_then_a_legal_bestmove(uci):
    uci.send("position startpos moves e2e4 e7e5")
    uci.send("go depth 4")
    lines = uci.read_until("bestmove", 30)
    infos = [line for line in lines if line.startswith("info depth")]
    assert infos, lines
    for field in ("seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv"):
        assert f" {field} " in infos[-1], infos[-1]
    assert " depth 4 " in " ".join(infos)
    board = chess.Board()
    board.push_uci("e2e4")
    board.push_uci("e7e5")
    assert chess.Move.from_uci(bestmove_of(lines)) in board.legal_moves
    uci.ready()


def test_isready_is_answered_during_a_search_and_stop_gives_bestmove(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    time.sleep(0.3)
    lines = uci.ready(PROMPT)
    assert not any(line.startswith("bestmove") for line in lines)
    uci.no_line_starting("bestmove", 0.5)
    uci.send("stop")
    lines = uci.read_until("bestmove", 30)
    assert chess.Move.from_uci(bestmove_of(lines)) in chess.Board().legal_moves
    uci.ready()


def test_go_perft_prints_divide_and_total(uci):
    uci.send("position startpos")
    uci.send("go perft 3")
    lines = uci.read_until("Nodes searched", 30)
    assert lines[-1] == "Nodes searched: 8902"
    assert "e2e4: 600" in lines and "" in lines
    assert len([line for line in lines if ": " in line and not line.startswith("Nodes")]) == 20
    uci.ready()


def test_d_shows_board_fen_and_polyglot_key(uci):
    uci.send("position startpos moves e2e4 c7c5 g1f3")
    uci.send("d")
    lines = uci.read_until("Checkers:")
    board = chess.Board()
    for move in ("e2e4", "c7c5", "g1f3"):
        board.push_uci(move)
    assert f"Fen: {board.fen()}" in lines
    assert f"Key: {chess.polyglot.zobrist_hash(board):016X}" in lines


@pytest.mark.parametrize("moves", ["e2e4", "e2e4 d7d5 e4d5 d8d5", "e2e4 d7d5 e4d5 d8d5 b1c3"])
def test_eval_lists_terms_and_final_evaluation(uci, moves):
    """The side to move's score is the plain-Python evaluation of tests/reference_eval.py."""
    uci.send(f"position startpos moves {moves}")
    uci.send("eval")
    lines = uci.read_until("Final evaluation", 10)
    assert any(line.startswith("total") for line in lines), lines
    board = chess.Board()
    for move in moves.split():
        board.push_uci(move)
    expected = reference_evaluation(board, json.loads(WEIGHTS_FILE.read_text()))
    assert f"[{expected} cp side to move]" in lines[-1], f"expected {expected} cp: {lines[-1]}"


def test_no_legal_move_gives_bestmove_0000(uci):
    for fen, score in ((MATED_FEN, "score mate 0"), (STALEMATE_FEN, "score cp 0")):
        uci.send(f"position fen {fen}")
        uci.send("go wtime 1000 btime 1000")
        lines = uci.read_until("bestmove", 10)
        assert lines[-1] == "bestmove 0000"
        assert any(score in line for line in lines if line.startswith("info")), lines
    uci.ready()


def test_register_and_debug_are_answered(uci):
    uci.send("register later")
    lines = uci.ready()
    assert any(line.startswith("info string") for line in lines) and not errors_in(lines)
    uci.send("debug on")
    uci.send("position startpos")
    uci.send("go depth 2")
    lines = uci.read_until("bestmove", 10)
    assert any(line.startswith("info string limits") for line in lines), lines
    uci.send("debug off")
    expect_error(uci, "debug maybe", "debug")


def test_multipv_and_wdl_in_info_lines(uci):
    uci.send("setoption name MultiPV value 3")
    uci.send("setoption name UCI_ShowWDL value true")
    uci.send("position startpos")
    uci.send("go depth 3")
    lines = uci.read_until("bestmove", 30)
    depth3 = [line for line in lines if line.startswith("info depth 3 ")]
    assert {line.split(" multipv ")[1].split()[0] for line in depth3} >= {"1", "2", "3"}
    for line in depth3:
        wdl = line.split(" wdl ")[1].split()[:3]
        assert sum(int(x) for x in wdl) == 1000
    uci.send("setoption name MultiPV value 1")
    uci.send("setoption name UCI_ShowWDL value false")
    uci.ready()


def test_searchmoves_restricts_the_root(uci):
    uci.send("position startpos")
    uci.send("go depth 3 searchmoves a2a3 h2h3")
    assert bestmove_of(uci.read_until("bestmove", 20)) in ("a2a3", "h2h3")


def test_position_and_ucinewgame_during_a_search_wait_for_its_bestmove(uci):
    uci.send("position startpos")
    uci.send("go infinite")
    uci.send("position startpos moves d2d4")
    uci.send("ucinewgame")
    lines = uci.ready()  # answered at once: the search runs, the two commands are held
    assert not errors_in(lines) and not any(line.startswith("bestmove") for line in lines), lines
    uci.send("stop")
    assert bestmove_of(uci.read_until("bestmove", 30)) in {m.uci() for m in chess.Board().legal_moves}
    assert fen_of(uci) == "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1"


# --- time ---------------------------------------------------------------------
def test_movetime_is_kept(uci):
    uci.send("position startpos")
    started = time.perf_counter()
    uci.send("go movetime 300")
    uci.read_until("bestmove", PROMPT)
    assert time.perf_counter() - started > 0.1  # it searched; a loaded machine only makes it longer


@pytest.mark.parametrize("clock_ms", [1, 30, 90])
def test_tiny_clocks_still_give_a_legal_move_in_time(uci, clock_ms):
    uci.send("position startpos moves e2e4")
    uci.send("debug on")
    uci.send(f"go wtime {clock_ms * 3} btime {clock_ms} winc 0 binc 0")
    lines = uci.read_until("bestmove", PROMPT)
    uci.send("debug off")
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(bestmove_of(lines)) in board.legal_moves
    # Black's clock less Move Overhead (20 ms) is gone or nearly: the limits are the minimum think.
    limits = next(line for line in lines if line.startswith("info string limits")).split()
    assert float(limits[limits.index("hard") + 1]) <= max((clock_ms - 20) * 0.4 / 1000, 0.001), limits


def test_single_legal_move_is_played_at_once(uci):
    board = chess.Board("k7/8/8/8/8/8/r7/K1r5 w - - 0 1")  # only Kxa2
    assert [m.uci() for m in board.legal_moves] == ["a1a2"]
    uci.send(f"position fen {board.fen()}")
    uci.send("go wtime 60000 btime 60000")
    lines = uci.read_until("bestmove", PROMPT)
    assert bestmove_of(lines) == "a1a2"
    assert not any(line.startswith("info depth 2 ") for line in lines), lines  # a depth-1 search only


def test_clock_search_stops_well_before_the_clock(uci):
    uci.send("position startpos")
    uci.send("debug on")
    uci.send("go wtime 3000 btime 3000 winc 0 binc 0")
    lines = uci.read_until("bestmove", PROMPT)
    uci.send("debug off")
    limits = next(line for line in lines if line.startswith("info string limits")).split()
    assert float(limits[limits.index("hard") + 1]) <= (3000 - 20) * 0.4 / 1000, limits


def test_ponder_then_ponderhit_becomes_a_timed_search(uci):
    uci.send("setoption name Ponder value true")
    uci.send("position startpos moves e2e4 e7e5")
    uci.send("go ponder wtime 2000 btime 2000 winc 0 binc 0")
    uci.no_line_starting("bestmove", 1.5)  # past the hard limit of a normal search: still pondering
    uci.send("ponderhit")
    lines = uci.read_until("bestmove", PROMPT)
    assert bestmove_of(lines)
    uci.send("setoption name Ponder value false")
    uci.ready()


def test_ponder_then_stop_answers_at_once(uci):
    uci.send("position startpos moves e2e4 e7e5")
    uci.send("go ponder wtime 100000 btime 100000")
    uci.no_line_starting("bestmove", 0.5)
    uci.send("stop")
    uci.read_until("bestmove", PROMPT)


# --- Chess960 -----------------------------------------------------------------
def test_chess960_castling_is_king_takes_rook_when_enabled(uci):
    fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    uci.send(f"position fen {fen}")
    uci.send("go depth 2 searchmoves e1g1")
    assert bestmove_of(uci.read_until("bestmove", 10)) == "e1g1"
    uci.send("setoption name UCI_Chess960 value true")
    uci.send(f"position fen {fen}")
    uci.send("go depth 2 searchmoves e1h1")
    assert bestmove_of(uci.read_until("bestmove", 10)) == "e1h1"
    uci.send(f"position fen {fen} moves e1h1")
    assert fen_of(uci).startswith("r3k2r/8/8/8/8/8/8/R4RK1 b")
    uci.send(f"position fen {CHESS960_FEN}")
    uci.send("go depth 3")
    move = bestmove_of(uci.read_until("bestmove", 20))
    assert chess.Move.from_uci(move) in chess.Board(CHESS960_FEN, chess960=True).legal_moves
    uci.send("setoption name UCI_Chess960 value false")
    uci.ready()


# --- bad input ----------------------------------------------------------------
def test_unknown_command(uci):
    expect_error(uci, "xyzzy 1 2 3", "unknown command 'xyzzy'")


def test_malformed_fen_leaves_the_position(uci):
    uci.send("position startpos moves e2e4")
    for fen in (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",  # 7 ranks
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",  # side
        "8/8/8/8/8/8/8/8 w - - 0 1",  # no kings
        "garbage",
    ):
        expect_error(uci, f"position fen {fen}", "position unchanged")
        assert fen_of(uci) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    expect_error(uci, "position", "position needs")
    expect_error(uci, "position fen", "position needs")
    expect_error(uci, "position sideways", "position needs")
    expect_error(uci, "position moves e2e4", "position needs")
    assert fen_of(uci) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


@pytest.mark.parametrize("bad", ["e2e5", "e7e5", "e2e4e", "z9z9", "e1g1", "0000x"])
def test_illegal_or_malformed_move_keeps_the_moves_before(uci, bad):
    expect_error(uci, f"position startpos moves d2d4 d7d5 {bad} g1f3", "move 3")
    assert fen_of(uci) == "rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 0 2"
    uci.send("go depth 1")
    uci.read_until("bestmove", 10)


@pytest.mark.parametrize(
    "go",
    ["go depth abc", "go wtime x btime 1000", "go movetime -5", "go nodes", "go depth 2 frobnicate 3", "go mate 1.5"],
)
def test_bad_go_parameters_are_reported_and_ignored(uci, go):
    uci.send("position startpos")
    uci.send(go + " movetime 200")
    lines = uci.read_until("bestmove", 10)
    assert errors_in(lines), lines
    uci.ready()


@pytest.mark.parametrize(
    "go",
    [
        "go nodes 9223372036854775808",
        "go depth 9223372036854775808",
        "go movetime 9223372036854775808",
        "go wtime 9223372036854775808 btime 9223372036854775808 winc 9223372036854775808 movestogo 2147483648",
        "go mate 9223372036854775808",
    ],
)
def test_limits_past_64_bits_search_until_stop(uci, go):
    """Numbers too large for any counter are read as 2^62: the search runs (no overflow), and ``stop`` ends it."""
    uci.send("position startpos")
    uci.send(go)
    uci.read_until("info depth 2", PROMPT)
    uci.send("stop")
    lines = uci.read_until("bestmove", PROMPT)
    assert not errors_in(lines), lines
    assert chess.Move.from_uci(bestmove_of(lines)) in chess.Board().legal_moves


def test_unknown_option_and_bad_values(uci):
    expect_error(uci, "setoption name NoSuchOption value 3", "unknown option 'NoSuchOption'")
    expect_error(uci, "setoption name Hash value 0", "out of range")
    expect_error(uci, "setoption name Hash value 99999999", "out of range")
    expect_error(uci, "setoption name Threads value many", "integer")
    expect_error(uci, "setoption name Ponder value maybe", "true or false")
    expect_error(uci, "setoption name MultiPV", "needs a value")
    expect_error(uci, "setoption value 3", "name")
    expect_error(uci, "setoption name BookFile value /no/such/book.bin", "BookFile")
    uci.send("setoption name multipv value 2")  # names are case-insensitive
    uci.send("position startpos")
    uci.send("go depth 2")
    lines = uci.read_until("bestmove", 10)
    assert any(" multipv 2 " in line for line in lines), lines
    uci.send("setoption name MultiPV value 1")
    uci.ready()


def test_very_long_lines(uci):
    expect_error(uci, "position startpos moves " + "e2e4 " * 300_000, "ignored")
    expect_error(uci, "x" * 100_000, "unknown command")
    moves = ["g1f3", "g8f6", "f3g1", "f6g8"] * 100  # 400 legal moves: accepted
    uci.send("position startpos moves " + " ".join(moves))
    lines = uci.ready()
    assert not errors_in(lines), lines
    assert fen_of(uci).startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 400")


def test_go_before_any_position(engine):
    engine.send("go depth 2")
    lines = engine.read_until("bestmove", 10)
    assert any("go before position" in line for line in errors_in(lines)), lines
    assert chess.Move.from_uci(bestmove_of(lines)) in chess.Board().legal_moves
    engine.ready()


def test_empty_and_blank_lines_are_ignored(uci):
    uci.send("")
    uci.send("   \t ")
    assert not errors_in(uci.ready())


def test_end_of_input_means_quit(warm_cache):
    pipe = UciPipe()
    pipe.send("uci")
    pipe.read_until("uciok")
    pipe.send("position startpos")
    pipe.send("go infinite")
    time.sleep(0.2)
    pipe.process.stdin.close()
    assert pipe.process.wait(60) == 0


def test_bench_reports_a_node_count(uci):
    uci.send("bench 2")
    lines = uci.read_until("Nodes/second", 120)
    nodes = next(line for line in lines if line.startswith("Nodes searched"))
    assert int(nodes.split(":")[1]) > 0
    uci.ready()


def test_warm_start_says_nothing_before_readyok(warm_cache):
    pipe = UciPipe()
    try:
        pipe.send("uci")
        pipe.read_until("uciok", 30)
        lines = pipe.ready(60)
        assert not [line for line in lines if line.startswith("info string")], lines
    finally:
        assert pipe.close() == 0


def test_options_set_while_loading_are_applied(warm_cache):
    pipe = UciPipe()
    try:
        pipe.send("uci")
        pipe.send("setoption name MultiPV value 2")  # before isready: the engine may still be loading
        pipe.send("position startpos")
        pipe.send("go depth 2")
        lines = pipe.read_until("bestmove", 60)
        assert any(line.startswith("info depth 2 ") and " multipv 2 " in line for line in lines), lines
    finally:
        assert pipe.close() == 0


@pytest.mark.slow
def test_cold_start_says_it_is_compiling(tmp_path):
    """An empty cache: uci at once, one info string about compiling, then readyok and a search."""
    pipe = UciPipe(env=dict(os.environ, JITFISH_CACHE_DIR=str(tmp_path)))
    try:
        pipe.send("uci")
        pipe.read_until("uciok", PROMPT)
        lines = pipe.ready(COLD_START_TIMEOUT)
        said = [line for line in lines if line.startswith("info string")]
        assert len(said) == 1 and said[0].startswith("info string compiling the search kernels"), lines
        pipe.send("position startpos")
        pipe.send("go depth 3")
        pipe.read_until("bestmove", 30)
    finally:
        assert pipe.close() == 0


def test_long_search_reports_currmove_and_currmovenumber_of_legal_root_moves(uci):
    uci.send("position startpos moves e2e4")
    uci.send("go movetime 2500")
    lines = uci.read_until("bestmove", 30)
    reports = [line.split() for line in lines if " currmove " in line]
    assert reports, lines
    after_e4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
    legal = {move.uci() for move in after_e4.legal_moves}
    for words in reports:
        assert words[0:2] == ["info", "depth"] and int(words[2]) >= 1
        assert words[3] == "currmove" and words[4] in legal
        assert words[5] == "currmovenumber" and 1 <= int(words[6]) <= len(legal)
    uci.ready()


def test_go_mate_after_pondered_games_answers_once_the_mate_is_found(uci):
    # Issue 15's transcript: two pondered searches leave history and table entries behind, then
    # ``go mate 2`` must find 1.Ra6 bxa6 2.b7# and answer by itself, without ``stop``.
    uci.send("setoption name Ponder value true")
    uci.send("position startpos moves e2e4 e7e5 g1f3 b8c6")
    uci.send("go ponder wtime 4000 btime 4000 winc 0 binc 0")
    uci.send("ponderhit")
    uci.read_until("bestmove", 30)
    uci.send("position startpos moves d2d4 d7d5")
    uci.send("go ponder wtime 4000 btime 4000 winc 0 binc 0")
    uci.send("stop")
    uci.read_until("bestmove", 30)
    uci.send("setoption name Ponder value false")
    uci.send("position fen kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1")
    uci.send("go mate 2")
    lines = uci.read_until("bestmove", 30)
    assert lines[-1].startswith("bestmove a1a6")
    scores = [line for line in lines if " score " in line]
    assert "score mate 2" in scores[-1]
