"""The teaching mode's position files: one ``FEN; <setting> N; comment`` a line, ``#`` starting a comment line."""

from __future__ import annotations

from pathlib import Path


def read_positions(path: str | Path, setting: str) -> list[tuple[str, int, str]]:
    """(FEN, N, comment) for each line ``FEN; <setting> N; comment`` of ``path`` (the comment may be absent).

    ``setting`` names the number each position is shown with (``depth``,
    ``iterations``); a line without it is a ``ValueError`` naming the file
    and line.
    """
    entries = []
    for number, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";")]
        words = fields[1].split() if len(fields) > 1 else []
        if len(words) != 2 or words[0] != setting or not words[1].isdigit():
            raise ValueError(f"{path}:{number}: expected 'FEN; {setting} N; comment'")
        entries.append((fields[0], int(words[1]), "; ".join(fields[2:])))
    return entries
