"""Readers for perft suites: ``FEN ;D1 n ;D2 n`` EPD lines and python-chess ``.perft`` blocks."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

REPO_DATA = Path(__file__).resolve().parent / "data"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


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


def read_pychess_suite(path: Path, chess960: bool = False) -> list[PerftCase]:
    cases: list[PerftCase] = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("id "):
            cases.append(PerftCase(f"{path.stem}:{line[3:]}", "", {}, chess960))
        elif line.startswith("epd "):
            cases[-1].fen = line[4:]
        elif line.startswith("perft "):
            _, depth, count = line.split()
            cases[-1].counts[int(depth)] = int(count)
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

    @property
    def available(self) -> bool:
        return self.path.is_file()

    def cases(self) -> list[PerftCase]:
        """The suite's positions (read once per process; do not mutate them)."""
        return _read_suite(self)


@functools.cache
def _read_suite(suite: Suite) -> list[PerftCase]:
    reader = read_pychess_suite if suite.path.suffix == ".perft" else read_epd_suite
    return reader(suite.path, suite.chess960)


_SHARED_PERFT = SHARED_DATA / "perft"

# The seven classic positions ship with the repository; the others come from ../shared/data.
# python-chess runs its "tricky" suite as Chess960, and so do we.
SUITES = {
    "perft-classic": Suite("perft-classic", REPO_DATA / "perft-classic.epd"),
    "perft-random": Suite("perft-random", _SHARED_PERFT / "perft-random.epd"),
    "perft-chess960": Suite("perft-chess960", _SHARED_PERFT / "perft-chess960.epd", chess960=True),
    "sunfish-perft": Suite("sunfish-perft", _SHARED_PERFT / "sunfish-perft.epd"),
    "pychess-tricky": Suite("pychess-tricky", _SHARED_PERFT / "pychess-tricky.perft", chess960=True),
    "pychess-chess960": Suite("pychess-chess960", _SHARED_PERFT / "pychess-chess960.perft", chess960=True),
    "pychess-random": Suite("pychess-random", _SHARED_PERFT / "pychess-random.perft"),
}


def missing_reason(suite: Suite) -> str:
    return f"{suite.path} not found: shared data is read from ../shared/data beside the repository"
