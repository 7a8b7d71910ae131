"""The training data set kept in the repository: game files and a manifest with a row for each.

The network's data lives in ``data/nnue/`` (outside the package and the
wheel) as game files (:mod:`tuning.datagen.records`), so that it outlasts
any one machine and the shipped network can be trained again from it.
``manifest.json`` beside them has one row per file::

    {"file": "selfplay-seed106-nodes5000-nnue-1a2b3c4d5e6f.bin", "positions": 160000, "games": 1600,
     "white_wins": 400, "draws": 760, "black_wins": 440, "seed": 106, "commit": "6a85c0d",
     "teacher": "nnue-1a2b3c4d5e6f", "nodes": 5000, "depth_cap": 16, "bytes": 401234,
     "sha256": "9f86d08..."}

``teacher`` is the evaluation the generator's searches used: ``hce`` (the
hand-written one) or ``nnue-`` and the first 12 hex digits of the network
file's SHA-256 (:func:`teacher_name`).  ``commit`` is the generator's build.
``bytes`` and ``sha256`` say what the file holds: the set is the first
``bytes`` bytes of each file, whose SHA-256 is ``sha256``.  A self-play run given
``--data-dir`` rewrites its file (atomically, by a rename) and then its row after
every finished chunk, so that committing the folder at any moment commits
everything finished.  A file only ever grows by whole chunks, so a run killed
between the two writes leaves a file longer than its row says, whose first
``bytes`` are still the set as the manifest lists it: the rest joins the set with
the next row.  ``python -m tuning.datagen check DIR`` verifies every file's bytes
and recounts its records against its row (:func:`check`); the trainer refuses a
set that does not check.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from tuning.datagen.lines import write_atomically
from tuning.datagen.records import GAME_SUFFIX, MANIFEST, RESULTS, manifest_rows, read_games

HCE_TEACHER = "hce"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "nnue"


@dataclass
class FileRow:
    """What the manifest says of one game file."""

    file: str  # the file's name, in the manifest's folder
    positions: int  # labelled positions
    games: int
    white_wins: int
    draws: int
    black_wins: int
    seed: int
    commit: str  # the generator's build
    teacher: str  # "hce" or "nnue-<sha256 prefix>"
    nodes: int  # soft node limit per move
    depth_cap: int
    bytes: int  # the file's bytes in the set: its first ``bytes``
    sha256: str  # their SHA-256, hex


def file_digest(path: str | Path, size: int | None = None) -> tuple[int, str]:
    """The size and SHA-256 (hex) of a file, or of its first ``size`` bytes."""
    with open(path, "rb") as handle:
        data = handle.read() if size is None else handle.read(size)
    return len(data), hashlib.sha256(data).hexdigest()


def teacher_name(network: str | Path | None) -> str:
    """``hce`` for the hand-written evaluation (``None``), else ``nnue-`` and the network file's hash."""
    if network is None:
        return HCE_TEACHER
    return "nnue-" + hashlib.sha256(Path(network).read_bytes()).hexdigest()[:12]


def file_name(seed: int, nodes: int, teacher: str) -> str:
    """The name of a self-play run's file in the data folder."""
    return f"selfplay-seed{seed}-nodes{nodes}-{teacher}{GAME_SUFFIX}"


def build_commit() -> str:
    """The short commit of the checkout the generator runs from (``unknown`` outside git), with ``+``
    when its tracked files have changes."""
    root = Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "jitfish", "tuning"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+" if dirty else "")


def read_manifest(folder: str | Path) -> list[FileRow]:
    """The rows of ``folder``'s manifest (none if it has no manifest); ``ValueError`` if malformed."""
    try:
        return [FileRow(**row) for row in manifest_rows(folder) or []]
    except TypeError as error:
        raise ValueError(f"{Path(folder) / MANIFEST}: not a data manifest ({error})") from None


def write_row(folder: str | Path, row: FileRow) -> None:
    """Add ``row`` to ``folder``'s manifest, or replace the row of the same file; rows stay sorted by file."""
    folder = Path(folder)
    rows = {r.file: r for r in read_manifest(folder)}
    rows[row.file] = row
    lines = ",\n".join(" " + json.dumps(asdict(rows[name])) for name in sorted(rows))
    text = '{"files": [\n' + lines + "\n]}\n"  # JSON with a line per row
    write_atomically(folder / MANIFEST, lambda path: path.write_text(text))


def count(path: str | Path, size: int | None = None) -> dict[str, int]:
    """The games, labelled positions and results a game file holds (in its first ``size`` bytes), counted
    by reading it; ``ValueError`` naming the first record that cannot be read."""
    counts = dict(games=0, positions=0, white_wins=0, draws=0, black_wins=0)
    names = dict(zip(RESULTS, ("black_wins", "draws", "white_wins")))
    codes = dict(enumerate(RESULTS))
    for start, _, _, labelled in read_games(path, size):
        counts["games"] += 1
        counts["positions"] += int(labelled.sum())
        counts[names[codes[int(start["result"])]]] += 1
    return counts


def _problems(folder: Path, row: FileRow) -> list[str]:
    """What is wrong with one row's file, each a line that names the file."""
    path = folder / row.file
    if not path.is_file():
        return [f"{row.file}: in the manifest, but no such file"]
    size = path.stat().st_size
    wrong = []
    if size < row.bytes:
        wrong.append(f"{size:,} bytes, the manifest lists {row.bytes:,}: cut short")
    elif file_digest(path, row.bytes)[1] != row.sha256:
        wrong.append(f"its first {row.bytes:,} bytes are not the manifest's (SHA-256 {row.sha256[:12]}...)")
    try:
        found = count(path, row.bytes)
    except ValueError as error:
        return [f"{row.file}: " + "; ".join(wrong + [str(error).removeprefix(f"{row.file}: ")])]
    if wrong:
        wrong.append("every record reads (the change is in gzip's framing)")
    wrong += [
        f"{name} {getattr(row, name)} in the manifest, {found[name]} in the file"
        for name in ("games", "positions", "white_wins", "draws", "black_wins")
        if getattr(row, name) != found[name]
    ]
    if row.games != row.white_wins + row.draws + row.black_wins:
        wrong.append("its results do not add up to its games")
    return [f"{row.file}: " + "; ".join(wrong)] if wrong else []


def check(folder: str | Path, files: list[str] | None = None) -> list[str]:
    """What is wrong with ``folder`` (with ``files``: with those of its files only): a row whose file is
    missing, cut short, altered, unreadable or holds other counts; a game file without a row.  One line
    each, naming the file (and the first record that cannot be read); an empty list when the manifest
    adds up."""
    folder = Path(folder)
    every_row = read_manifest(folder)
    rows = [row for row in every_row if files is None or row.file in files]
    problems = [problem for row in rows for problem in _problems(folder, row)]
    listed = {row.file for row in every_row}
    candidates = sorted(folder.glob(f"*{GAME_SUFFIX}")) if files is None else [folder / name for name in files]
    unlisted = [path.name for path in candidates if path.name not in listed]
    problems += [f"{name}: a game file with no row in the manifest" for name in unlisted]
    return problems


def verify(paths: list[str] | list[Path]) -> None:
    """``ValueError`` unless every data set among ``paths`` (a folder with a manifest, or a file in one)
    checks (:func:`check`): what the trainer calls before it reads a byte."""
    problems = []
    for path in map(Path, paths):
        if path.is_dir() and (path / MANIFEST).is_file():
            problems += check(path)
        elif path.is_file() and (path.parent / MANIFEST).is_file():
            problems += check(path.parent, [path.name])
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ValueError(f"the data does not check: {problems[0]}{more}; python -m tuning.datagen check DIR")


def totals(folder: str | Path) -> dict[str, int]:
    """The positions and games of the whole folder, and the positions each teacher labelled."""
    rows = read_manifest(folder)
    result = {"positions": sum(r.positions for r in rows), "games": sum(r.games for r in rows)}
    for row in rows:
        result[f"positions by {row.teacher}"] = result.get(f"positions by {row.teacher}", 0) + row.positions
    return result
