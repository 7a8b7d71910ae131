"""The network file, format version 1: a 16-byte header, then the quantised arrays, all little-endian.

=======  ============  =====================================================================
offset   type          field
=======  ============  =====================================================================
0        4 bytes       magic ``JFNN``
4        uint16        format version (1)
6        uint16        hidden size N (1..4096; 128 or 256 in practice)
8        uint16        activation: 0 clipped ReLU, 1 squared clipped ReLU
10       uint16        QA, the scale of the feature weights and biases (255)
12       uint16        QB, the scale of the output weights (64)
14       uint16        output scale: centipawns per unit of the float network's output (400)
16       int16[768N]   feature weights, feature-major: the N weights of feature f at ``16 + 2 N f``
..       int16[N]      feature biases
..       int16[2N]     output weights: N for the side to move's half, then N for the other side's
..       int32         output bias (scaled by QA * QB)
=======  ============  =====================================================================

A file is exactly ``16 + 2 * (768 N + N + 2 N) + 4`` bytes long; anything else is refused.  The float
network's values are the stored integers divided by QA (feature weights and biases), QB (output weights)
and QA * QB (output bias); :mod:`jitfish.nnue.reference` says how the integers are combined.
Fields are listed once in ``HEADER_FIELDS``; the header's layout is derived from that list.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jitfish.nnue.features import FEATURE_COUNT

MAGIC = b"JFNN"
FORMAT_VERSION = 1
MAX_HIDDEN = 4096
CRELU, SCRELU = 0, 1
ACTIVATION_NAMES = ("crelu", "screlu")
DEFAULT_QA, DEFAULT_QB, DEFAULT_SCALE = 255, 64, 400
SHIPPED_NETWORK = Path(__file__).with_name("default.nnue")   # the network the package ships (README, NNUE)

HEADER_FIELDS = (
    ("magic", "4s"),
    ("version", "H"),
    ("hidden", "H"),
    ("activation", "H"),
    ("qa", "H"),
    ("qb", "H"),
    ("scale", "H"),
)
HEADER = struct.Struct("<" + "".join(code for _, code in HEADER_FIELDS))
INT16, INT32 = np.dtype("<i2"), np.dtype("<i4")


def _int_array(name: str, values: object, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """``values`` as a little-endian array of ``dtype`` and ``shape``; a value that does not fit is refused."""
    array = np.asarray(values)
    if array.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, not {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, not {array.dtype}")
    limits = np.iinfo(dtype)
    if array.size and (array.min() < limits.min or array.max() > limits.max):
        raise ValueError(f"{name} holds values outside {dtype.name} [{limits.min}, {limits.max}]")
    return np.require(array, dtype=dtype, requirements="C")


def _check_header(hidden: int, activation: int, qa: int, qb: int, scale: int) -> None:
    if not 1 <= hidden <= MAX_HIDDEN:
        raise ValueError(f"hidden size {hidden} is not in 1..{MAX_HIDDEN}")
    if activation not in (CRELU, SCRELU):
        raise ValueError(f"unknown activation id {activation} (0 crelu, 1 screlu)")
    for name, value in (("QA", qa), ("QB", qb), ("output scale", scale)):
        if not 1 <= value <= 0xFFFF:
            raise ValueError(f"{name} {value} is not in 1..65535")


@dataclass(frozen=True)
class Network:
    """A quantised network: the arrays of the file and the constants that give them meaning."""

    feature_weights: np.ndarray     # int16 [768, N]
    feature_bias: np.ndarray        # int16 [N]
    output_weights: np.ndarray      # int16 [2N], the side to move's half first
    output_bias: int                # int32
    activation: int = CRELU
    qa: int = DEFAULT_QA
    qb: int = DEFAULT_QB
    scale: int = DEFAULT_SCALE

    def __post_init__(self) -> None:
        weights = np.asarray(self.feature_weights)
        if weights.ndim != 2:
            raise ValueError(f"feature_weights must be [{FEATURE_COUNT}, N], not {weights.shape}")
        hidden = weights.shape[1]
        _check_header(hidden, self.activation, self.qa, self.qb, self.scale)
        set_field = object.__setattr__   # the dataclass is frozen: the arrays are normalised once, here
        set_field(self, "feature_weights", _int_array("feature_weights", weights, (FEATURE_COUNT, hidden), INT16))
        set_field(self, "feature_bias", _int_array("feature_bias", self.feature_bias, (hidden,), INT16))
        set_field(self, "output_weights", _int_array("output_weights", self.output_weights, (2 * hidden,), INT16))
        set_field(self, "output_bias", int(_int_array("output_bias", self.output_bias, (), INT32)))

    @property
    def hidden(self) -> int:
        return self.feature_weights.shape[1]

    @property
    def activation_name(self) -> str:
        return ACTIVATION_NAMES[self.activation]


def file_size(hidden: int) -> int:
    """The exact length in bytes of a version-1 file with ``hidden`` hidden neurons."""
    return HEADER.size + INT16.itemsize * (FEATURE_COUNT * hidden + hidden + 2 * hidden) + INT32.itemsize


def network_to_bytes(net: Network) -> bytes:
    header = HEADER.pack(MAGIC, FORMAT_VERSION, net.hidden, net.activation, net.qa, net.qb, net.scale)
    return b"".join((header, net.feature_weights.tobytes(), net.feature_bias.tobytes(),
                     net.output_weights.tobytes(), np.array(net.output_bias, dtype=INT32).tobytes()))


def network_from_bytes(data: bytes, source: str = "network") -> Network:
    """The network in ``data``; ``ValueError`` naming ``source`` and what is wrong with a bad one."""
    if len(data) < HEADER.size:
        raise ValueError(f"{source}: truncated: {len(data)} bytes, the header alone is {HEADER.size}")
    header = dict(zip((name for name, _ in HEADER_FIELDS), HEADER.unpack_from(data)))
    if header["magic"] != MAGIC:
        raise ValueError(f"{source}: not a Jitfish network: magic {header['magic']!r}, expected {MAGIC!r}")
    if header["version"] != FORMAT_VERSION:
        raise ValueError(f"{source}: format version {header['version']}, this reader knows {FORMAT_VERSION}")
    try:
        _check_header(header["hidden"], header["activation"], header["qa"], header["qb"], header["scale"])
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    hidden, expected = header["hidden"], file_size(header["hidden"])
    if len(data) != expected:
        problem = "truncated" if len(data) < expected else "trailing bytes"
        raise ValueError(f"{source}: {problem}: {len(data)} bytes, hidden size {hidden} needs {expected}")
    offset = HEADER.size

    def take(count: int, dtype: np.dtype) -> np.ndarray:
        nonlocal offset
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        offset += count * dtype.itemsize
        return array

    return Network(feature_weights=take(FEATURE_COUNT * hidden, INT16).reshape(FEATURE_COUNT, hidden),
                   feature_bias=take(hidden, INT16), output_weights=take(2 * hidden, INT16),
                   output_bias=int(take(1, INT32)[0]), activation=header["activation"],
                   qa=header["qa"], qb=header["qb"], scale=header["scale"])


def read_network(path: str | Path) -> Network:
    """The network in the file at ``path``; ``ValueError`` for a bad magic, version, size or a truncated file."""
    path = Path(path)
    return network_from_bytes(path.read_bytes(), source=str(path))


def shipped_network() -> Network:
    """The network shipped inside the package, which ``EvalFile`` left empty loads."""
    return read_network(SHIPPED_NETWORK)


def write_network(path: str | Path, net: Network) -> None:
    """Write ``net`` to ``path`` atomically (a temporary file beside it, then a rename)."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(network_to_bytes(net))
    os.replace(temporary, path)
