"""Converters between ``FEN | score | result`` text and game files, and positions of a whole data set.

Text to games: consecutive lines of one game (same result) become one game
record when each position follows from the previous one in at most
``MAX_LINK`` plies (the generator leaves out the positions before a capture
or in check, so a game's lines skip a ply or a few); the plies found in
between are stored unlabelled.  A line that does not follow starts a new
record.  Games to text writes each record's labelled positions in order, so
text -> games -> text gives the same lines (FENs as python-chess and the
engine write them: the en-passant square only when a capture there is legal).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from jitfish.board import layout as L
from jitfish.board.makemove import make_move
from jitfish.board.position import Position
from jitfish.board.tables import lookup_tables
from tuning.datagen.kernels import find_line, move_number, sorted_legal_moves
from tuning.datagen.lines import format_line, read_data, write_atomically, write_data
from tuning.datagen.records import (
    POSITION,
    data_files,
    encode_game,
    game_positions,
    is_game_file,
    pack,
    read_games,
    set_bytes,
    unpack,
    write_games,
)

MAX_LINK = 4  # most plies between two lines of one game that the converter searches for


class _Segment:
    """A game record being built from lines: its start, moves and scores, and the position reached."""

    def __init__(self, position: Position, score: int, result: float) -> None:
        self.start = pack(position, 0, result)
        self.result = result
        self.numbers: list[int] = []
        self.scores = [score]
        self.labelled = [True]
        self.tail = position

    def extend(self, target: Position, fen: str, score: int) -> bool:
        """Add the plies from the tail to ``target`` (whose FEN is ``fen``) if they are at most ``MAX_LINK``."""
        tables = lookup_tables()
        line = np.zeros(MAX_LINK, dtype=np.int32)
        t = self.tail
        for depth in range(1, MAX_LINK + 1):
            if (t.state[L.SIDE_TO_MOVE] + depth) % 2 != target.state[L.SIDE_TO_MOVE]:
                continue
            if find_line(t.bbs, t.state, t.undo, t.key_history, tables, target.bbs, target.state, depth, line):
                break
        else:
            return False
        reached = t.copy()
        numbers = []
        for move in line[:depth]:
            numbers.append(int(move_number(sorted_legal_moves(reached.bbs, reached.state, tables), move)))
            make_move(reached.bbs, reached.state, reached.undo, reached.key_history, tables, int(move))
        if reached.fen() != fen:  # the same pieces and rights, other move counters
            return False
        self.numbers += numbers
        self.scores += [self.scores[-1]] * (depth - 1) + [score]
        self.labelled += [False] * (depth - 1) + [True]
        self.tail = reached
        return True

    def record(self) -> bytes:
        return encode_game(self.start, self.numbers, self.scores, self.labelled)


def text_to_games(lines: Iterable[tuple[str, int, float]]) -> Iterator[bytes]:
    """Game records of ``(fen, score, result)`` lines, in order."""
    segment: _Segment | None = None
    for fen, score, result in lines:
        target = Position.from_fen(fen)
        if segment is not None and segment.result == result and len(segment.numbers) < L.MAX_GAME_PLY - MAX_LINK:
            if segment.extend(target, fen, score):
                continue
        if segment is not None:
            yield segment.record()
        segment = _Segment(target, score, result)
    if segment is not None:
        yield segment.record()


def game_file_positions(path: str | Path) -> Iterator[np.ndarray]:
    """The labelled positions of each game of a game file, packed (one ``POSITION`` array a game); of the
    bytes its data set's manifest lists, when it has one."""
    for record in read_games(path, set_bytes(Path(path))):
        yield game_positions(*record)


def text_file_positions(path: str | Path, block: int = 4096) -> Iterator[np.ndarray]:
    """The positions of a text file, packed, in blocks of ``block``."""
    rows = []
    for fen, score, result in read_data(path, check_position=False):
        rows.append(pack(Position.from_fen(fen), score, result))
        if len(rows) == block:
            yield np.array(rows, dtype=POSITION)
            rows = []
    if rows:
        yield np.array(rows, dtype=POSITION)


def data_set_positions(paths: Iterable[str | Path]) -> Iterator[np.ndarray]:
    """Every labelled position of a data set (files and directories, text and game files), packed, in
    blocks."""
    for path in data_files(paths):
        yield from (game_file_positions(path) if is_game_file(path) else text_file_positions(path))


def convert(source: Path, target: Path) -> int:
    """Convert a text file to a game file or back (by ``target``'s suffix: ``.bin`` games, else text); the
    positions converted."""
    if is_game_file(target) == is_game_file(source):
        raise ValueError(f"convert text (.gz) to games (.bin) or back, not {source.suffix} to {target.suffix}")
    if is_game_file(target):
        count = 0

        def counted() -> Iterator[tuple[str, int, float]]:
            nonlocal count
            for line in read_data(source, check_position=False):  # Position.from_fen checks each FEN
                count += 1
                yield line

        write_atomically(target, lambda path: write_games(path, text_to_games(counted())))
        return count
    lines = [format_line(*unpack(row)) for block in game_file_positions(source) for row in block]
    write_data(target, lines)
    return len(lines)
