"""Training positions as feature-index lists, and seeded shuffled batches of them.

A data file (``FEN | score | result`` lines from ``python -m tuning.datagen``, white's view) is read once
into flat arrays: each position's active features in the side to move's view and in the other side's
(:func:`jitfish.nnue.reference.ordered_features`, so the trainer and the integer inference see the same
indices), and its score and result turned to the side to move's view (a black-to-move score is negated,
its result is ``1 - result``).  A batch is what ``torch.nn.EmbeddingBag`` takes: the batch's indices
concatenated, and where each position's list starts.

Batches are drawn in an order that depends only on the seed and the epoch, so a run resumed at epoch
``e`` sees the same batches an uninterrupted run would.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from jitfish.nnue.features import as_board
from jitfish.nnue.reference import ordered_features
from tuning.datagen.lines import read_data


# square ^ 7 mirrors a square left to right (a1 <-> h1), and so a feature index.  Kept here rather than in
# jitfish.nnue.features: that module is a kernel source, and any change to one changes the engine identity a
# self-play run checks before it resumes (tuning.datagen.run).
HORIZONTAL_FLIP = 7


@dataclass(frozen=True)
class Positions:
    """``n`` positions: the feature lists of both views (flat, with starts), scores and results, all for
    the side to move."""

    us_features: np.ndarray       # int16 (768 fits; a million positions keep ~50 MB), every list in a row
    them_features: np.ndarray     # int16, as long as us_features (both views hold one feature per piece)
    starts: np.ndarray            # int64 [n + 1]: position i's features are [starts[i], starts[i + 1])
    score: np.ndarray             # float32 [n], centipawns, side to move's view
    result: np.ndarray            # float32 [n], 1 win, 0.5 draw, 0 loss for the side to move

    def __len__(self) -> int:
        return len(self.score)


def _flat_rows(starts: np.ndarray, counts: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices into the flat feature arrays of ``rows``' lists, one list after the other."""
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts[rows] - offsets, counts) + np.arange(int(counts.sum()))


def load_positions(path: str | Path, limit: int | None = None) -> Positions:
    """Every position of a data file (the first ``limit`` with ``limit``); ``ValueError`` for a bad line."""
    us_lists, them_lists, scores, results = [], [], [], []
    for fen, score, result in read_data(path, check_position=False):
        board = as_board(fen)
        us, them = ordered_features(board)
        us_lists.append(us)
        them_lists.append(them)
        white_to_move = board.turn
        scores.append(score if white_to_move else -score)
        results.append(result if white_to_move else 1.0 - result)
        if limit is not None and len(scores) == limit:
            break
    if not scores:
        raise ValueError(f"{path}: no positions")
    counts = np.array([len(features) for features in us_lists], dtype=np.int64)
    return Positions(np.concatenate(us_lists).astype(np.int16), np.concatenate(them_lists).astype(np.int16),
                     np.concatenate(([0], np.cumsum(counts))),
                     np.array(scores, dtype=np.float32), np.array(results, dtype=np.float32))


def with_mirrors(positions: Positions) -> Positions:
    """``positions`` followed by each of them mirrored left to right (every feature's square ^ 7: the same
    relation, piece and rank, the other file; the views keep their order), labelled the same.  Chess is
    symmetric that way but for castling rights, which the network does not see: the mirrors are near-free
    extra positions.  Position ``i``'s mirror is ``i + len(positions)``."""
    count = len(positions.us_features)
    return Positions(np.concatenate((positions.us_features, positions.us_features ^ HORIZONTAL_FLIP)),
                     np.concatenate((positions.them_features, positions.them_features ^ HORIZONTAL_FLIP)),
                     np.concatenate((positions.starts, positions.starts[1:] + count)),
                     np.concatenate((positions.score, positions.score)),
                     np.concatenate((positions.result, positions.result)))


def and_mirrors(rows: np.ndarray, count: int) -> np.ndarray:
    """``rows`` of ``count`` positions and, after them, their mirrors' rows in :func:`with_mirrors`."""
    return np.concatenate((rows, rows + count))


@dataclass(frozen=True)
class Batch:
    """EmbeddingBag inputs for both views, and the labels, of some positions."""

    us_features: np.ndarray       # int64, as EmbeddingBag wants
    them_features: np.ndarray
    offsets: np.ndarray           # int64 [b]: where each position's list starts in the two arrays
    score: np.ndarray
    result: np.ndarray


def batch(positions: Positions, rows: np.ndarray) -> Batch:
    counts = np.diff(positions.starts)[rows]
    flat = _flat_rows(positions.starts, counts, rows)
    return Batch(positions.us_features[flat].astype(np.int64), positions.them_features[flat].astype(np.int64),
                 np.cumsum(counts) - counts,
                 positions.score[rows], positions.result[rows])


def epoch_order(size: int, seed: int, epoch: int) -> np.ndarray:
    """The shuffled order of the positions in epoch ``epoch`` (0-based) of a run seeded ``seed``."""
    return np.random.default_rng([seed, epoch]).permutation(size)


def batches(positions: Positions, rows: np.ndarray, batch_size: int, seed: int | None = None,
            epoch: int = 0) -> Iterator[Batch]:
    """The batches of ``rows``, shuffled by seed and epoch (in order with no seed); the last may be smaller."""
    order = rows if seed is None else rows[epoch_order(len(rows), seed, epoch)]
    for first in range(0, len(order), batch_size):
        yield batch(positions, order[first:first + batch_size])


def split(size: int, validation: float) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation rows: the last ``validation`` share of the file is held out.  Data files
    are written game by game, so this keeps each game on one side (a game's positions are near copies)."""
    held_out = int(round(validation * size))
    if held_out >= size:
        raise ValueError(f"--validation {validation} leaves no training positions out of {size}")
    return np.arange(size - held_out), np.arange(size - held_out, size)


def file_digest(path: str | Path) -> str:
    """A short SHA-256 of a data file's bytes: names its cached features and ties a run to its data."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def load_positions_cached(path: str | Path, cache_dir: Path) -> Positions:
    """:func:`load_positions`, kept as ``cache_dir/positions-<digest>.npz`` so a rerun skips the parsing."""
    cache = cache_dir / f"positions-{file_digest(path)}.npz"
    if cache.exists():
        with np.load(cache) as arrays:
            return Positions(**{name: arrays[name] for name in Positions.__dataclass_fields__})
    positions = load_positions(path)
    cache_dir.mkdir(parents=True, exist_ok=True)
    temporary = cache.with_name(cache.stem + ".tmp.npz")
    np.savez(temporary, **{name: getattr(positions, name) for name in Positions.__dataclass_fields__})
    os.replace(temporary, cache)
    return positions
