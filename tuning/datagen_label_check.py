"""Label quality of self-play data: how far its scores are from a deeper search of the same positions.

    python -m tuning.datagen_label_check OLD.gz NEW.bin --sample 500 --nodes 100000

For each data set (text or game files, tuning.datagen.records.data_files), a seeded sample of its
positions is searched again with a fresh table at a fixed, deeper node limit, and the mean absolute
difference between the stored label and that score (white's view, centipawns) is printed with its
standard error.  Two generators label alike when their errors agree within about two standard errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import jitfish
from jitfish.search import Searcher, SearchLimits
from tuning.datagen.records import unpack
from tuning.nnue.data import load_positions


def label_errors(data: Path, sample: int, nodes: int, seed: int) -> np.ndarray:
    records = load_positions(data).records
    rows = np.random.default_rng(seed).choice(len(records), size=min(sample, len(records)), replace=False)
    errors = []
    for row in rows:
        fen, score, _ = unpack(records[row])
        board = jitfish.Board(fen)
        found = Searcher(hash_mb=16).search(board, SearchLimits(depth=64, nodes=8 * nodes, soft_nodes=nodes))
        deeper = found.score if board.turn else -found.score
        errors.append(abs(np.clip(deeper, -2000, 2000) - score))
    return np.array(errors, dtype=np.float64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="data sets to compare (files or directories)")
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--nodes", type=int, default=100_000, help="soft node limit of the deeper search")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for data in args.data:
        errors = label_errors(data, args.sample, args.nodes, args.seed)
        print(
            f"{data}: {len(errors)} positions, mean |label - deeper search| {errors.mean():.1f} cp "
            f"(standard error {errors.std(ddof=1) / np.sqrt(len(errors)):.1f}), median {np.median(errors):.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
