"""A game's evaluation as a picture: White's winning chances after every move, the marked moves on it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from jitfish.analysis.judge import NAG_BLUNDER, NAG_INACCURACY, NAG_MISTAKE
from jitfish.analysis.report import percent

if TYPE_CHECKING:
    from jitfish.analysis.games import GameAnalysis

# Lichess's colours for the marks.
MARK_STYLE = {
    NAG_INACCURACY: ("#56b4e9", "?!", "inaccuracy"),
    NAG_MISTAKE: ("#e69f00", "?", "mistake"),
    NAG_BLUNDER: ("#db3031", "??", "blunder"),
}


def plot_game(analysis: GameAnalysis, path: str | Path | None = None):
    """Draw ``analysis`` (White's winning chances against the move number); save a PNG to ``path`` when
    given; return the figure."""
    from jitfish.runtime.extras import require

    matplotlib = require("matplotlib", "jitfish analyse --plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    moves = analysis.moves
    if not moves:
        raise ValueError(f"{analysis.name} has no analysed move to draw")
    first = moves[0]
    start = first.move_number + (0 if first.white else 0.5)  # x of the position before the first move
    xs = [start] + [move.move_number + (0.5 if move.white else 1.0) for move in moves]
    chances = [first.chances_before] + [move.chances_after for move in moves]
    figure, axes = plt.subplots(figsize=(9, 3.6))
    axes.fill_between(xs, chances, 50, where=[c >= 50 for c in chances], color="0.92", interpolate=True)
    axes.fill_between(xs, chances, 50, where=[c <= 50 for c in chances], color="0.55", interpolate=True)
    axes.plot(xs, chances, color="#4a7bb5", linewidth=1.6)
    axes.axhline(50, color="0.5", linewidth=0.8)
    for nag, (colour, symbol, word) in MARK_STYLE.items():
        marked = [(x, c, m) for x, c, m in zip(xs[1:], chances[1:], moves) if m.nag == nag]
        if not marked:
            continue
        axes.scatter([x for x, _, _ in marked], [c for _, c, _ in marked], color=colour, s=40, zorder=3, label=word)
        for x, c, move in marked:
            if nag != NAG_INACCURACY:
                axes.annotate(
                    move.label + symbol,
                    (x, c),
                    textcoords="offset points",
                    xytext=(4, 6 if c < 25 else -14),  # beside the dot, inside the axes
                    fontsize=8,
                    bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none", "alpha": 0.85},
                )
    axes.set_xlim(xs[0], xs[-1])
    axes.set_ylim(-3, 103)
    axes.set_yticks([0, 25, 50, 75, 100])
    axes.set_xlabel("move")
    axes.set_ylabel("White's winning chances (%)")
    headers = analysis.game.headers if analysis.game is not None else {}
    title = f"{headers.get('White', '?')} - {headers.get('Black', '?')}  {headers.get('Result', '*')}"
    accuracy = f"accuracy: White {percent(analysis.white_accuracy)}, Black {percent(analysis.black_accuracy)}"
    axes.set_title(f"{title}    ({accuracy})", fontsize=9)
    axes.grid(True, axis="y", alpha=0.3)
    if any(move.nag is not None for move in moves):
        axes.legend(fontsize=8, loc="best", framealpha=0.9)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=90)
        plt.close(figure)
    return figure
