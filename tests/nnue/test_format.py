"""The network file, version 1: a round trip, the byte layout, and a clear ValueError for each bad file."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from jitfish.nnue.format import (
    CRELU, FORMAT_VERSION, HEADER, MAGIC, MAX_HIDDEN, SCRELU, Network, file_size, network_from_bytes,
    network_to_bytes, read_network, write_network,
)
from tests.nnue.networks import random_network


def assert_same(a: Network, b: Network) -> None:
    assert (a.hidden, a.activation, a.qa, a.qb, a.scale, a.output_bias) == \
           (b.hidden, b.activation, b.qa, b.qb, b.scale, b.output_bias)
    for name in ("feature_weights", "feature_bias", "output_weights"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@pytest.mark.parametrize("hidden, activation", [(1, CRELU), (16, SCRELU), (128, CRELU)])
def test_a_network_round_trips_through_a_file(tmp_path, hidden, activation):
    net = random_network(seed=hidden, hidden=hidden, activation=activation)
    path = tmp_path / "net.nnue"
    write_network(path, net)
    assert path.stat().st_size == file_size(hidden) == 16 + 2 * (768 * hidden + 3 * hidden) + 4
    assert_same(read_network(path), net)
    assert not (tmp_path / "net.nnue.tmp").exists()


def test_the_bytes_are_laid_out_as_documented():
    weights = np.zeros((768, 2), dtype=np.int16)
    weights[0, 1], weights[767, 0] = 0x0102, -2
    net = Network(weights, [3, -4], [5, 6, 7, -8], output_bias=-70_000, activation=SCRELU, qa=255, qb=64, scale=410)
    data = network_to_bytes(net)
    assert HEADER.size == 16
    assert data[:16] == b"JFNN" + struct.pack("<6H", 1, 2, SCRELU, 255, 64, 410)
    assert data[16:20] == b"\x00\x00\x02\x01"                               # feature 0, neurons 0 and 1
    assert data[16 + 2 * 2 * 767:16 + 2 * 2 * 768] == b"\xfe\xff\x00\x00"   # feature 767
    tail = data[16 + 2 * 2 * 768:]
    assert tail == struct.pack("<2h4hi", 3, -4, 5, 6, 7, -8, -70_000)


def header(**fields) -> bytes:
    values = dict(magic=MAGIC, version=FORMAT_VERSION, hidden=4, activation=CRELU, qa=255, qb=64, scale=400)
    values.update(fields)
    return HEADER.pack(*values.values())


def padded(head: bytes, hidden: int = 4) -> bytes:
    return head + bytes(file_size(hidden) - HEADER.size)


@pytest.mark.parametrize("data, message", [
    (padded(header(magic=b"NNUE")), "not a Jitfish network: magic b'NNUE'"),
    (padded(header(version=2)), "format version 2, this reader knows 1"),
    (padded(header(hidden=0)), "hidden size 0 is not in"),
    (header(hidden=MAX_HIDDEN + 1), f"hidden size {MAX_HIDDEN + 1} is not in"),
    (padded(header(activation=7)), "unknown activation id 7"),
    (padded(header(qa=0)), "QA 0 is not in"),
    (padded(header(scale=0)), "output scale 0 is not in"),
    (b"JFNN\x01\x00", "truncated: 6 bytes, the header alone is 16"),
    (padded(header())[:-1], f"truncated: {file_size(4) - 1} bytes, hidden size 4 needs {file_size(4)}"),
    (padded(header()) + b"\x00", f"trailing bytes: {file_size(4) + 1} bytes"),
])
def test_a_bad_file_is_refused_with_a_value_error_saying_why(tmp_path, data, message):
    path = tmp_path / "bad.nnue"
    path.write_bytes(data)
    with pytest.raises(ValueError, match="bad.nnue: " + message.replace("(", r"\(").replace(")", r"\)")):
        read_network(path)


def test_a_well_formed_header_with_zero_weights_reads():
    net = network_from_bytes(padded(header()))
    assert net.hidden == 4 and not net.feature_weights.any() and net.output_bias == 0


@pytest.mark.parametrize("change, message", [
    (dict(feature_bias=[40_000, 0]), "feature_bias holds values outside int16"),
    (dict(output_weights=[1, 2, 3]), r"output_weights must have shape \(4,\)"),
    (dict(feature_weights=np.zeros((767, 2), dtype=np.int16)), r"feature_weights must have shape \(768, 2\)"),
    (dict(output_bias=2 ** 31), "output_bias holds values outside int32"),
    (dict(feature_bias=[0.5, 1.0]), "feature_bias must hold integers"),
    (dict(qb=0), "QB 0 is not in"),
])
def test_a_network_that_cannot_be_stored_is_refused(change, message):
    fields = dict(feature_weights=np.zeros((768, 2), dtype=np.int16), feature_bias=[0, 0],
                  output_weights=[0, 0, 0, 0], output_bias=0)
    fields.update(change)
    with pytest.raises(ValueError, match=message):
        Network(**fields)
