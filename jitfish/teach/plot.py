"""The teaching mode's charts: the ladder's nodes against depth, and MCTS's visit shares against iterations."""

from __future__ import annotations

import numpy as np

from jitfish.teach.report import LadderReport


def _pyplot(drawing: str):
    """matplotlib's pyplot, drawing to files only; a one-line error naming the extra when it is not installed."""
    from jitfish.runtime.extras import require

    matplotlib = require("matplotlib", drawing)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _saved(figure, path: str | None):
    """Save ``figure`` to ``path`` (PNG or SVG by extension) when given, and close it there; return it."""
    if path is not None:
        import matplotlib.pyplot as plt

        figure.savefig(path, dpi=80)
        plt.close(figure)
    return figure


def _log_scale(axes, xlabel: str, ylabel: str) -> None:
    axes.set_yscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(True, which="major", alpha=0.3)


def plot_nodes(report: LadderReport, path: str | None = None, title: str | None = None):
    """Draw the ladder's node counts; save to ``path`` (PNG or SVG by extension) when given; return the figure."""
    plt = _pyplot("drawing the ladder")

    figure, axes = plt.subplots(figsize=(7.5, 4.8))
    tree = [(d, n) for d, n in sorted(report.minimax_tree.items()) if d >= 1 and n]
    if tree:
        axes.plot(*zip(*tree), color="0.6", linestyle="--", linewidth=2.5, label="minimax tree (perft)")
    markers = "os^vD<>p"
    for index, name in enumerate(report.algorithms):
        points = report.nodes(name)
        if points:
            axes.plot(*zip(*points), marker=markers[index % len(markers)], label=name)
    _log_scale(axes, "depth (plies)", "nodes visited")
    axes.set_xticks(range(1, report.depth + 1))
    where = f"{len(report.fens)} positions" if len(report.fens) > 1 else report.fens[0]
    axes.set_title(title or f"Nodes against depth: {where}", fontsize=9)
    axes.legend(fontsize=8)
    figure.tight_layout()
    return _saved(figure, path)


VISITS_SHOWN = 5  # root moves drawn per chart (the most visited at the end, and alpha-beta's choice)


def plot_visits(reports, path: str | None = None, columns: int = 2):
    """Each root move's share of MCTS's visits against iterations, one chart per :class:`MctsReport`.

    The moves most visited at the end are drawn, and alpha-beta's choice
    (thick, dashed) whether or not MCTS liked it.  Several reports share one
    figure, ``columns`` charts a row.  Saves to ``path`` (PNG or SVG by
    extension) when given; returns the figure.
    """
    plt = _pyplot("drawing MCTS's visits")

    reports = [reports] if not isinstance(reports, (list, tuple)) else list(reports)
    columns = min(columns, len(reports))
    rows = -(-len(reports) // columns)
    figure, grid = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.6 * rows), squeeze=False)
    for axes, report in zip(grid.flat, reports):
        reference = report.alphabeta_choice
        shown = report.ranking()[:VISITS_SHOWN]
        key = report.moves.index(reference.best_move) if reference is not None else None
        if key is not None and key not in shown:
            shown.append(key)
        shares = np.array([report.shares(k) for k in range(len(report.checkpoints))])
        for index in shown:
            is_key = index == key
            axes.plot(
                report.checkpoints,
                shares[:, index],
                linewidth=3 if is_key else 1.5,
                linestyle="--" if is_key else "-",
                marker=None if is_key else ".",
                label=report.san[index] + (" (alpha-beta)" if is_key else ""),
            )
        axes.set_xscale("log")
        axes.set_ylim(0, min(1.0, max(0.25, 1.1 * shares[:, shown].max())))
        axes.set_xlabel("iterations")
        axes.set_ylabel("share of the root's visits")
        axes.grid(True, alpha=0.3)
        axes.set_title(f"{report.policy} playouts, c = {report.exploration:.2f}\n{report.fen}", fontsize=8)
        axes.legend(fontsize=7, loc="upper left")
    for axes in list(grid.flat)[len(reports) :]:
        axes.set_axis_off()
    figure.tight_layout()
    return _saved(figure, path)


def plot_bounds(report: LadderReport, path: str | None = None):
    """MTD(f)'s bounds pass by pass, one chart per depth: the lower bound rises, the upper falls, until they meet.

    Each pass's question ("at least gamma?") is a dot, filled when the answer
    was yes; the dashed line is the value.  Saves to ``path`` (PNG or SVG by
    extension) when given; returns the figure.
    """
    if not report.passes:
        raise ValueError("the report holds no MTD(f) passes: run the ladder with the mtdf rung, on one position")
    plt = _pyplot("drawing MTD(f)'s bounds")

    depths = sorted(report.passes)
    figure, grid = plt.subplots(1, len(depths), figsize=(2.9 * len(depths) + 0.6, 3.8), squeeze=False)
    for axes, depth in zip(grid.flat, depths):
        passes = report.passes[depth]
        shown = [report.guesses[depth]] + [v for p in passes for v in (p.gamma, p.result)]
        margin = max(10, (max(shown) - min(shown)) // 8)
        bottom, top = min(shown) - margin, max(shown) + margin
        numbers = range(len(passes) + 1)
        # Before any pass the value may be anything; a bound not yet known is drawn at the chart's edge.
        lower = [bottom] + [max(p.lower, bottom) for p in passes]
        upper = [top] + [min(p.upper, top) for p in passes]
        axes.fill_between(numbers, lower, upper, step="post", color="tab:green", alpha=0.15, label="still possible")
        known_upper = [np.nan if u >= top else u for u in upper]
        known_lower = [np.nan if v <= bottom else v for v in lower]
        axes.step(numbers, known_upper, where="post", color="tab:red", label="upper bound")
        axes.step(numbers, known_lower, where="post", color="tab:blue", label="lower bound")
        axes.scatter(
            range(1, len(passes) + 1),
            [p.gamma for p in passes],
            s=14,
            facecolors=["black" if p.failed_high else "white" for p in passes],
            edgecolors="black",
            zorder=3,
            label="question: value >= gamma? (filled: yes)",
        )
        axes.axhline(passes[-1].lower, color="0.4", linestyle="--", linewidth=1, label="value")
        axes.set_ylim(bottom, top)
        axes.set_xlim(0, len(passes) + 0.5)
        axes.xaxis.get_major_locator().set_params(integer=True)
        axes.set_title(f"depth {depth}: {len(passes)} passes from {report.guesses[depth]:+d}", fontsize=9)
        axes.set_xlabel("pass")
        axes.grid(True, alpha=0.3)
    grid.flat[0].set_ylabel("centipawns (side to move)")
    handles, labels = grid.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    figure.suptitle(f"MTD(f): the bounds close in on the value\n{report.fens[0]}", fontsize=9)
    figure.tight_layout(rect=(0, 0.07, 1, 1))
    return _saved(figure, path)


def plot_belief(game, path: str | None = None):
    """The size of each sampling player's belief state over a Kriegspiel game (log scale), ply by ply.

    Filled markers are exact sizes, triangles upper bounds (the opponent's
    king alone), hollow ones estimates from a sample.  Saves to ``path`` (PNG
    or SVG by extension) when given; returns the figure.
    """
    plt = _pyplot("drawing the belief state")

    figure, axes = plt.subplots(figsize=(7.5, 4.2))
    styles = {"exact": ("o", True), "bounded": ("^", True), "sampled": ("o", False)}
    for color, name in ((True, game.white), (False, game.black)):
        plies = [p for p in game.plies if p.color == color and p.decision is not None]
        if not plies:
            continue
        line = axes.plot([p.number for p in plies], [p.decision.belief_size for p in plies], linewidth=1)[0]
        for mode, (marker, filled) in styles.items():
            shown = [p for p in plies if p.decision.mode == mode]
            if shown:
                axes.scatter(
                    [p.number for p in shown],
                    [p.decision.belief_size for p in shown],
                    marker=marker,
                    s=22,
                    facecolors=line.get_color() if filled else "white",
                    edgecolors=line.get_color(),
                    zorder=3,
                    label=f"{name} ({'White' if color else 'Black'}): {mode}",
                )
    _log_scale(axes, "ply", "positions in the belief state")
    axes.set_title(
        f"Kriegspiel, seed {game.seed}: {game.white} against {game.black}, {game.result} ({game.reason})", fontsize=9
    )
    axes.legend(fontsize=7)
    figure.tight_layout()
    return _saved(figure, path)
