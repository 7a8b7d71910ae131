"""Limits, the stop flag, determinism, and the public result."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import time

import numpy as np

import jitfish
from jitfish.board.moves import move_from_to
from jitfish.search import Searcher, SearchLimits
from jitfish.search import buffers as B
from jitfish.search.timeman import TimeController
from jitfish.types import MAX_PLY

MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8"


def test_result_fields(fresh):
    infos = []
    result = fresh.search(jitfish.Board(), SearchLimits(depth=5), on_info=infos.append)
    assert result.depth == 5 and [i.depth for i in infos] == [1, 2, 3, 4, 5]
    assert result.best_move == result.pv[0] and result.ponder_move == result.pv[1]
    assert result.nodes > 0 and result.time > 0 and result.seldepth >= 5
    assert infos[-1].bound == ""
    board = jitfish.Board()
    for move in result.pv:  # the PV is a legal line
        board.push_uci(move)


def test_root_moves_count_the_nodes_searched_under_them(fresh):
    board = jitfish.Board(MIDDLEGAME)
    result = fresh.search(board, SearchLimits(depth=7))
    worker = fresh.workers[0]
    spent = worker.control[B.C_ROOT_NODES : B.C_ROOT_NODES + B.ROOT_NODES_SIZE]
    legal = {move_from_to(int(m)) for m in board.position.legal_moves()}
    assert set(np.flatnonzero(spent)) <= legal
    # Every node but the root's own visits (one per iteration and re-search) lies under a root move.
    assert result.nodes - 100 < spent.sum() < result.nodes
    assert worker.control[B.C_ROOT_NODES_TOTAL] == spent.sum()
    best = board.parse_uci(result.best_move)
    assert worker.effort(best) == spent[move_from_to(best)] / spent.sum() > 0.2


def test_node_limit(fresh):
    result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(nodes=20000))
    assert 20000 <= result.nodes < 20000 + 2048


def test_a_small_node_limit_holds_exactly_and_depth_one_gives_every_line(fresh):
    assert 300 <= fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(nodes=300)).nodes < 300 + 64
    infos = []
    result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(nodes=10), on_info=infos.append, multipv=4)
    assert [info.multipv for info in infos if info.depth == 1] == [1, 2, 3, 4]
    assert result.best_move == infos[0].pv[0] and result.depth == 1


def test_soft_node_limit_ends_on_the_first_iteration_past_it(fresh):
    infos = []
    result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(soft_nodes=5000, nodes=40000), on_info=infos.append)
    assert infos[-2].nodes < 5000 <= infos[-1].nodes < 40000
    assert result.depth == infos[-1].depth and result.score == infos[-1].score


def test_hashfull(fresh):
    assert fresh.hashfull() == 0
    fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(nodes=300000))
    assert 0 < fresh.hashfull() <= 1000
    fresh.resize(1)
    assert fresh.hashfull() == 0
    fresh.resize(16)


def test_searchmoves(fresh):
    result = fresh.search(jitfish.Board(), SearchLimits(depth=4, searchmoves=["a2a3", "h2h3"]))
    assert result.best_move in ("a2a3", "h2h3")


def test_multipv_lines_differ(fresh):
    infos = []
    fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=4), on_info=infos.append, multipv=3)
    last = [i for i in infos if i.depth == 4]
    assert [i.multipv for i in last] == [1, 2, 3]
    assert len({i.pv[0] for i in last}) == 3
    assert last[0].score_cp >= last[1].score_cp >= last[2].score_cp


def test_movetime(fresh):
    """The search ends by itself (a hang fails at the generous deadline; the latency is a benchmark's)."""
    thread = threading.Thread(target=fresh.search, args=(jitfish.Board(MIDDLEGAME), SearchLimits(movetime=0.3)))
    thread.start()
    thread.join(10.0)
    assert not thread.is_alive(), "a 0.3 s movetime search still runs after 10 s"


def test_stop_from_another_thread(fresh):
    """An infinite search stops at once on stop(): every node checks the flag, so only a handful more are searched.

    Counted in nodes, not milliseconds, so that a busy machine cannot fail it (the latency in time is a
    benchmark's business: ``scripts/bench/bench_uci.py``).
    """
    results = []
    thread = threading.Thread(
        target=lambda: results.append(fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(infinite=True)))
    )
    thread.start()
    time.sleep(0.5)
    assert thread.is_alive()
    worker = fresh.workers[0]
    fresh.stop()
    nodes_after_the_flag = worker.nodes  # every node counted from here on began after the flag was set
    thread.join(5)
    assert not thread.is_alive()
    assert worker.nodes - nodes_after_the_flag < MAX_PLY
    assert jitfish.Board(MIDDLEGAME).is_legal(results[0].best_move)


def _search_in_a_thread(searcher: Searcher, timer: TimeController) -> tuple[threading.Thread, list]:
    results: list = []
    thread = threading.Thread(
        target=lambda: results.append(searcher.search(jitfish.Board(MIDDLEGAME), SearchLimits(), timer=timer))
    )
    thread.start()
    return thread, results


def test_a_released_clock_turns_an_infinite_search_into_a_timed_one(fresh):
    """What ``ponderhit`` does: the caller's clock gets deadlines, and the search keeps them."""
    timer = TimeController(pondering=True)
    thread, results = _search_in_a_thread(fresh, timer)
    time.sleep(0.2)
    timer.release(0.1, 0.2)
    thread.join(5)
    assert not thread.is_alive() and results


def test_stopping_the_callers_clock_stops_the_search(fresh):
    """The engine stops the clock it gave the search, and only that: the watchdog raises the threads' flags."""
    timer = TimeController(pondering=True)
    thread, results = _search_in_a_thread(fresh, timer)
    time.sleep(0.3)
    assert thread.is_alive()
    timer.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert fresh.workers[0].stopped
    assert jitfish.Board(MIDDLEGAME).is_legal(results[0].best_move)


def test_a_clock_stopped_before_the_search_gives_a_searched_move(fresh):
    """A ``stop`` that comes before the search begins (the engine's book or tablebase step): depth 1 only."""
    timer = TimeController()
    timer.stop()
    result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(), timer=timer)
    assert result.depth == 1 and jitfish.Board(MIDDLEGAME).is_legal(result.best_move)


def _watchers() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.name == "jitfish-watcher"}


def test_one_watcher_serves_every_search_and_ends_with_its_searcher():
    """The watchdog is one thread for a searcher's life, not one a search, and it goes with the searcher."""
    before = _watchers()
    searcher = Searcher(hash_mb=1)
    for _ in range(3):
        result = searcher.search(jitfish.Board(MIDDLEGAME), SearchLimits(movetime=0.05))
        assert jitfish.Board(MIDDLEGAME).is_legal(result.best_move)
    (watcher,) = _watchers() - before
    del searcher, result
    gc.collect()
    watcher.join(5)
    assert not watcher.is_alive()


def test_a_forked_process_gets_a_watcher_of_its_own(fresh):
    """A fork keeps the searcher but not its threads: the child's first search starts a new watcher."""
    fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(movetime=0.05))
    pid = os.fork()
    if pid == 0:  # the child: exit status 0 only if its search was watched
        try:
            fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(movetime=0.05))
            os._exit(0 if any(thread.is_alive() for thread in _watchers()) else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_currmove_is_reported_during_a_long_search_and_never_after_it(fresh):
    reports: list[tuple[float, int, str, int]] = []
    result = fresh.search(
        jitfish.Board(MIDDLEGAME),
        SearchLimits(movetime=1.6),
        on_currmove=lambda depth, move, number: reports.append((time.perf_counter(), depth, move, number)),
    )
    answered = time.perf_counter()
    time.sleep(0.6)  # two more polls, were the watcher still reporting
    legal = jitfish.Board(MIDDLEGAME).legal_moves()
    assert reports
    for at, depth, move, number in reports:
        assert at < answered and depth >= 1 and move in legal and 1 <= number <= len(legal)
    assert result.time >= 1.0


def test_deterministic_with_fresh_table():
    runs = []
    for _ in range(2):
        engine = Searcher(hash_mb=16)
        result = engine.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=8))
        runs.append((result.nodes, result.best_move, result.score_cp))
    assert runs[0] == runs[1]


def test_clear_restores_determinism(fresh):
    first = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=7)).nodes
    fresh.clear()
    assert fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=7)).nodes == first


def test_board_not_modified(fresh):
    board = jitfish.Board(MIDDLEGAME)
    board.push_uci("a2a3")
    before = (board.fen(), board.move_stack, board.zobrist())
    fresh.search(board, SearchLimits(depth=5))
    assert (board.fen(), board.move_stack, board.zobrist()) == before


def test_convenience_function():
    result = jitfish.search(jitfish.Board(), depth=3)
    assert result.depth == 3 and result.best_move in jitfish.Board().legal_moves()


def test_lazy_smp_threads(fresh):
    """Two threads search to the same answers as one: a legal move, and the queen that hangs is taken."""
    fresh.set_threads(2)
    try:
        result = fresh.search(jitfish.Board(MIDDLEGAME), SearchLimits(depth=7))
        assert jitfish.Board(MIDDLEGAME).is_legal(result.best_move)
        result = fresh.search(jitfish.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1"), SearchLimits(depth=6))
        assert result.best_move == "d1d5" and result.score_cp > 400, (result.best_move, result.score_cp)
    finally:
        fresh.set_threads(1)


_SCRIPT = (
    "from jitfish.search.bench import run_bench; nodes, _ = run_bench(depth=4, positions=8, quiet=True); print(nodes)"
)


def test_two_fresh_processes_load_the_cached_search():
    """A search runs in two new processes in a row (the second loads every kernel from cache,
    the case where a cached recursive kernel can crash), and both count the same nodes."""
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        outputs.append(int(done.stdout.split()[-1]))
    assert outputs[0] == outputs[1] > 0


def test_a_search_stopped_before_depth_one_finishes_still_plays_a_searched_move(fresh, monkeypatch):
    from jitfish.search import worker

    # Poll the node limit at every node, so that a limit of one node stops depth 1 at its first node.
    monkeypatch.setattr(worker, "POLL_NODES", 1)
    board = jitfish.Board("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1")  # Rxd5 wins the queen; Kf1 is generated first
    assert board.legal_moves()[0] != "d1d5"
    result = fresh.search(board, SearchLimits(nodes=1))
    assert result.best_move == "d1d5" and result.depth == 1
