"""The training data set kept in the repository: game files and a manifest with a row for each.

The network's data lives in ``data/nnue/`` (outside the package and the
wheel) as game files (:mod:`tuning.datagen.records`), so that it outlasts
any one machine and the shipped network can be trained again from it.
``manifest.json`` beside them has one row per file::

    {"file": "selfplay-seed106-nodes5000-nnue-1a2b3c4d5e6f.bin", "positions": 160000, "games": 1600,
     "white_wins": 400, "draws": 760, "black_wins": 440, "seed": 106, "commit": "6a85c0d",
     "teacher": "nnue-1a2b3c4d5e6f", "nodes": 5000, "depth_cap": 16}

``teacher`` is the evaluation the generator's searches used: ``hce`` (the
hand-written one) or ``nnue-`` and the first 12 hex digits of the network
file's SHA-256 (:func:`teacher_name`).  ``commit`` is the generator's build.
A self-play run given ``--data-dir`` rewrites its file and its row after every
finished chunk (:func:`publish`), so that committing the folder at any moment
commits everything finished; ``python -m tuning.datagen check DIR`` recounts
every file against its row.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from tuning.datagen.lines import write_atomically
from tuning.datagen.records import GAME_SUFFIX, RESULTS, read_games

MANIFEST = "manifest.json"
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
    path = Path(folder) / MANIFEST
    if not path.exists():
        return []
    try:
        rows = json.loads(path.read_text())["files"]
        return [FileRow(**row) for row in rows]
    except (KeyError, TypeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path}: not a data manifest ({error})") from None


def write_row(folder: str | Path, row: FileRow) -> None:
    """Add ``row`` to ``folder``'s manifest, or replace the row of the same file; rows stay sorted by file."""
    folder = Path(folder)
    rows = {r.file: r for r in read_manifest(folder)}
    rows[row.file] = row
    lines = ",\n".join(" " + json.dumps(asdict(rows[name])) for name in sorted(rows))
    text = '{"files": [\n' + lines + "\n]}\n"  # JSON with a line per row
    write_atomically(folder / MANIFEST, lambda path: path.write_text(text))


def count(path: str | Path) -> dict[str, int]:
    """The games, labelled positions and results a game file holds, counted by reading it."""
    counts = dict(games=0, positions=0, white_wins=0, draws=0, black_wins=0)
    names = dict(zip(RESULTS, ("black_wins", "draws", "white_wins")))
    codes = dict(enumerate(RESULTS))
    for start, _, _, labelled in read_games(path):
        counts["games"] += 1
        counts["positions"] += int(labelled.sum())
        counts[names[codes[int(start["result"])]]] += 1
    return counts


def check(folder: str | Path) -> list[str]:
    """What is wrong with ``folder``: a row whose file is missing or holds other counts, a game file
    without a row.  An empty list when the manifest adds up."""
    folder = Path(folder)
    rows = read_manifest(folder)
    problems = []
    counted = ("games", "positions", "white_wins", "draws", "black_wins")
    for row in rows:
        path = folder / row.file
        if not path.is_file():
            problems.append(f"{row.file}: in the manifest, but no such file")
            continue
        found = count(path)
        wrong = [
            f"{name} {getattr(row, name)} in the manifest, {found[name]} in the file"
            for name in counted
            if getattr(row, name) != found[name]
        ]
        if row.games != row.white_wins + row.draws + row.black_wins:
            wrong.append("its results do not add up to its games")
        problems += [f"{row.file}: {problem}" for problem in wrong]
    listed = {row.file for row in rows}
    problems += [
        f"{path.name}: a game file with no row in the manifest"
        for path in sorted(folder.glob(f"*{GAME_SUFFIX}"))
        if path.name not in listed
    ]
    return problems


def totals(folder: str | Path) -> dict[str, int]:
    """The positions and games of the whole folder, and the positions each teacher labelled."""
    rows = read_manifest(folder)
    result = {"positions": sum(r.positions for r in rows), "games": sum(r.games for r in rows)}
    for row in rows:
        result[f"positions by {row.teacher}"] = result.get(f"positions by {row.teacher}", 0) + row.positions
    return result
