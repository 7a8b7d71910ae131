"""Binary training data: 32-byte packed positions, and games stored as a start position and moves.

A **packed position** (``POSITION``, 32 bytes, little-endian) holds every
field of a ``FEN | score | result`` line:

======  =====  ==========================================================
offset  bytes  field
======  =====  ==========================================================
0       8      occupancy bitboard (bit ``s`` set: a piece on square ``s``, a1 = 0)
8       16     the pieces of the set bits in increasing square order, 4 bits each,
               low nibble first: ``colour * 6 + type`` (white 0-5, black 6-11;
               pawn, knight, bishop, rook, queen, king)
24      1      bit 0: black to move; bits 1-4: castling rights K, Q, k, q
25      1      en-passant square as the FEN shows it (only when a capture there
               is legal), 64 for none
26      1      halfmove clock
27      1      result from white's view: 0 a black win, 1 a draw, 2 a white win
28      2      fullmove number
30      2      score, centipawns from white's view
======  =====  ==========================================================

A **game file** (``.bin``) is what the generator writes: a gzip stream (one
or more members, so files and chunks append by concatenation) of records,
each member starting with ``MAGIC``.  A record of a game of ``n`` moves is::

    uint16 n
    POSITION start                  the first position; its result field is the game's
    uint8  number[n]                each move's number among the legal moves (kernels.sorted_legal_moves)
    uint8  labelled[(n + 8) // 8]   bit i (little-endian bit order): position i has a label
    uint8  low[n + 1], high[n + 1]  each position's score (white's view) as the difference from the
                                    previous one's (the first from 0), zigzag-coded (0, -1, 1, -2 ...
                                    as 0, 1, 2, 3 ...), low bytes then high bytes

Scores change little from ply to ply, so the differences are small and
their high bytes nearly all zero, which gzip packs to almost nothing: a
labelled position costs about a byte and a half (docs/nnue-data.md has the
measured sizes).  Unlabelled positions (the generator's non-quiet ones, and
the plies a converted text file skips) keep a score (the search's, or the
previous one) so that the differences stay small.  The magic's first two
bytes read as a move count above any game's, so a reader tells them apart.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from jitfish.board import layout as L
from jitfish.board.squares import NO_SQUARE, PIECE_SYMBOLS, SQUARE_NAMES
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN

if TYPE_CHECKING:
    from jitfish.board.position import Position

# A data set's manifest, beside its files (tuning.datagen.dataset).
MANIFEST = "manifest.json"

POSITION = np.dtype(
    [
        ("occupied", "<u8"),
        ("pieces", "u1", 16),
        ("flags", "u1"),
        ("en_passant", "u1"),
        ("halfmove", "u1"),
        ("result", "u1"),
        ("fullmove", "<u2"),
        ("score", "<i2"),
    ]
)
assert POSITION.itemsize == 32
SCORE_LIMIT = 32767  # scores are int16; -32768 is left out so that -score fits
RESULT_CODES = {BLACK_WIN: 0, DRAW: 1, WHITE_WIN: 2}
RESULTS = (BLACK_WIN, DRAW, WHITE_WIN)  # by code
CASTLING_LETTERS = "KQkq"  # bits 1-4 of flags, as the engine's rights 0-3
MAGIC = b"JFGAMES1"
MAX_MOVES_PER_GAME = int.from_bytes(MAGIC[:2], "little") - 1
GAME_SUFFIX = ".bin"


def pack(position: Position, score: int, result: float) -> np.ndarray:
    """A packed position (a 0-d ``POSITION`` array) of an engine position, its score and its result."""
    from jitfish.board.tables import lookup_tables
    from tuning.datagen.kernels import pack_position

    if int(position.state[L.HALFMOVE_CLOCK]) > 255 or int(position.state[L.FULLMOVE_NUMBER]) > 65535:
        raise ValueError(f"move counters too large to pack in {position.fen()!r}")
    if position.chess960:
        raise ValueError("Chess960 positions cannot be packed (castling rights are K, Q, k, q only)")
    if abs(score) > SCORE_LIMIT:
        raise ValueError(f"score {score} out of the int16 range")
    record = np.zeros((), dtype=POSITION)
    pack_position(position.bbs, position.state, lookup_tables(), record.reshape(1).view(np.uint8).reshape(32))
    record["score"] = score
    record["result"] = RESULT_CODES[result]
    return record


def pack_fen(fen: str, score: int, result: float) -> np.ndarray:
    """:func:`pack` of a FEN; ``ValueError`` for a bad one."""
    from jitfish.board.position import Position

    return pack(Position.from_fen(fen), score, result)


def pieces(records: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(record number, square, piece)`` of every piece of packed positions, by record then square."""
    records = np.asarray(records, dtype=POSITION).reshape(-1)
    bits = np.unpackbits(
        records["occupied"].astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
    ).astype(bool)
    nibbles = np.empty((len(records), 32), dtype=np.uint8)
    nibbles[:, 0::2] = records["pieces"] & 0xF
    nibbles[:, 1::2] = records["pieces"] >> 4
    rank_in_record = np.cumsum(bits, axis=1) - 1
    number, square = np.nonzero(bits)
    return number, square, nibbles[number, rank_in_record[number, square]].astype(np.int64)


def unpack_fen(record: np.ndarray) -> str:
    """The FEN of a packed position."""
    mailbox = [None] * 64
    for _, square, piece in zip(*pieces(record)):
        mailbox[square] = PIECE_SYMBOLS[piece]
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for piece in mailbox[rank * 8 : rank * 8 + 8]:
            if piece is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + piece
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    flags = int(record["flags"])
    castling = "".join(letter for right, letter in enumerate(CASTLING_LETTERS) if flags >> (right + 1) & 1) or "-"
    en_passant = int(record["en_passant"])
    return (
        f"{'/'.join(rows)} {'b' if flags & 1 else 'w'} {castling} "
        f"{SQUARE_NAMES[en_passant] if en_passant != NO_SQUARE else '-'} "
        f"{int(record['halfmove'])} {int(record['fullmove'])}"
    )


def unpack(record: np.ndarray) -> tuple[str, int, float]:
    """``(fen, score, result)`` of a packed position, as a text line has them."""
    return unpack_fen(record), int(record["score"]), RESULTS[int(record["result"])]


def position_of(record: np.ndarray) -> Position:
    """The engine position of a packed position."""
    from jitfish.board.position import Position

    return Position.from_fen(unpack_fen(record))


# --- game records -------------------------------------------------------------
def encode_game(start: np.ndarray, numbers: Iterable[int], scores: Iterable[int], labelled: Iterable[bool]) -> bytes:
    """One game record: ``start`` (a packed position holding the result), the moves' numbers, and the
    scores of every position (one more than the moves) and whether each is a label."""
    numbers = np.asarray(list(numbers), dtype=np.uint8)
    scores = np.asarray(list(scores), dtype=np.int64)
    labelled = np.asarray(list(labelled), dtype=bool)
    if not len(scores) == len(labelled) == len(numbers) + 1 or len(numbers) > MAX_MOVES_PER_GAME:
        raise ValueError(
            f"a game record needs a score and a label flag more than its {len(numbers)} moves, "
            f"got {len(scores)} and {len(labelled)}"
        )
    if np.any(np.abs(scores) > SCORE_LIMIT):
        raise ValueError(f"scores must lie within ±{SCORE_LIMIT}")
    differences = np.diff(scores, prepend=0).astype(np.int16)
    zigzag = ((differences.astype(np.int32) << 1) ^ (differences.astype(np.int32) >> 15)).astype("<u2")
    return (
        np.uint16(len(numbers)).astype("<u2").tobytes()
        + np.asarray(start, POSITION).tobytes()
        + numbers.tobytes()
        + np.packbits(labelled, bitorder="little").tobytes()
        + zigzag.view(np.uint8).reshape(-1, 2).T.tobytes()
    )


def _decode_scores(planes: bytes) -> np.ndarray:
    """Each position's score (``int64``) from the low and high byte planes of a record."""
    zigzag = np.frombuffer(planes, dtype=np.uint8).reshape(2, -1).astype(np.int64)
    zigzag = zigzag[0] | zigzag[1] << 8
    differences = (zigzag >> 1) ^ -(zigzag & 1)
    return np.cumsum(differences).astype(np.int16).astype(np.int64)


def write_games(path: Path, records: Iterable[bytes], append: bool = False) -> None:
    """Write game records as one gzip member (after what ``path`` holds with ``append``).

    The member's header records no time and no file name, so the same games make the same bytes, whenever
    and wherever (a local pool, a cluster's worker) they were written."""
    with (
        open(path, "ab" if append else "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as handle,
    ):
        handle.write(MAGIC)
        for record in records:
            handle.write(record)


def _read_exactly(handle: io.BufferedIOBase, size: int, path: Path) -> bytes:
    data = handle.read(size)
    if len(data) != size:
        raise ValueError(f"{path}: truncated game record")
    return data


def read_games(
    path: str | Path, size: int | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """``(start, numbers, scores, labelled)`` of every game record of a game file (of its first ``size``
    bytes with ``size``: a data set's file as its manifest lists it); ``ValueError`` naming the file and the
    first record that cannot be read when it is malformed, cut short or altered (gzip's checksums)."""
    path = Path(path)
    records = 0
    try:
        with open(path, "rb") as file:
            source = io.BytesIO(file.read(size)) if size is not None else file
            with gzip.GzipFile(fileobj=source, mode="rb") as raw:
                handle = io.BufferedReader(raw, 1 << 16)
                if handle.read(len(MAGIC)) != MAGIC:
                    raise ValueError("not a game file (no header)")
                while head := handle.read(2):
                    if len(head) != 2:
                        raise ValueError("truncated game record")
                    if head == MAGIC[:2]:
                        if _read_exactly(handle, len(MAGIC) - 2, path) != MAGIC[2:]:
                            raise ValueError("bad member header")
                        continue
                    moves = int.from_bytes(head, "little")
                    start = np.frombuffer(_read_exactly(handle, POSITION.itemsize, path), dtype=POSITION)[0]
                    numbers = np.frombuffer(_read_exactly(handle, moves, path), dtype=np.uint8)
                    flags = np.frombuffer(_read_exactly(handle, (moves + 8) // 8, path), dtype=np.uint8)
                    labelled = np.unpackbits(flags, count=moves + 1, bitorder="little").astype(bool)
                    scores = _decode_scores(_read_exactly(handle, 2 * (moves + 1), path))
                    records += 1
                    yield start, numbers, scores, labelled
    except (ValueError, EOFError, OSError, zlib.error) as error:
        reason = str(error).removeprefix(f"{path}: ") or type(error).__name__
        raise ValueError(f"{path.name}: record {records + 1:,} cannot be read: {reason}") from None


def manifest_rows(folder: str | Path) -> list[dict] | None:
    """The rows of a data set's manifest (``folder/manifest.json``, one dict per file: the fields of
    :class:`tuning.datagen.dataset.FileRow`); ``None`` when ``folder`` has none, ``ValueError`` if malformed."""
    manifest = Path(folder) / MANIFEST
    if not manifest.is_file():
        return None
    try:
        rows = json.loads(manifest.read_text())["files"]
        if not all(isinstance(row, dict) and "file" in row for row in rows):
            raise TypeError("a row is not a file's")
        return rows
    except (KeyError, TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"{manifest}: not a data manifest ({error})") from None


def listed_bytes(folder: Path) -> dict[str, int] | None:
    """The files of a data set's manifest with the bytes each holds in the set (a file may be longer while a
    generator writes it: the rest is not yet in the set); ``None`` when ``folder`` has no manifest."""
    rows = manifest_rows(folder)
    if rows is None:
        return None
    try:
        return {row["file"]: int(row["bytes"]) for row in rows}
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{folder / MANIFEST}: not a data manifest ({error!r})") from None


def data_files(paths: Iterable[str | Path]) -> list[Path]:
    """The data files of a data set: files as given, directories searched (recursively, sorted) for game
    files (``.bin``) and text files (``.gz``), except a directory with a manifest, which holds the files its
    manifest lists (and a generator's ``.parts`` beside them are not data); ``ValueError`` for a missing
    path or an empty set."""
    files: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir() and (listed := listed_bytes(path)) is not None:
            files += [path / name for name in sorted(listed)]
        elif path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*")
                if p.is_file() and p.suffix in (GAME_SUFFIX, ".gz") and not p.name.endswith(".tmp")
            )
        elif path.is_file():
            files.append(path)
        else:
            raise ValueError(f"no such data file or directory: {path}")
    if not files:
        raise ValueError(f"no data files in {', '.join(map(str, paths))}")
    return files


def set_bytes(path: Path) -> int | None:
    """How many bytes of ``path`` belong to its data set: its manifest's count, or ``None`` (all of it)."""
    listed = listed_bytes(path.parent)
    return None if listed is None else listed.get(path.name)


def is_game_file(path: Path) -> bool:
    return path.suffix == GAME_SUFFIX


def game_positions(start: np.ndarray, numbers: np.ndarray, scores: np.ndarray, labelled: np.ndarray) -> np.ndarray:
    """The labelled positions of a game record, packed (``POSITION`` array, in game order)."""
    from jitfish.board.tables import lookup_tables
    from tuning.datagen.kernels import replay_game

    position = position_of(start)
    out = np.zeros(int(np.count_nonzero(labelled)), dtype=POSITION)
    written = replay_game(
        position.bbs,
        position.state,
        position.undo,
        position.key_history,
        lookup_tables(),
        numbers.astype(np.int64),
        scores.astype(np.int64),
        labelled.astype(np.bool_),
        int(start["result"]),
        out.view(np.uint8).reshape(-1, 32),
    )
    if written != len(out):
        raise ValueError(f"a game from {unpack_fen(start)!r} has a move number that is no legal move's")
    return out
