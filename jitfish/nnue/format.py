"""The network file: a header, then the quantised arrays, all little-endian; versions 1 and 2.

Version 2 (what :func:`write_network` writes)::

    offset  type                 field
    0       4 bytes              magic ``JFNN``
    4       uint16               format version (2)
    6       uint16               hidden size N (1..4096)
    8       uint16               activation: 0 clipped ReLU, 1 squared clipped ReLU
    10      uint16               QA, the scale of the feature weights and biases (255)
    12      uint16               QB, the scale of the output weights (64)
    14      uint16               output scale: centipawns per unit of the float network's output (400)
    16      uint16               output buckets K (1..32)
    18      int16[768N]          feature weights, feature-major: the N weights of feature f at ``18 + 2 N f``
    ..      int16[N]             feature biases
    ..      int16[K x 2N]        output weights, bucket by bucket: N for the side to move's half, then N
                                 for the other side's
    ..      int32[K]             output biases (scaled by QA * QB), one per bucket

Version 1 (every network shipped before buckets, E-1 included) is the same without the buckets field:
its 16-byte header ends at the output scale and it holds one bucket.  The reader takes the layout from
the version field, never from the file's length, and refuses any other version.

A file is exactly its header plus ``2 * (768 N + N + 2 K N) + 4 K`` bytes long; anything else is refused.
The float network's values are the stored integers divided by QA (feature weights and biases), QB
(output weights) and QA * QB (output biases); :mod:`jitfish.nnue.reference` says how the integers are
combined, and :func:`output_bucket` which bucket's output weights score a position.  Each version's
fields are listed once in ``HEADER_FIELDS``; the headers' layouts are derived from those lists.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jitfish.nnue.features import FEATURE_COUNT

MAGIC = b"JFNN"
FORMAT_VERSION = 2  # what write_network writes; read_network also reads version 1
MAX_HIDDEN = 4096
MAX_BUCKETS = 32
CRELU, SCRELU = 0, 1
ACTIVATION_NAMES = ("crelu", "screlu")
DEFAULT_QA, DEFAULT_QB, DEFAULT_SCALE = 255, 64, 400
SHIPPED_NETWORK = Path(__file__).with_name("default.nnue")  # the network the package ships (README, NNUE)

_VERSION_1_FIELDS = (
    ("magic", "4s"),
    ("version", "H"),
    ("hidden", "H"),
    ("activation", "H"),
    ("qa", "H"),
    ("qb", "H"),
    ("scale", "H"),
)
HEADER_FIELDS = {1: _VERSION_1_FIELDS, 2: _VERSION_1_FIELDS + (("buckets", "H"),)}
HEADERS = {
    version: struct.Struct("<" + "".join(code for _, code in fields)) for version, fields in HEADER_FIELDS.items()
}
PREFIX = struct.Struct("<4sH")  # magic and version: what every version's header starts with
INT16, INT32 = np.dtype("<i2"), np.dtype("<i4")

# Output buckets: a position is scored by the output weights of bucket
#     clamp((pieces - 2) * K // 32, 0, K - 1)
# with ``pieces`` every piece on the board, kings included.  Eight buckets are (pieces - 2) // 4, as in
# Bullet's ``MaterialCount<8>``: 2-5 pieces bucket 0, ..., 30-32 pieces bucket 7; one bucket is always 0.
BUCKET_PIECES = 32  # the most pieces a position holds: K buckets share 32 piece counts


def output_bucket(pieces, buckets: int):
    """The output bucket of a position with ``pieces`` pieces (an int or a NumPy array of them) in a
    network of ``buckets`` buckets; the engine's kernel is :func:`jitfish.nnue.inference.output_bucket`."""
    return np.clip((np.asarray(pieces, dtype=np.int64) - 2) * buckets // BUCKET_PIECES, 0, buckets - 1)


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


def _check_header(hidden: int, activation: int, qa: int, qb: int, scale: int, buckets: int) -> None:
    if not 1 <= hidden <= MAX_HIDDEN:
        raise ValueError(f"hidden size {hidden} is not in 1..{MAX_HIDDEN}")
    if activation not in (CRELU, SCRELU):
        raise ValueError(f"unknown activation id {activation} (0 crelu, 1 screlu)")
    for name, value in (("QA", qa), ("QB", qb), ("output scale", scale)):
        if not 1 <= value <= 0xFFFF:
            raise ValueError(f"{name} {value} is not in 1..65535")
    if not 1 <= buckets <= MAX_BUCKETS:
        raise ValueError(f"output buckets {buckets} is not in 1..{MAX_BUCKETS}")


@dataclass(frozen=True)
class Network:
    """A quantised network: the arrays of the file and the constants that give them meaning.

    ``output_weights`` and ``output_bias`` may be given for one bucket as ``[2N]`` and an int; they are
    kept as ``[K, 2N]`` and ``[K]``."""

    feature_weights: np.ndarray  # int16 [768, N]
    feature_bias: np.ndarray  # int16 [N]
    output_weights: np.ndarray  # int16 [K, 2N], each bucket's side to move's half first
    output_bias: np.ndarray  # int32 [K]
    activation: int = CRELU
    qa: int = DEFAULT_QA
    qb: int = DEFAULT_QB
    scale: int = DEFAULT_SCALE

    def __post_init__(self) -> None:
        weights = np.asarray(self.feature_weights)
        if weights.ndim != 2:
            raise ValueError(f"feature_weights must be [{FEATURE_COUNT}, N], not {weights.shape}")
        hidden = weights.shape[1]
        output_weights = np.asarray(self.output_weights)
        output_weights = output_weights.reshape(1, -1) if output_weights.ndim == 1 else output_weights
        buckets = output_weights.shape[0]
        _check_header(hidden, self.activation, self.qa, self.qb, self.scale, buckets)
        set_field = object.__setattr__  # the dataclass is frozen: the arrays are normalised once, here
        set_field(self, "feature_weights", _int_array("feature_weights", weights, (FEATURE_COUNT, hidden), INT16))
        set_field(self, "feature_bias", _int_array("feature_bias", self.feature_bias, (hidden,), INT16))
        set_field(self, "output_weights", _int_array("output_weights", output_weights, (buckets, 2 * hidden), INT16))
        set_field(self, "output_bias", _int_array("output_bias", np.atleast_1d(self.output_bias), (buckets,), INT32))

    @property
    def hidden(self) -> int:
        return self.feature_weights.shape[1]

    @property
    def buckets(self) -> int:
        return self.output_weights.shape[0]

    @property
    def activation_name(self) -> str:
        return ACTIVATION_NAMES[self.activation]


def network_shape(hidden: int, buckets: int) -> str:
    """A network's shape in words, as UCI's ``EvalFile`` reports it: ``768 -> 64 -> 1``, and for several
    output buckets ``768 -> 64 -> 1 x 8 buckets``."""
    return f"{FEATURE_COUNT} -> {hidden} -> 1" + (f" x {buckets} buckets" if buckets > 1 else "")


def file_size(hidden: int, buckets: int = 1, version: int = FORMAT_VERSION) -> int:
    """The exact length in bytes of a file of ``version`` with ``hidden`` neurons and ``buckets`` buckets."""
    return (
        HEADERS[version].size
        + INT16.itemsize * (FEATURE_COUNT * hidden + hidden + 2 * buckets * hidden)
        + INT32.itemsize * buckets
    )


def network_to_bytes(net: Network) -> bytes:
    header = HEADERS[FORMAT_VERSION].pack(
        MAGIC, FORMAT_VERSION, net.hidden, net.activation, net.qa, net.qb, net.scale, net.buckets
    )
    return b"".join(
        (
            header,
            net.feature_weights.tobytes(),
            net.feature_bias.tobytes(),
            net.output_weights.tobytes(),
            net.output_bias.tobytes(),
        )
    )


def network_from_bytes(data: bytes, source: str = "network") -> Network:
    """The network in ``data``; ``ValueError`` naming ``source`` and what is wrong with a bad one."""
    if len(data) < PREFIX.size:
        raise ValueError(f"{source}: truncated: {len(data)} bytes, too short for a header")
    magic, version = PREFIX.unpack_from(data)
    if magic != MAGIC:
        raise ValueError(f"{source}: not a Jitfish network: magic {magic!r}, expected {MAGIC!r}")
    if version not in HEADERS:
        raise ValueError(f"{source}: format version {version}, this reader knows {', '.join(map(str, HEADERS))}")
    layout = HEADERS[version]
    if len(data) < layout.size:
        raise ValueError(f"{source}: truncated: {len(data)} bytes, the version-{version} header alone is {layout.size}")
    header = dict(zip((name for name, _ in HEADER_FIELDS[version]), layout.unpack_from(data)))
    hidden, buckets = header["hidden"], header.get("buckets", 1)
    try:
        _check_header(hidden, header["activation"], header["qa"], header["qb"], header["scale"], buckets)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    expected = file_size(hidden, buckets, version)
    if len(data) != expected:
        problem = "truncated" if len(data) < expected else "trailing bytes"
        raise ValueError(
            f"{source}: {problem}: {len(data)} bytes, hidden size {hidden} with {buckets} "
            f"bucket{'s' if buckets > 1 else ''} needs {expected}"
        )
    offset = layout.size

    def take(count: int, dtype: np.dtype) -> np.ndarray:
        nonlocal offset
        array = np.frombuffer(data, dtype=dtype, count=count, offset=offset)
        offset += count * dtype.itemsize
        return array

    return Network(
        feature_weights=take(FEATURE_COUNT * hidden, INT16).reshape(FEATURE_COUNT, hidden),
        feature_bias=take(hidden, INT16),
        output_weights=take(2 * buckets * hidden, INT16).reshape(buckets, 2 * hidden),
        output_bias=take(buckets, INT32),
        activation=header["activation"],
        qa=header["qa"],
        qb=header["qb"],
        scale=header["scale"],
    )


def read_network(path: str | Path) -> Network:
    """The network in the file at ``path``; ``ValueError`` for a bad magic, version, size or a truncated file."""
    path = Path(path)
    return network_from_bytes(path.read_bytes(), source=str(path))


def shipped_network() -> Network:
    """The network shipped inside the package, which ``EvalFile`` left empty loads."""
    return read_network(SHIPPED_NETWORK)


def write_network(path: str | Path, net: Network) -> None:
    """Write ``net`` to ``path`` atomically (a temporary file beside it, then a rename), as version 2."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(network_to_bytes(net))
    os.replace(temporary, path)
