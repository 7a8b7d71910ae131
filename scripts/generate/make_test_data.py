"""Write the reference data the tests read into ``tests/data`` (run once; the output is committed).

    python -m scripts.generate.make_test_data [--source /work/shared/data]

Perft suites become ``FEN ;D1 n ;D2 n`` EPD lines holding only the depths some
test checks (a count above every budget of ``tests/board/test_perft.py`` is
never read); the 6838-position python-chess random suite keeps every 5th
position.  The mate files are copied, and of matetrack only the positions
with a mate in 1 to 4 are kept.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

from tests.perft_data import PerftCase

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tests" / "data"
MATE_FILES = ("mate1.fen", "mate2.fen", "mate3.fen", "mate4.fen")
MATETRACK_MAX_MATE = 4
# Budgets in leaves, matching test_perft.py: the deepest count any test reads.
EVERYTHING = 10**12
RANDOM_KEEP_STEP = 5


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


def write_epd(path: Path, header: str, cases: list[PerftCase], budget) -> None:
    lines = [f"# {line}" if line else "#" for line in header.strip().splitlines()]
    for index, case in enumerate(cases):
        counts = [f";D{depth} {count}" for depth, count in sorted(case.counts.items()) if count <= budget(index)]
        lines.append(" ".join([case.fen, *counts]))
    path.write_text("\n".join(lines) + "\n")


def perft_suites(source: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in ("perft-classic.epd", "perft-random.epd", "perft-chess960.epd", "sunfish-perft.epd"):
        shutil.copyfile(source / name, out / name)
    tricky = read_pychess_suite(source / "pychess-tricky.perft")
    write_epd(
        out / "pychess-tricky.epd",
        "python-chess examples/perft/tricky.perft, every published depth.",
        tricky,
        lambda index: EVERYTHING,
    )
    chess960 = read_pychess_suite(source / "pychess-chess960.perft")
    write_epd(
        out / "pychess-chess960.epd",
        """
python-chess examples/perft/chess960.perft: all 960 starting setups.
Counts up to 1,000,000 leaves; every 40th position up to 250,000,000 (the slow pass).""",
        chess960,
        lambda index: 250_000_000 if index % 40 == 0 else 1_000_000,
    )
    random = read_pychess_suite(source / "pychess-random.perft")[::RANDOM_KEEP_STEP]
    write_epd(
        out / "pychess-random.epd",
        f"""
python-chess examples/perft/random.perft (Marcel van Kervinck's 6838 random positions):
every {RANDOM_KEEP_STEP}th position, from the first.  Counts up to 1,000,000 leaves; every
20th kept position (every 100th of the original) up to 10,000,000.""",
        random,
        lambda index: 10_000_000 if index % 20 == 0 else 1_000_000,
    )


def mate_suites(source: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in MATE_FILES:
        shutil.copyfile(source / name, out / name)
    kept = [
        line
        for line in (source / "matetrack.epd").read_text().splitlines()
        if (found := re.search(r"bm #(\d+);", line)) and 1 <= int(found.group(1)) <= MATETRACK_MAX_MATE
    ]
    (out / "matetrack-mate1-4.epd").write_text("\n".join(kept) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    perft_suites(args.source / "perft", OUT / "perft")
    mate_suites(args.source / "mates", OUT / "mates")
    shutil.copyfile(args.source / "tactics" / "win_at_chess_test.epd", OUT / "win_at_chess.epd")
    shutil.copyfile(args.source / "tactics" / "bratko_kopec_test.epd", OUT / "bratko_kopec.epd")
    shutil.copyfile(args.source / "tactics" / "ccr_one_hour_test.epd", OUT / "ccr_one_hour.epd")
    return 0


if __name__ == "__main__":
    sys.exit(main())
