"""``EvalFile`` and ``Use NNUE``: the engine searches with a network file when asked (the shipped one when
no file was set), reports a bad file as an error and keeps the network it had, and returns to the
hand-written evaluation when told.  The expected scores come from the NumPy reference
(:mod:`jitfish.nnue.reference`), not from the engine's inference kernel."""

from __future__ import annotations

import chess

from jitfish.nnue.format import shipped_network, write_network
from jitfish.nnue.reference import evaluate
from tests.nnue.conftest import PINNED_FENS, PINNED_SCORES, SHIPPED_NETWORKS, VERSION_2_NETWORKS
from tests.nnue.networks import random_network
from tests.uci.conftest import errors_in

# Blocked pawns, kings apart: a one-ply search scores each reply by the static evaluation after it.
QUIET_FEN = "4k3/4p3/4P3/8/8/8/8/4K3 w - - 0 1"


def one_ply_score(uci) -> int:
    uci.send(f"position fen {QUIET_FEN}")
    uci.send("go depth 1")
    lines = uci.read_until("bestmove", 30)
    info = [line.split() for line in lines if " score cp " in line][-1]
    return int(info[info.index("cp") + 1])


def network_score(net) -> int:
    """What :func:`one_ply_score` must print when ``net`` evaluates."""
    board = chess.Board(QUIET_FEN)
    scores = []
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        scores.append(-evaluate(net, child))
    return max(scores)


def test_the_engine_searches_with_the_network_it_is_given_and_keeps_it_on_a_bad_file(uci, tmp_path):
    net = random_network(seed=41, hidden=16)
    path = tmp_path / "net.jfnn"
    write_network(path, net)
    uci.send("setoption name Use NNUE value false")
    hand_written = one_ply_score(uci)
    uci.send(f"setoption name EvalFile value {path}")
    uci.send("setoption name Use NNUE value true")
    lines = uci.ready()
    assert not errors_in(lines) and any("768 -> 16 -> 1" in line for line in lines), lines
    assert one_ply_score(uci) == network_score(net) != hand_written
    uci.send("eval")
    report = uci.read_until("NNUE evaluation", 10)[-1]
    assert f"[{evaluate(net, QUIET_FEN):+d} cp side to move] (searched with)" in report
    for bad in (tmp_path / "missing.jfnn", tmp_path):
        uci.send(f"setoption name EvalFile value {bad}")
        errors = errors_in(uci.ready())
        assert errors and "EvalFile" in errors[0]
        assert one_ply_score(uci) == network_score(net)  # the engine keeps its network
    uci.send("setoption name Use NNUE value false")
    assert one_ply_score(uci) == hand_written
    uci.send("setoption name EvalFile value <empty>")
    assert not errors_in(uci.ready())


def test_a_fresh_engine_searches_with_the_shipped_network_until_use_nnue_is_off(engine):  # a fresh process
    shipped = shipped_network()
    assert one_ply_score(engine) == network_score(shipped)
    engine.send("setoption name Use NNUE value false")
    assert not errors_in(engine.ready())
    assert one_ply_score(engine) != network_score(shipped)
    engine.send("setoption name Use NNUE value true")
    lines = engine.ready()
    assert not errors_in(lines)
    assert one_ply_score(engine) == network_score(shipped)


def test_every_shipped_network_loads_through_evalfile_and_gives_its_old_evaluations(uci):
    """The files of every default the project shipped before K-1 (E-1 to J-1 included) still load, and
    ``eval`` prints the scores they gave when they were current (``tests/nnue/conftest.py``)."""
    shipped = [(path, pinned, "768 -> 64 -> 1") for path, pinned in zip(SHIPPED_NETWORKS, PINNED_SCORES)]
    version_2 = [(path, pinned, f"768 -> {hidden} -> 1 x 8 buckets") for path, hidden, pinned in VERSION_2_NETWORKS]
    for path, pinned, shape in [*shipped, *version_2]:
        uci.send(f"setoption name EvalFile value {path}")
        lines = uci.ready()
        assert not errors_in(lines) and any(f"network {path}: {shape}" in line for line in lines), lines
        for fen, score in zip(PINNED_FENS, pinned):
            uci.send(f"position fen {fen}")
            uci.send("eval")
            assert f"[{score:+d} cp side to move]" in uci.read_until("NNUE evaluation", 10)[-1], (path, fen)
    uci.send("setoption name EvalFile value <empty>")
    assert not errors_in(uci.ready())


def test_a_network_with_eight_output_buckets_is_searched_with(uci, tmp_path):
    net = random_network(seed=42, hidden=16, buckets=8)
    path = tmp_path / "bucketed.nnue"
    write_network(path, net)
    uci.send(f"setoption name EvalFile value {path}")
    uci.send("setoption name Use NNUE value true")
    lines = uci.ready()
    assert not errors_in(lines) and any("768 -> 16 -> 1 x 8 buckets" in line for line in lines), lines
    assert one_ply_score(uci) == network_score(net)
    uci.send("setoption name EvalFile value <empty>")
    assert not errors_in(uci.ready())
