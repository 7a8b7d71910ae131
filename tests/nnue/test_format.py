"""The network file, versions 1 and 2: a round trip, the byte layouts, every network the project shipped
(version 1) reading as before, and a clear ValueError for each bad file."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from jitfish.nnue.format import (
    CRELU,
    FORMAT_VERSION,
    HEADERS,
    MAGIC,
    MAX_BUCKETS,
    MAX_HIDDEN,
    SCRELU,
    SHIPPED_NETWORK,
    Network,
    file_size,
    network_from_bytes,
    network_to_bytes,
    read_network,
    write_network,
)
from tests.nnue.conftest import DEFAULT_HIDDEN, SHIPPED_NETWORKS, VERSION_2_NETWORKS
from tests.nnue.networks import random_network


def assert_same(a: Network, b: Network) -> None:
    assert (a.hidden, a.buckets, a.activation, a.qa, a.qb, a.scale) == (
        b.hidden,
        b.buckets,
        b.activation,
        b.qa,
        b.qb,
        b.scale,
    )
    for name in ("feature_weights", "feature_bias", "output_weights", "output_bias"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


@pytest.mark.parametrize(
    "hidden, activation, buckets", [(1, CRELU, 1), (16, SCRELU, 8), (128, CRELU, 1), (64, SCRELU, MAX_BUCKETS)]
)
def test_a_network_round_trips_through_a_file(tmp_path, hidden, activation, buckets):
    net = random_network(seed=hidden, hidden=hidden, activation=activation, buckets=buckets)
    path = tmp_path / "net.nnue"
    write_network(path, net)
    assert (
        path.stat().st_size
        == file_size(hidden, buckets)
        == 18 + 2 * (768 * hidden + hidden + 2 * buckets * hidden) + 4 * buckets
    )
    assert_same(read_network(path), net)
    assert not (tmp_path / "net.nnue.tmp").exists()


def test_the_bytes_are_laid_out_as_documented():
    weights = np.zeros((768, 2), dtype=np.int16)
    weights[0, 1], weights[767, 0] = 0x0102, -2
    net = Network(
        weights,
        [3, -4],
        [[5, 6, 7, -8], [9, 10, 11, 12]],
        output_bias=[-70_000, 80_000],
        activation=SCRELU,
        qa=255,
        qb=64,
        scale=410,
    )
    data = network_to_bytes(net)
    assert FORMAT_VERSION == 2 and HEADERS[2].size == 18
    assert data[:18] == b"JFNN" + struct.pack("<7H", 2, 2, SCRELU, 255, 64, 410, 2)
    assert data[18:22] == b"\x00\x00\x02\x01"  # feature 0, neurons 0 and 1
    assert data[18 + 2 * 2 * 767 : 18 + 2 * 2 * 768] == b"\xfe\xff\x00\x00"  # feature 767
    tail = data[18 + 2 * 2 * 768 :]
    assert tail == struct.pack("<2h8h2i", 3, -4, 5, 6, 7, -8, 9, 10, 11, 12, -70_000, 80_000)


def version_1_bytes(net: Network) -> bytes:
    """``net`` (one bucket) as the version-1 writer wrote it: a 16-byte header without the buckets field."""
    header = HEADERS[1].pack(MAGIC, 1, net.hidden, net.activation, net.qa, net.qb, net.scale)
    return header + b"".join(
        array.tobytes() for array in (net.feature_weights, net.feature_bias, net.output_weights, net.output_bias)
    )


def test_a_version_1_file_reads_as_one_bucket():
    net = Network(
        np.arange(768 * 2).reshape(768, 2) % 500,
        [3, -4],
        [5, 6, 7, -8],
        output_bias=-70_000,
        activation=SCRELU,
        qa=255,
        qb=64,
        scale=410,
    )
    data = version_1_bytes(net)
    assert HEADERS[1].size == 16 and len(data) == file_size(2, 1, version=1) == file_size(2) - 2
    assert data[:16] == b"JFNN" + struct.pack("<6H", 1, 2, SCRELU, 255, 64, 410)
    assert_same(network_from_bytes(data), net)
    assert network_from_bytes(data).output_bias.tolist() == [-70_000]


@pytest.mark.parametrize("path, hidden", [(path, 64) for path in SHIPPED_NETWORKS])
def test_every_shipped_network_is_a_version_1_file_that_still_reads(path, hidden):
    data = path.read_bytes()
    assert data[4:6] == b"\x01\x00" and len(data) == file_size(hidden, 1, version=1)
    net = read_network(path)
    assert (net.hidden, net.buckets, net.activation) == (hidden, 1, CRELU)
    assert network_from_bytes(network_to_bytes(net)).output_weights.tolist() == net.output_weights.tolist()


@pytest.mark.parametrize("path, hidden", [*(row[:2] for row in VERSION_2_NETWORKS), (SHIPPED_NETWORK, DEFAULT_HIDDEN)])
def test_f1_to_j1_and_the_default_network_k1_are_version_2_files_with_eight_buckets(path, hidden):
    data = path.read_bytes()
    assert path not in SHIPPED_NETWORKS
    assert data[4:6] == b"\x02\x00" and len(data) == file_size(hidden, 8)
    net = read_network(path)
    assert (net.hidden, net.buckets, net.activation) == (hidden, 8, SCRELU)


def header(version: int = FORMAT_VERSION, **fields) -> bytes:
    values = dict(magic=MAGIC, version=version, hidden=4, activation=CRELU, qa=255, qb=64, scale=400)
    if version == 2:
        values["buckets"] = 1
    values.update(fields)
    return HEADERS[version].pack(*values.values())


def padded(head: bytes, hidden: int = 4, buckets: int = 1, version: int = FORMAT_VERSION) -> bytes:
    return head + bytes(file_size(hidden, buckets, version) - HEADERS[version].size)


@pytest.mark.parametrize(
    "data, message",
    [
        (padded(header(magic=b"NNUE")), "not a Jitfish network: magic b'NNUE'"),
        (
            padded(HEADERS[1].pack(MAGIC, 3, 4, CRELU, 255, 64, 400), version=1),
            "format version 3, this reader knows 1, 2",
        ),
        (padded(header(hidden=0)), "hidden size 0 is not in"),
        (header(hidden=MAX_HIDDEN + 1), f"hidden size {MAX_HIDDEN + 1} is not in"),
        (padded(header(activation=7)), "unknown activation id 7"),
        (padded(header(qa=0)), "QA 0 is not in"),
        (padded(header(scale=0)), "output scale 0 is not in"),
        (padded(header(buckets=0)), "output buckets 0 is not in"),
        (padded(header(buckets=MAX_BUCKETS + 1)), f"output buckets {MAX_BUCKETS + 1} is not in"),
        (b"JFNN\x01", "truncated: 5 bytes, too short for a header"),
        (b"JFNN\x02\x00" + bytes(10), "truncated: 16 bytes, the version-2 header alone is 18"),
        (
            padded(header())[:-1],
            f"truncated: {file_size(4) - 1} bytes, hidden size 4 with 1 bucket needs {file_size(4)}",
        ),
        (padded(header()) + b"\x00", f"trailing bytes: {file_size(4) + 1} bytes"),
        (
            padded(header(buckets=8)),
            f"truncated: {file_size(4)} bytes, hidden size 4 with 8 buckets needs {file_size(4, 8)}",
        ),
        (padded(header(version=1), version=1) + bytes(2), "trailing bytes"),  # a version-2 length: no guessing
    ],
)
def test_a_bad_file_is_refused_with_a_value_error_saying_why(tmp_path, data, message):
    path = tmp_path / "bad.nnue"
    path.write_bytes(data)
    with pytest.raises(ValueError, match="bad.nnue: " + message.replace("(", r"\(").replace(")", r"\)")):
        read_network(path)


def test_a_well_formed_header_with_zero_weights_reads():
    net = network_from_bytes(padded(header()))
    assert net.hidden == 4 and net.buckets == 1 and not net.feature_weights.any() and net.output_bias.tolist() == [0]


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(feature_bias=[40_000, 0]), "feature_bias holds values outside int16"),
        (dict(output_weights=[1, 2, 3]), r"output_weights must have shape \(1, 4\)"),
        (dict(output_weights=[[1, 2, 3, 4]] * 2), r"output_bias must have shape \(2,\)"),
        (dict(output_weights=[[1, 2, 3, 4]] * 33, output_bias=[0] * 33), "output buckets 33 is not in"),
        (dict(feature_weights=np.zeros((767, 2), dtype=np.int16)), r"feature_weights must have shape \(768, 2\)"),
        (dict(output_bias=2**31), "output_bias holds values outside int32"),
        (dict(feature_bias=[0.5, 1.0]), "feature_bias must hold integers"),
        (dict(qb=0), "QB 0 is not in"),
    ],
)
def test_a_network_that_cannot_be_stored_is_refused(change, message):
    fields = dict(
        feature_weights=np.zeros((768, 2), dtype=np.int16),
        feature_bias=[0, 0],
        output_weights=[0, 0, 0, 0],
        output_bias=0,
    )
    fields.update(change)
    with pytest.raises(ValueError, match=message):
        Network(**fields)
