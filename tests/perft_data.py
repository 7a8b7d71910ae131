"""Readers for perft suites: ``FEN ;D1 n ;D2 n`` EPD lines and python-chess ``.perft`` blocks."""

from __future__ import annotations

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
