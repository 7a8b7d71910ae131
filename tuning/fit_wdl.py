"""Fit the win/draw/loss model of ``jitfish/engine/wdl.py`` to Jitfish's self-play games and check it on held-out ones.

    python -m tuning.fit_wdl /work/shared/data/nnue                # fit, write jitfish/engine/wdl.json, report
    python -m tuning.fit_wdl DATA --plot docs/wdl.png --sample tests/data/wdl_holdout.npz

Each data file is self-play: ``FEN | score | result`` text (``.gz``) or game files (``.bin``), the score
from white's view as the generator's search found it.  Every fifth game of each file (by its order in the
file) is held out; the other games are fitted by maximum likelihood: each position's result (win, draw or
loss, from white's view) under the model's three chances at its score and material.  The held-out games
are then cut into score buckets, and the report (and ``--plot``) sets the observed score (win 1, draw
1/2) of each bucket beside the model's mean prediction.  ``--sample`` writes the held-out positions,
counted by (score, material, result), which ``tests/engine/test_wdl.py`` checks the shipped model against.

Text files hold no game boundaries: a game is taken to end where the result changes or the move number
goes down (a new game starts near move 1, after the last one's last labelled position); on
``selfplay-seed101-nodes5000.gz`` this finds the 5,120 games its README counts.  Needs SciPy (the fit)
and matplotlib (``--plot``).
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

import numpy as np

from jitfish.engine.wdl import PARAMETERS_FILE, PIECE_MATERIAL, material_of_fen, probabilities

HOLD_OUT_EVERY = 5  # game i of a file is held out when i % 5 == 0
FIT_SCORE_LIMIT = 2000  # positions scored beyond ±20 pawns say nothing more about the curve
# Score buckets (centipawns, white's view) of the check; each bucket's predicted and observed scores are
# compared.  Edges are symmetric, so that the check sees both sides of the curve.
BUCKET_EDGES = (-np.inf, -400, -250, -150, -100, -60, -30, -10, 10, 30, 60, 100, 150, 250, 400, np.inf)
TOLERANCE = 0.03  # the acceptance: within 3 percentage points in every bucket


def text_rows(path: Path) -> np.ndarray:
    """``(game, score, material, result)`` rows of a ``FEN | score | result`` file (result 0, 0.5, 1)."""
    rows = []
    game, last_result, last_move = -1, None, 1 << 30
    with gzip.open(path, "rt") as handle:
        for line in handle:
            fen, score, result = (field.strip() for field in line.split("|"))
            move = int(fen.rsplit(" ", 1)[1])
            if result != last_result or move < last_move:
                game += 1
            last_result, last_move = result, move
            rows.append((game, int(score), material_of_fen(fen), float(result)))
    return np.asarray(rows, dtype=float)


def game_file_rows(path: Path) -> np.ndarray:
    """``(game, score, material, result)`` rows of a game file's labelled positions."""
    from tuning.datagen.convert import game_file_positions
    from tuning.datagen.records import RESULTS, pieces

    weights = np.asarray(PIECE_MATERIAL * 2)  # piece codes are colour * 6 + type
    blocks = []
    for game, packed in enumerate(game_file_positions(path)):
        number, _, piece = pieces(packed)
        material = np.bincount(number, weights=weights[piece], minlength=len(packed))
        result = np.asarray(RESULTS)[packed["result"].astype(int)]
        blocks.append(np.column_stack([np.full(len(packed), game), packed["score"], material, result]))
    return np.concatenate(blocks)


def load(paths: list[Path]) -> tuple[np.ndarray, np.ndarray]:
    """Rows ``(score, material, result)`` of the fitted games and of the held-out games of every file."""
    fitted, held_out = [], []
    for path in paths:
        rows = game_file_rows(path) if path.suffix == ".bin" else text_rows(path)
        out = rows[:, 0] % HOLD_OUT_EVERY == 0
        print(
            f"{path.name}: {int(rows[:, 0].max()) + 1} games, {len(rows)} positions, "
            f"{int(np.count_nonzero(out))} held out",
            flush=True,
        )
        fitted.append(rows[~out, 1:])
        held_out.append(rows[out, 1:])
    return np.concatenate(fitted), np.concatenate(held_out)


def negative_log_likelihood(
    coefficients: np.ndarray, score: np.ndarray, material: np.ndarray, result: np.ndarray
) -> float:
    """Mean ``-log P(result)`` under the model with ``coefficients`` (``a``'s four, then ``b``'s)."""
    win, draw, loss = probabilities(score, material, coefficients[:4], coefficients[4:])
    chance = np.where(result == 1.0, win, np.where(result == 0.0, loss, draw))
    return float(-np.mean(np.log(np.clip(chance, 1e-12, None))))


def fit(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The coefficients of ``a`` and ``b`` that make the fitted games' results likeliest."""
    from scipy.optimize import minimize

    kept = rows[np.abs(rows[:, 0]) <= FIT_SCORE_LIMIT]
    start = np.array([0.0, 0.0, 0.0, 150.0, 0.0, 0.0, 0.0, 80.0])  # a = 150 cp, b = 80 cp everywhere
    best = minimize(negative_log_likelihood, start, args=(kept[:, 0], kept[:, 1], kept[:, 2]), method="BFGS")
    print(f"fit: {len(kept)} positions, mean -log P(result) {best.fun:.4f}", flush=True)
    return best.x[:4], best.x[4:]


def bucket_table(
    rows: np.ndarray, a_coefficients: np.ndarray, b_coefficients: np.ndarray, counts: np.ndarray | None = None
) -> list[tuple]:
    """``(low, high, positions, mean score cp, observed score, predicted score)`` of each score bucket
    of ``(score, material, result)`` rows, each standing for ``counts`` positions (default one)."""
    counts = np.ones(len(rows)) if counts is None else counts
    win, draw, _ = probabilities(rows[:, 0], rows[:, 1], a_coefficients, b_coefficients)
    predicted = win + 0.5 * draw
    table = []
    for low, high in zip(BUCKET_EDGES[:-1], BUCKET_EDGES[1:]):
        inside = (rows[:, 0] >= low) & (rows[:, 0] < high)
        if np.any(inside):
            weights = counts[inside]
            table.append(
                (
                    low,
                    high,
                    int(weights.sum()),
                    float(np.average(rows[inside, 0], weights=weights)),
                    float(np.average(rows[inside, 2], weights=weights)),
                    float(np.average(predicted[inside], weights=weights)),
                )
            )
    return table


def print_table(table: list[tuple]) -> float:
    """Print the buckets; the largest gap between observed and predicted score."""
    print(f"{'bucket (cp)':>16} {'positions':>10} {'observed':>9} {'predicted':>9} {'gap':>7}")
    for low, high, count, _, observed, predicted in table:
        print(
            f"{f'[{low:g}, {high:g})':>16} {count:>10} {observed:>9.3f} {predicted:>9.3f} "
            f"{100 * (predicted - observed):>+6.1f}%"
        )
    worst = max(abs(predicted - observed) for *_, observed, predicted in table)
    print(f"largest gap {100 * worst:.1f} percentage points (tolerance {100 * TOLERANCE:.0f})")
    return worst


def plot(
    table: list[tuple], rows: np.ndarray, a_coefficients: np.ndarray, b_coefficients: np.ndarray, path: Path
) -> None:
    """Observed against predicted score per bucket, and the model's curves at three material counts."""
    from jitfish.runtime.extras import require

    require("matplotlib", "python -m tuning.fit_wdl --plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    centres = [mean for *_, mean, _, _ in table]
    left.plot(centres, [observed for *_, observed, _ in table], "o", label="observed (held-out games)")
    left.plot(centres, [predicted for *_, predicted in table], "x-", label="model, mean over the bucket")
    left.set_xlabel("score bucket's mean, cp (white's view)")
    left.set_ylabel("score of white (win 1, draw 1/2)")
    reach = max(abs(centre) for centre in centres) + 100
    left.set_xlim(-reach, reach)
    left.grid(alpha=0.3)
    left.legend()
    left.set_title(
        f"{len(rows)} positions of held-out games: largest gap {100 * max(abs(p - o) for *_, o, p in table):.1f} points"
    )
    scores = np.linspace(-600, 600, 241)
    for material in (78, 40, 12):
        win, draw, loss = probabilities(scores, material, a_coefficients, b_coefficients)
        (line,) = right.plot(scores, win, label=f"win, material {material}")
        right.plot(scores, draw, "--", color=line.get_color(), label=f"draw, material {material}")
    right.set_xlabel("score, cp (side to move)")
    right.set_ylabel("chance")
    right.grid(alpha=0.3)
    right.legend(fontsize=8)
    right.set_title("fitted win and draw chances (material: 78 at the start)")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    print(f"wrote {path}")


def write_sample(rows: np.ndarray, path: Path) -> None:
    """``(score, material, result)`` rows, counted: each distinct row once with its number of positions
    (``.npz``: ``score`` int16, ``material`` uint8, ``result`` uint8 in half points, ``positions``)."""
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    np.savez_compressed(
        path,
        score=distinct[:, 0].astype(np.int16),
        material=distinct[:, 1].astype(np.uint8),
        result=(2 * distinct[:, 2]).astype(np.uint8),
        positions=counts.astype(np.uint32),
    )
    print(f"wrote {path}: {len(rows)} positions, {len(distinct)} distinct")


def read_sample(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The ``(score, material, result)`` rows that :func:`write_sample` wrote, and their counts."""
    with np.load(path) as data:
        rows = np.column_stack([data["score"], data["material"], data["result"] / 2.0]).astype(float)
        return rows, data["positions"].astype(float)


def write_parameters(a_coefficients: np.ndarray, b_coefficients: np.ndarray, path: Path) -> None:
    rounded = {"a": [round(float(x), 3) for x in a_coefficients], "b": [round(float(x), 3) for x in b_coefficients]}
    path.write_text(f'{{"a": {rounded["a"]}, "b": {rounded["b"]}}}\n')
    print(f"wrote {path}: {rounded}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="+", type=Path, help="data files or folders (.gz text, .bin games)")
    parser.add_argument("--out", type=Path, default=PARAMETERS_FILE, help="where the coefficients go")
    parser.add_argument("--plot", type=Path, help="a PNG of observed against predicted score")
    parser.add_argument("--sample", type=Path, help="write the held-out positions here (.npz)")
    args = parser.parse_args(argv)
    from tuning.datagen.records import data_files

    started = time.perf_counter()
    fitted, held_out = load(data_files(args.data))
    a_coefficients, b_coefficients = fit(fitted)
    write_parameters(a_coefficients, b_coefficients, args.out)
    table = bucket_table(held_out, a_coefficients, b_coefficients)
    worst = print_table(table)
    if args.plot:
        plot(table, held_out, a_coefficients, b_coefficients, args.plot)
    if args.sample:
        write_sample(held_out, args.sample)
    print(f"{time.perf_counter() - started:.0f} s")
    return 0 if worst <= TOLERANCE else 1


if __name__ == "__main__":
    sys.exit(main())
