"""``jitfish --tune``: the search parameters as UCI options, changed for the next search without recompiling."""

from __future__ import annotations

import threading
import time

import pytest

from jitfish.search.params import BY_NAME, FIELDS, INDEX, default_params
from jitfish.uci.options import OptionTable, uci_line
from jitfish.uci.protocol import UciProtocol
from tests.uci.conftest import ENGINE_COMMAND, READY_TIMEOUT, UciPipe, errors_in

TUNE_COMMAND = ENGINE_COMMAND + ["--tune"]
# A middlegame where null-move and futility pruning both fire at depth 7.
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8"


def test_every_search_parameter_is_a_spin_option_with_its_range():
    lines = [uci_line(spec) for spec in OptionTable(tune=True)]
    defaults = default_params()
    for index, field in enumerate(FIELDS):
        assert f"option name {field.name} type spin default {defaults[index]} min {field.low} max {field.high}" in lines
    assert "option name RFP_MARGIN type spin default 71 min 20 max 250" in lines


@pytest.fixture
def tuned(warm_cache) -> UciPipe:
    pipe = UciPipe(TUNE_COMMAND)
    pipe.send("uci")
    lines = pipe.read_until("uciok", 60)
    pipe.ready()
    pipe.uci_lines = lines
    yield pipe
    pipe.close()


def test_tune_mode_lists_the_parameters_and_the_plain_engine_does_not(tuned, warm_cache):
    assert "option name SE_MARGIN type spin default 2 min 1 max 8" in tuned.uci_lines
    assert "option name Hash type spin default 16 min 1 max 32768" in tuned.uci_lines
    plain = UciPipe()
    try:
        plain.send("uci")
        lines = plain.read_until("uciok", 60)
    finally:
        plain.close()
    assert not [line for line in lines if any(f"name {field.name} " in line for field in FIELDS)]


@pytest.mark.parametrize(
    "command, error",
    [
        ("setoption name RFP_MARGIN value 5000", "out of range [20, 250]"),
        ("setoption name RFP_MARGIN value wide", "takes an integer"),
        ("setoption name NO_SUCH_MARGIN value 3", "unknown option"),
    ],
)
def test_bad_values_are_reported_and_the_engine_keeps_running(tuned, command, error):
    tuned.send(command)
    lines = tuned.ready()
    assert any(error in line for line in errors_in(lines)), lines
    tuned.send("position startpos")
    tuned.send("go depth 3")
    assert tuned.read_until("bestmove", READY_TIMEOUT)[-1].startswith("bestmove ")


class _Session:
    """An in-process ``--tune`` session with the real engine: lines in, lines collected."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self.protocol = UciProtocol(self._send, tune=True)

    def _send(self, line: str) -> None:
        with self._changed:
            self.lines.append(line)
            self._changed.notify_all()

    def wait_for(self, prefix: str, start: int, timeout: float = 300.0) -> list[str]:
        """The lines from ``start`` on, once one of them starts with ``prefix``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not any(line.startswith(prefix) for line in self.lines[start:]):
                assert self._changed.wait(max(deadline - time.monotonic(), 0.001)), self.lines[-20:]
            return self.lines[start:]

    def nodes_at_depth(self, depth: int) -> int:
        self.protocol.handle("ucinewgame")
        self.protocol.handle(f"position fen {MIDDLEGAME}")
        start = len(self.lines)
        self.protocol.handle(f"go depth {depth}")
        self.wait_for("bestmove", start)
        infos = [line.split() for line in self.lines[start:] if line.startswith("info depth")]
        return int(infos[-1][infos[-1].index("nodes") + 1])


def test_setoption_changes_a_fixed_depth_search_without_recompiling(warm_cache):
    from jitfish.search.negamax import negamax

    session = _Session()
    session.protocol.handle("uci")
    session.protocol.handle("isready")  # answers once the engine is loaded
    assert "readyok" in session.lines
    default_nodes = session.nodes_at_depth(7)
    compiled = dict(negamax.overloads)
    assert session.nodes_at_depth(7) == default_nodes  # deterministic after ucinewgame
    session.protocol.handle(f"setoption name RFP_MARGIN value {BY_NAME['RFP_MARGIN'].high}")
    session.protocol.handle(f"setoption name NMP_BASE_REDUCTION value {BY_NAME['NMP_BASE_REDUCTION'].low}")
    changed_nodes = session.nodes_at_depth(7)
    assert changed_nodes != default_nodes
    assert not errors_in(session.lines)
    # The same machine code ran: no new specialisation, the same compiled overload.
    assert dict(negamax.overloads) == compiled
    defaults = default_params()
    for name in ("RFP_MARGIN", "NMP_BASE_REDUCTION"):
        session.protocol.handle(f"setoption name {name} value {defaults[INDEX[name]]}")
    assert session.nodes_at_depth(7) == default_nodes
    session.protocol.handle("quit")
