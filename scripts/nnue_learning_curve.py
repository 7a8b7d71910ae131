"""How a network's error falls with the number of training positions, against the hand-written evaluation's.

    python scripts/nnue_learning_curve.py DATA.gz --sizes 100000 200000 400000 --samples 10000000 --out curve.json

The file's last ``--validation`` share (whole games) is held out.  For each size, a network is trained
from scratch on that many of the first positions (the same seed and settings as ``python -m tuning.nnue
train``), for as many epochs as it takes to see ``--samples`` positions (the same work for each size),
and, after every epoch, scored on the held-out positions whose search score lies within
``--within`` centipawns: the mean absolute difference, in centipawns for the side to move, between its
score and the search's.  The best epoch counts.  The hand-written static evaluation is measured on the
same positions, so the question "how much data until a network evaluates as well as the evaluation it
should replace" gets a number, and a power law ``error = a * positions ** -b`` fitted to the curve says
where the two would meet if the trend held.  Writes the table as JSON (``--out``) and a plot beside it.
Needs PyTorch (``pip install -e .[train]``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from jitfish.extras import MissingExtra, report_missing, require  # noqa: E402

try:
    torch = require("torch", "scripts/nnue_learning_curve.py")
    require("matplotlib", "scripts/nnue_learning_curve.py (its plot)")
except MissingExtra as missing:
    sys.exit(report_missing(missing))
import jitfish  # noqa: E402  (after the path: the checkout's packages, not an installed copy)
from jitfish.eval import evaluate as handwritten_evaluation  # noqa: E402
from jitfish.jit import cache_root  # noqa: E402
from tuning.datagen.records import unpack_fen  # noqa: E402
from tuning.nnue.data import and_mirrors, batches, load_positions_cached, split, with_mirrors  # noqa: E402
from tuning.nnue.train import TrainSettings, new_run, output, train_epoch  # noqa: E402

DEFAULT_WITHIN = 600          # centipawns: the held-out positions compared, as in the first networks' report


@torch.no_grad()
def network_error(run, positions, rows: np.ndarray) -> float:
    """Mean |network - search| in centipawns over ``rows``."""
    run.model.eval()
    total = 0.0
    for inputs in batches(positions, rows, 8192):
        scores = output(run.model, inputs).double() * run.settings.scale
        total += float(torch.abs(scores - torch.from_numpy(inputs.score)).sum())
    return total / len(rows)


def handwritten_error(positions, rows: np.ndarray) -> float:
    """Mean |hand-written static evaluation - search| in centipawns over ``rows`` of ``positions``."""
    fens = [unpack_fen(positions.records[row]) for row in rows]
    static = np.array([handwritten_evaluation(jitfish.Board(fen)) for fen in fens], dtype=np.float64)
    return float(np.mean(np.abs(static - positions.score[rows])))


def power_law(sizes: list[int], errors: list[float]) -> tuple[float, float]:
    """``a, b`` of ``error = a * size ** -b``, fitted in log-log space."""
    slope, intercept = np.polyfit(np.log(sizes), np.log(errors), 1)
    return float(np.exp(intercept)), float(-slope)


def plot(result: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    sizes = [row["positions"] for row in result["curve"]]
    axes.plot(sizes, [row["error"] for row in result["curve"]], marker="o", label="network (best epoch)")
    axes.axhline(result["handwritten_error"], color="grey", linestyle="--", label="hand-written evaluation")
    axes.set_xscale("log")
    axes.set_xlabel("training positions")
    axes.set_ylabel("mean |eval - search score| (cp)")
    axes.set_title(f"768 -> {result['settings']['hidden']} x 2 -> 1, {result['validation_positions']} held out")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="a data set: game and text files, directories")
    parser.add_argument("--sizes", type=int, nargs="+", required=True, help="training positions of each network")
    parser.add_argument("--samples", type=int, default=10_000_000,
                        help="train each network for samples / size epochs (with --mirror each also sees the mirrors)")
    parser.add_argument("--hidden", type=int, default=TrainSettings.hidden)
    parser.add_argument("--batch-size", type=int, default=TrainSettings.batch_size)
    parser.add_argument("--lr", type=float, default=TrainSettings.lr)
    parser.add_argument("--blend", type=float, default=TrainSettings.blend)
    parser.add_argument("--validation", type=float, default=0.1)
    parser.add_argument("--mirror", action="store_true",
                        help="also train on every training position mirrored left to right (files a <-> h)")
    parser.add_argument("--within", type=int, default=DEFAULT_WITHIN)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="the JSON table (the plot goes beside it)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    positions = load_positions_cached(args.data, cache_root() / "nnue" / "curves")
    training, validation = split(len(positions), args.validation)
    if max(args.sizes) > len(training):
        parser.error(f"the data set has {len(training)} training positions, fewer than {max(args.sizes)}")
    trained_on = with_mirrors(positions) if args.mirror else positions
    held_out = validation[np.abs(positions.score[validation]) <= args.within]
    settings = TrainSettings(hidden=args.hidden, batch_size=args.batch_size, lr=args.lr, blend=args.blend,
                             validation=args.validation, seed=args.seed, mirror=args.mirror)
    result = {"data": [str(path) for path in args.data],
              "settings": dataclasses.asdict(settings) | {"samples": args.samples},
              "validation_positions": len(held_out),
              "handwritten_error": handwritten_error(positions, held_out), "curve": []}
    print(f"hand-written evaluation: {result['handwritten_error']:.1f} cp on {len(held_out)} held-out positions")
    for size in sorted(args.sizes):
        run = new_run(settings)
        rows = and_mirrors(training[:size], len(positions)) if args.mirror else training[:size]
        errors = []
        for _ in range(-(-args.samples // size)):
            run.losses.append(train_epoch(run, trained_on, rows, quiet=True))
            errors.append(network_error(run, positions, held_out))
            print(f"{size:9d} positions  epoch {run.epochs_done:3d}  loss {run.losses[-1]:.6f}  "
                  f"error {errors[-1]:.1f} cp", flush=True)
        best = int(np.argmin(errors))
        result["curve"].append({"positions": size, "error": errors[best], "best_epoch": best + 1, "errors": errors})
    if len(args.sizes) > 1:
        a, b = power_law([row["positions"] for row in result["curve"]], [row["error"] for row in result["curve"]])
        result["power_law"] = {"a": a, "b": b,
                               "positions_to_match_handwritten": (a / result["handwritten_error"]) ** (1 / b)}
        print(f"error ~ {a:.1f} * positions ** -{b:.3f}: the hand-written evaluation's error at "
              f"{result['power_law']['positions_to_match_handwritten']:.3g} positions")
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    plot(result, args.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
