"""The trainer's data: feature lists in the side to move's order, labels in its view, seeded full shuffles."""

from __future__ import annotations

import dataclasses
import gzip

import chess
import numpy as np

from jitfish.nnue.reference import ordered_features
from tests.nnue.conftest import SAMPLE
from tuning.datagen.convert import convert
from tuning.datagen.lines import read_data
from tuning.nnue.data import (
    and_mirrors,
    batch,
    batches,
    epoch_order,
    kept_rows,
    load_positions,
    load_positions_cached,
    plies,
    split,
    with_mirrors,
)

WHITE_TO_MOVE = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"
BLACK_TO_MOVE = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1"


def write_lines(path, lines):
    with gzip.open(path, "wt") as handle:
        handle.write("".join(line + "\n" for line in lines))


def test_labels_are_turned_to_the_side_to_move(tmp_path):
    path = tmp_path / "d.gz"
    write_lines(path, [f"{WHITE_TO_MOVE} | 120 | 1.0", f"{BLACK_TO_MOVE} | 120 | 1.0", f"{BLACK_TO_MOVE} | -7 | 0.5"])
    positions = load_positions(path)
    assert positions.score.tolist() == [120, -120, 7]
    assert positions.result.tolist() == [1.0, 0.0, 0.5]


def test_a_batch_holds_each_positions_features_side_to_move_first(tmp_path):
    path = tmp_path / "d.gz"
    write_lines(path, [f"{WHITE_TO_MOVE} | 0 | 0.5", f"{BLACK_TO_MOVE} | 0 | 0.5"])
    inputs = batch(load_positions(path), np.array([1, 0]))
    assert inputs.offsets.tolist() == [0, 3]
    assert inputs.us_features.tolist() == [632, 764, 324, 192, 324, 764]  # black's view, then white's
    assert inputs.them_features.tolist() == [192, 324, 764, 632, 764, 324]  # (pieces a1, e1, e8)


def test_batches_cover_the_sample_once_in_an_order_fixed_by_seed_and_epoch(tmp_path):
    positions = load_positions_cached(SAMPLE, tmp_path)
    assert len(positions) == 3000 and list(tmp_path.glob("positions-*.npy"))
    cached = load_positions_cached(SAMPLE, tmp_path)
    assert np.array_equal(cached.records, positions.records)
    assert np.array_equal(epoch_order(3000, 1, 2), epoch_order(3000, 1, 2))
    assert not np.array_equal(epoch_order(3000, 1, 2), epoch_order(3000, 1, 3))
    sizes = [len(inputs.score) for inputs in batches(positions, np.arange(3000), 1024, seed=1, epoch=0)]
    assert sizes == [1024, 1024, 952]
    fens = [fen for fen, _, _ in read_data(SAMPLE, check_position=False)]
    us, them = ordered_features(fens[epoch_order(3000, 1, 0)[0]])
    head = next(batches(positions, np.arange(3000), 1, seed=1, epoch=0))
    assert sorted(head.us_features) == us.tolist() and sorted(head.them_features) == them.tolist()


def test_every_epoch_visits_every_position_once_in_a_new_order(tmp_path):
    """Scores made unique (the row number) show which rows each batch held."""
    positions = with_mirrors(load_positions(SAMPLE))
    records = positions.records.copy()
    records["score"] = np.arange(3000)
    records["flags"] &= 0xFE  # white to move: the score is the row number as read
    positions = with_mirrors(dataclasses.replace(positions, records=records))
    rows = and_mirrors(np.arange(2500), 3000)  # training rows of a split, and their mirrors
    orders = []
    for epoch in range(3):
        seen = np.concatenate([inputs.score for inputs in batches(positions, rows, 700, seed=5, epoch=epoch)])
        assert sorted(seen.tolist()) == sorted(list(range(2500)) * 2)
        orders.append(seen)
    assert not np.array_equal(orders[0], orders[1]) and not np.array_equal(orders[1], orders[2])
    first = np.concatenate([inputs.score for inputs in batches(positions, rows, 700, seed=5, epoch=0)])
    assert np.array_equal(first, orders[0])  # the order depends on the seed and the epoch alone


def test_a_data_set_is_its_files_and_directories_in_order(tmp_path):
    (tmp_path / "games").mkdir()
    convert(SAMPLE, tmp_path / "games" / "sample.bin")
    data = [tmp_path / "games", SAMPLE]
    positions = load_positions(data)
    assert len(positions) == 6000
    assert np.array_equal(positions.records[:3000], positions.records[3000:])
    cached = load_positions_cached(data, tmp_path / "cache")
    assert isinstance(cached.records, np.memmap) and np.array_equal(cached.records, positions.records)


def test_the_validation_positions_are_the_files_last():
    training, validation = split(10, 0.2)
    assert training.tolist() == list(range(8)) and validation.tolist() == [8, 9]
    assert len(split(10, 0.0)[1]) == 0


def test_a_mirrored_position_has_the_features_of_the_board_mirrored_left_to_right(tmp_path):
    fens = [fen for fen, _, _ in read_data(SAMPLE, check_position=False)][:200]
    positions = load_positions(SAMPLE, limit=200)
    mirrors = with_mirrors(positions)
    assert len(mirrors) == 400
    assert np.array_equal(mirrors.score[200:], positions.score)
    assert np.array_equal(mirrors.result[200:], positions.result)
    inputs = batch(mirrors, np.arange(200, 400))
    ends = np.append(inputs.offsets[1:], len(inputs.us_features))
    for fen, start, end in zip(fens, inputs.offsets, ends):
        us, them = ordered_features(chess.Board(fen).transform(chess.flip_horizontal))
        assert sorted(inputs.us_features[start:end]) == us.tolist()
        assert sorted(inputs.them_features[start:end]) == them.tolist()


def test_the_filter_skips_the_early_plies_and_the_decided_scores_as_python_chess_counts_them():
    lines = list(read_data(SAMPLE, check_position=False))
    positions = load_positions(SAMPLE)
    boards = [chess.Board(fen) for fen, _, _ in lines]
    assert plies(positions.records).tolist() == [board.ply() for board in boards]
    rows = np.arange(len(lines))
    for min_ply, max_score in [(0, 0), (16, 0), (0, 300), (16, 1000), (80, 150)]:
        expected = [
            row
            for row, (board, (_, score, _)) in enumerate(zip(boards, lines))
            if board.ply() >= min_ply and (not max_score or abs(score) <= max_score)
        ]
        kept = kept_rows(positions, rows, min_ply, max_score)
        assert kept.tolist() == expected, (min_ply, max_score)
        mirrored = kept_rows(with_mirrors(positions), and_mirrors(rows, len(rows)), min_ply, max_score)
        assert mirrored.tolist() == expected + [row + len(rows) for row in expected]
    assert 0 < len(kept_rows(positions, rows, 16, 1000)) < len(rows)  # the sample has rows on both sides


def test_the_sample_labels_no_position_in_check():
    """The rules the filter leaves to the generator: no labelled position is in check (nor, by the same rule,
    one whose best move is a capture or a promotion)."""
    assert not any(chess.Board(fen).is_check() for fen, _, _ in read_data(SAMPLE, check_position=False))
