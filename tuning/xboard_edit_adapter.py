"""Lets python-chess drive xboard engines that lack ``setboard`` (Fairy-Max) by translating it to ``edit`` mode.

python-chess refuses xboard engines that declare ``setboard=0``; the match runner's python-chess backend then
restarts the engine through this adapter by itself (``tuning/backends/pychess.py``).  By hand::

    python -m tuning.xboard_edit_adapter /usr/games/fairymax

It passes everything through and, only if the engine declares ``setboard=0``, declares ``setboard=1`` on the
engine's behalf, and turns ``setboard FEN`` into the protocol's edit-mode sequence (``edit``, ``#``, one
``Pa2``-style line per piece, ``c`` to switch colour, ``.``; ``a2a3`` first when Black is to move, as the xboard
protocol document prescribes). Edit mode cannot express en-passant squares or castling rights beyond "king and rook
on their home squares"; the EPD openings used here have neither issue worth a test game. cutechess-cli needs no
adapter: it uses edit mode itself.
"""

from __future__ import annotations

import subprocess
import sys
import threading

import chess


def edit_commands(fen: str) -> list[str]:
    """The xboard commands (after ``new`` and ``force``) that set up ``fen`` in edit mode."""
    board = chess.Board(fen)
    if board.board_fen() == chess.Board().board_fen() and board.turn == chess.WHITE:
        return []
    commands = ["a2a3"] if board.turn == chess.BLACK else []
    commands += ["edit", "#"]
    for color in (chess.WHITE, chess.BLACK):
        if color == chess.BLACK:
            commands.append("c")
        for square, piece in board.piece_map().items():
            if piece.color == color:
                commands.append(piece.symbol().upper() + chess.square_name(square))
    commands.append(".")
    return commands


def _relay_output(source: subprocess.IO[str], lacks_setboard: threading.Event) -> None:
    for line in source:
        if line.startswith("feature") and "setboard=0" in line:
            line = line.replace("setboard=0", "setboard=1")
            lacks_setboard.set()
        sys.stdout.write(line)
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    command = list(sys.argv[1:] if argv is None else argv)
    if not command:
        print("usage: python -m tuning.xboard_edit_adapter ENGINE [ARGS...]", file=sys.stderr)
        return 2
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    lacks_setboard = threading.Event()  # set before python-chess sends any setboard: it waits for "done=1"
    relay = threading.Thread(target=_relay_output, args=(engine.stdout, lacks_setboard), daemon=True)
    relay.start()
    try:
        for line in sys.stdin:
            words = line.split(maxsplit=1)
            if words and words[0] == "setboard" and len(words) == 2 and lacks_setboard.is_set():
                lines = edit_commands(words[1].strip())
            else:
                lines = [line.rstrip("\n")]
            for text in lines:
                engine.stdin.write(text + "\n")
            engine.stdin.flush()
            if words and words[0] == "quit":
                break
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    try:
        engine.stdin.close()
    except BrokenPipeError:
        pass
    code = engine.wait()
    relay.join(timeout=1.0)
    return code


if __name__ == "__main__":
    sys.exit(main())
