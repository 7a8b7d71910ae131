"""Nodes against depth for each algorithm, on a log scale, with the full minimax tree for scale."""

from __future__ import annotations

from jitfish.teach.report import LadderReport


def plot_nodes(report: LadderReport, path: str | None = None, title: str | None = None):
    """Draw the ladder's node counts; save to ``path`` (PNG or SVG by extension) when given; return the figure."""
    from jitfish.extras import require

    matplotlib = require("matplotlib", "drawing the ladder")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    tree = [(d, n) for d, n in sorted(report.minimax_tree.items()) if d >= 1 and n]
    if tree:
        axes.plot(*zip(*tree), color="0.6", linestyle="--", linewidth=2.5, label="minimax tree (perft)")
    markers = "os^vD<>p"
    for index, name in enumerate(report.algorithms):
        points = report.nodes(name)
        if points:
            axes.plot(*zip(*points), marker=markers[index % len(markers)], label=name)
    axes.set_yscale("log")
    axes.set_xlabel("depth (plies)")
    axes.set_ylabel("nodes visited")
    axes.set_xticks(range(1, report.depth + 1))
    axes.grid(True, which="major", alpha=0.3)
    where = f"{len(report.fens)} positions" if len(report.fens) > 1 else report.fens[0]
    axes.set_title(title or f"Nodes against depth: {where}", fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    if path is not None:
        figure.savefig(path, dpi=80)
        plt.close(figure)
    return figure
