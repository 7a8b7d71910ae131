"""Training positions as packed records, read in seeded, fully shuffled batches of feature lists.

A data set (files and directories of game files and ``FEN | score | result`` text, as
:func:`tuning.datagen.records.data_files` lists them) is read once into 32-byte packed positions
(:mod:`tuning.datagen.records`, a few hundred MB for ten million positions), kept beside the run as an
``.npy`` file that later runs map into memory instead of parsing again.  A batch gathers its rows
from that array and only then computes what ``torch.nn.EmbeddingBag`` takes: each position's active
features in the side to move's view and in the other side's (the indices of
:func:`jitfish.nnue.reference.ordered_features`, so the trainer and the integer inference agree),
concatenated, with where each position's list starts, and its score and result turned to the side to
move's view (a black-to-move score is negated, its result is ``1 - result``).  So memory holds the
packed array and one batch, not the whole set's feature lists.

Every epoch visits every training row exactly once, in a permutation of the whole set that depends
only on the seed and the epoch, so a run resumed at epoch ``e`` sees the same batches an
uninterrupted run would.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jitfish.board.squares import PIECE_TYPE_COUNT
from jitfish.nnue.features import SQUARE_COUNT, VERTICAL_FLIP
from tuning.datagen.records import RESULTS, data_files, pieces, set_bytes

DataSet = str | Path | Iterable[str | Path]  # a file, a directory, or several


# square ^ 7 mirrors a square left to right (a1 <-> h1), and so a feature index.  Kept here rather than in
# jitfish.nnue.features: that module is a kernel source, and any change to one changes the engine identity a
# self-play run checks before it resumes (tuning.datagen.run).
HORIZONTAL_FLIP = 7


@dataclass(frozen=True)
class Positions:
    """Packed positions (a ``POSITION`` array, perhaps mapped from a file); with ``mirrored``, rows
    ``n … 2n - 1`` are rows ``0 … n - 1`` mirrored left to right (:func:`with_mirrors`)."""

    records: np.ndarray
    mirrored: bool = False

    def __len__(self) -> int:
        return len(self.records) * (2 if self.mirrored else 1)

    def _labels(self) -> tuple[np.ndarray, np.ndarray]:
        black = (self.records["flags"] & 1).astype(bool)
        white_result = np.asarray(RESULTS, dtype=np.float32)[self.records["result"]]
        score = np.where(black, -self.records["score"].astype(np.float32), self.records["score"])
        result = np.where(black, 1.0 - white_result, white_result).astype(np.float32)
        return np.tile(score, 1 + self.mirrored), np.tile(result, 1 + self.mirrored)

    @property
    def score(self) -> np.ndarray:
        """float32 centipawns, side to move's view, per row."""
        return self._labels()[0]

    @property
    def result(self) -> np.ndarray:
        """float32: 1 win, 0.5 draw, 0 loss for the side to move, per row."""
        return self._labels()[1]


def load_positions(data: DataSet, limit: int | None = None) -> Positions:
    """Every position of a data set (the first ``limit`` with ``limit``); ``ValueError`` for bad data."""
    from tuning.datagen.convert import data_set_positions  # Numba, to replay games: only when parsing

    blocks, count = [], 0
    for block in data_set_positions(_paths(data)):
        blocks.append(block)
        count += len(block)
        if limit is not None and count >= limit:
            break
    if not count:
        raise ValueError(f"{data}: no positions")
    return Positions(np.concatenate(blocks)[:limit])


def _paths(data: DataSet) -> list[Path]:
    return [Path(data)] if isinstance(data, (str, Path)) else [Path(p) for p in data]


def with_mirrors(positions: Positions) -> Positions:
    """``positions`` followed by each of them mirrored left to right (every feature's square ^ 7: the same
    relation, piece and rank, the other file; the views keep their order), labelled the same.  Chess is
    symmetric that way but for castling rights, which the network does not see: the mirrors are near-free
    extra positions.  Position ``i``'s mirror is ``i + len(positions)``."""
    return Positions(positions.records, mirrored=True)


def and_mirrors(rows: np.ndarray, count: int) -> np.ndarray:
    """``rows`` of ``count`` positions and, after them, their mirrors' rows in :func:`with_mirrors`."""
    return np.concatenate((rows, rows + count))


@dataclass(frozen=True)
class Batch:
    """EmbeddingBag inputs for both views, and the labels, of some positions."""

    us_features: np.ndarray  # int64, as EmbeddingBag wants
    them_features: np.ndarray
    offsets: np.ndarray  # int64 [b]: where each position's list starts in the two arrays
    score: np.ndarray
    result: np.ndarray

    @property
    def pieces(self) -> np.ndarray:
        """int64 [b]: each position's pieces, kings included (the length of its feature list)."""
        return np.diff(self.offsets, append=len(self.us_features))


def batch(positions: Positions, rows: np.ndarray) -> Batch:
    """The EmbeddingBag inputs and labels of ``rows`` (each position's features in increasing square order)."""
    rows = np.asarray(rows, dtype=np.int64)
    count = len(positions.records)
    records = positions.records[rows % count]
    number, square, piece = pieces(records)
    square = square ^ np.where(rows[number] >= count, HORIZONTAL_FLIP, 0)
    colour, kind = piece // PIECE_TYPE_COUNT, piece % PIECE_TYPE_COUNT
    white_view = (colour * PIECE_TYPE_COUNT + kind) * SQUARE_COUNT + square
    black_view = ((colour ^ 1) * PIECE_TYPE_COUNT + kind) * SQUARE_COUNT + (square ^ VERTICAL_FLIP)
    black = (records["flags"][number] & 1).astype(bool)
    counts = np.bincount(number, minlength=len(rows))
    labels = Positions(records)
    return Batch(
        np.where(black, black_view, white_view).astype(np.int64),
        np.where(black, white_view, black_view).astype(np.int64),
        np.cumsum(counts) - counts,
        labels.score,
        labels.result,
    )


def plies(records: np.ndarray) -> np.ndarray:
    """int64: each packed position's ply from its game's start, as its move number and side to move count it
    (the start position is ply 0, black's reply ply 1)."""
    return 2 * (records["fullmove"].astype(np.int64) - 1) + (records["flags"] & 1)


def kept_rows(positions: Positions, rows: np.ndarray, min_ply: int = 0, max_score: int = 0) -> np.ndarray:
    """``rows`` without the positions the trainer skips: those before ply ``min_ply`` (:func:`plies`; the
    openings' positions, which every game shares) and, with ``max_score``, those whose score lies further
    than ``max_score`` centipawns from 0 (decided games, whose scores say little more than their result).
    A mirror row (:func:`with_mirrors`) is kept exactly when its original is.  Positions in check or whose
    best move is a capture or a promotion need no rule here: the generator never labels them."""
    rows = np.asarray(rows, dtype=np.int64)
    records = positions.records[rows % len(positions.records)]
    keep = plies(records) >= min_ply
    if max_score:
        keep &= np.abs(records["score"].astype(np.int64)) <= max_score
    return rows[keep]


def epoch_order(size: int, seed: int, epoch: int) -> np.ndarray:
    """The shuffled order of the positions in epoch ``epoch`` (0-based) of a run seeded ``seed``."""
    return np.random.default_rng([seed, epoch]).permutation(size)


def batches(
    positions: Positions, rows: np.ndarray, batch_size: int, seed: int | None = None, epoch: int = 0
) -> Iterator[Batch]:
    """The batches of ``rows``, shuffled by seed and epoch (in order with no seed); the last may be smaller."""
    order = rows if seed is None else rows[epoch_order(len(rows), seed, epoch)]
    for first in range(0, len(order), batch_size):
        yield batch(positions, order[first : first + batch_size])


def split(size: int, validation: float) -> tuple[np.ndarray, np.ndarray]:
    """Training and validation rows: the last ``validation`` share of the file is held out.  Data files
    are written game by game, so this keeps each game on one side (a game's positions are near copies)."""
    held_out = int(round(validation * size))
    if held_out >= size:
        raise ValueError(f"--validation {validation} leaves no training positions out of {size}")
    return np.arange(size - held_out), np.arange(size - held_out, size)


def data_digest(data: DataSet) -> str:
    """A short SHA-256 of a data set's files, in order: names its packed cache and ties a run to its data."""
    digest = hashlib.sha256()
    for path in data_files(_paths(data)):
        size = set_bytes(path)
        with open(path, "rb") as handle:
            digest.update(handle.read() if size is None else handle.read(size))
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def load_positions_cached(data: DataSet, cache_dir: Path) -> Positions:
    """:func:`load_positions`, kept as ``cache_dir/positions-<digest>.npy`` and mapped into memory (read
    only) from then on, so a rerun skips the parsing and reads only the pages its batches touch."""
    cache = cache_dir / f"positions-{data_digest(data)}.npy"
    if not cache.exists():
        records = load_positions(data).records
        cache_dir.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_name(cache.stem + ".tmp.npy")
        np.save(temporary, records)
        os.replace(temporary, cache)
    return Positions(np.load(cache, mmap_mode="r"))
