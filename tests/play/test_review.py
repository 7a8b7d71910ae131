"""After the game: ``jitfish analyse`` on the saved PGN, its summary with each marked move and the better
line, and the analysed game written beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

from jitfish.play.review import review

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "analyse" / "sunfish-jitfish.pgn"


def test_the_review_prints_the_accuracies_and_the_marked_moves_with_a_better_line(tmp_path):
    game = tmp_path / "game.pgn"
    shutil.copy(SHIPPED, game)
    lines: list[str] = []
    written = review(game, lines.append, nodes=20_000)
    lines = "\n".join(lines).splitlines()
    assert written == tmp_path / "game-analysed.pgn" and written.is_file()
    assert lines[0] == "game 1 (Sunfish - Jitfish), 0-1"
    assert lines[1].startswith("  White (Sunfish): accuracy ")
    marked = [line for line in lines if "; better: " in line]
    assert any(line.startswith("  12. Qb7?? blunder; better: 12. ") for line in marked), lines
    assert lines[-1].startswith(f"Analysed game written to {written}")
