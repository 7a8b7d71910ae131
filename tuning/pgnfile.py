"""A match's PGN file, plain or gzip-compressed by its name: ``--pgnout games.pgn.gz`` writes compressed games.

The runners append each finished game as it ends, so that a stopped match keeps what it played (``--resume``
reads it back).  In a ``.gz`` file every append is a gzip member of its own, which ``gzip`` and
:func:`gzip.open` read as one stream; :func:`compact` rewrites the file as one member at the end of a run
(separate members take about 40 % more room), compressed like ``gzip -9 -n``: no name and no time in
its header, so the same games give the same bytes.  A member cut short (a run killed while it wrote) is left
out when the file is read, and :func:`compact` drops it.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

GZIP_SUFFIX = ".gz"
COMPRESSION_LEVEL = 9


def is_compressed(path: str | os.PathLike[str]) -> bool:
    """Whether the file's name asks for gzip (``.pgn.gz``)."""
    return str(path).endswith(GZIP_SUFFIX)


def _complete_members(data: bytes) -> bytes:
    """The text of every whole gzip member of ``data``, in order; a last member cut short is left out."""
    out = []
    while data:
        member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        text = member.decompress(data)
        if not member.eof:
            break
        out.append(text)
        data = member.unused_data
    return b"".join(out)


def read_text(path: str | os.PathLike[str]) -> str:
    """The games in the file, as PGN text ("" for a file that does not exist)."""
    file = Path(path)
    if not file.exists():
        return ""
    data = file.read_bytes()
    return (_complete_members(data) if is_compressed(file) else data).decode("utf-8")


def _gzip(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), COMPRESSION_LEVEL, mtime=0)


def append(path: str | os.PathLike[str], text: str) -> None:
    """Add ``text`` (one or more games) at the end of the file, compressed when its name ends in ``.gz``."""
    if is_compressed(path):
        with open(path, "ab") as handle:
            handle.write(_gzip(text))
    else:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def compact(path: str | os.PathLike[str] | None) -> None:
    """Rewrite a ``.gz`` file as one gzip member (atomically); a plain or missing file is left as it is."""
    if path is None or not is_compressed(path) or not Path(path).exists():
        return
    file = Path(path)
    data = file.read_bytes()
    packed = _gzip(_complete_members(data).decode("utf-8"))
    if packed == data:
        return
    scratch = file.with_name(f".{file.name}.compacting")
    scratch.write_bytes(packed)
    os.replace(scratch, file)
