"""The NNUE tests' sample positions (NumPy only: nothing here compiles a kernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuning.datagen.lines import read_data

REPOSITORY = Path(__file__).resolve().parents[2]
SAMPLE = REPOSITORY / "tests" / "data" / "datagen_sample.gz"
TEST_DATA = REPOSITORY / "tests" / "data" / "nnue"  # networks and games for these tests
NETS_50 = REPOSITORY / "records" / "matches" / "nnue-issue50" / "nets"
NETS_73 = REPOSITORY / "records" / "matches" / "nnue-issue73" / "nets"
DEFAULT_HIDDEN = 256  # the package's network's width

# Every version-1 network the project has shipped as its default, oldest first: the first (3726c46, kept
# here), D-1 (2d60593) and E-1 (334592d), both kept with their match records.  F-1 (431436d), G-1 (aa25227),
# H-1 (4db930a), I-1 (d3b399c), J-1 (03e1ba0) and K-1, the package's network now
# (``jitfish.nnue.format.SHIPPED_NETWORK``), are version-2 files.
SHIPPED_NETWORKS = (
    TEST_DATA / "first-shipped-3726c46.nnue",
    REPOSITORY / "records" / "matches" / "nnue-issue34" / "h64-wdl0-mirror-2047285.nnue",
    NETS_50 / "E-1.nnue",
)

# Their integer evaluations (centipawns, side to move) of a few positions as the version-1 reader gave them
# before output buckets existed: a later reader must give the same.
PINNED_FENS = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 4 9",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q2/PPPBBPPP/R3K2R b KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/4k3/8/2R5/8/4K3/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1",
)
PINNED_SCORES = ((31, -96, -39, 16, -534, 958), (13, -50, -140, 57, -522, 1021), (24, -45, -69, 63, -531, 1081))
# The version-2 defaults before the package's, kept with their match records, with their hidden width and
# their scores recorded when each was shipped: F-1, G-1, H-1, I-1 and J-1.
VERSION_2_NETWORKS = (
    (NETS_50 / "wdl0.1.nnue", 64, (26, -40, -77, 50, -594, 1238)),
    (NETS_73 / "h64-7.2m.nnue", 64, (28, -67, -83, 21, -582, 1363)),
    (NETS_73 / "h64-8.9m.nnue", 64, (36, -61, -88, 34, -610, 1485)),
    (NETS_73 / "h128-9.7m.nnue", 128, (24, -79, -76, 36, -639, 1744)),
    (NETS_73 / "h128-12.4m.nnue", 128, (34, -68, -86, -25, -603, 1100)),
)
DEFAULT_SCORES = (40, -72, -78, 93, -658, 1413)  # K-1's (hidden 256), recorded when it was shipped


@pytest.fixture(scope="session")
def sample_fens() -> list[str]:
    """Every 30th position of the shipped self-play sample (100 positions)."""
    return [fen for fen, _, _ in read_data(SAMPLE, check_position=False)][::30]
