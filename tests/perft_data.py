"""The perft suites the tests check, as ``FEN ;D1 n ;D2 n`` EPD lines in ``tests/data/perft``."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

PERFT_DATA = Path(__file__).resolve().parent / "data" / "perft"


@dataclass
class PerftCase:
    name: str
    fen: str
    counts: dict[int, int] = field(default_factory=dict)  # depth -> leaf count
    chess960: bool = False


def read_epd_suite(path: Path, chess960: bool = False) -> list[PerftCase]:
    cases = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fen, *depths = [part.strip() for part in line.split(";")]
        counts = {}
        for item in depths:
            depth, count = item.split()
            counts[int(depth.lstrip("D"))] = int(count)
        cases.append(PerftCase(f"{path.stem}:{number}", fen, counts, chess960))
    return cases


def affordable(case: PerftCase, max_nodes: int) -> list[tuple[int, int]]:
    """The (depth, count) pairs with at most ``max_nodes`` leaves."""
    return [(d, n) for d, n in sorted(case.counts.items()) if n <= max_nodes]


@dataclass(frozen=True)
class Suite:
    """A perft suite file and how to read it."""

    name: str
    path: Path
    chess960: bool = False

    def cases(self) -> list[PerftCase]:
        """The suite's positions (read once per process; do not mutate them)."""
        return _read_suite(self)


@functools.cache
def _read_suite(suite: Suite) -> list[PerftCase]:
    return read_epd_suite(suite.path, suite.chess960)


# Every suite ships with the repository (written by scripts/generate/make_test_data.py; the big
# python-chess random suite keeps every 5th position).  python-chess runs its "tricky"
# suite as Chess960, and so do we.
SUITES = {
    "perft-classic": Suite("perft-classic", PERFT_DATA / "perft-classic.epd"),
    "perft-random": Suite("perft-random", PERFT_DATA / "perft-random.epd"),
    "perft-chess960": Suite("perft-chess960", PERFT_DATA / "perft-chess960.epd", chess960=True),
    "sunfish-perft": Suite("sunfish-perft", PERFT_DATA / "sunfish-perft.epd"),
    "pychess-tricky": Suite("pychess-tricky", PERFT_DATA / "pychess-tricky.epd", chess960=True),
    "pychess-chess960": Suite("pychess-chess960", PERFT_DATA / "pychess-chess960.epd", chess960=True),
    "pychess-random": Suite("pychess-random", PERFT_DATA / "pychess-random.epd"),
}
