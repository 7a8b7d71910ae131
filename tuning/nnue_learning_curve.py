"""How a network's error falls with the number of training positions and with its settings, against the
hand-written evaluation's.

    python -m tuning.nnue_learning_curve DATA.gz --sizes 100000 200000 400000 --samples 10000000 --out curve.json
    python -m tuning.nnue_learning_curve DATA/ --hidden 16 32 --wdl 0 0.25 0.5 --lr-decay 0.5 --lr-step 3 \
        --samples 12000000 --validation 0.05 --save nets/ --out grid.json          # a grid on all positions

The data set's last ``--validation`` share (whole games) is held out.  For each size (all training
positions without ``--sizes``) and each combination of ``--hidden`` and ``--wdl``, a network is trained
from scratch on that many of the first positions (the same seed and settings as ``python -m tuning.nnue
train``), for as many epochs as it takes to see ``--samples`` positions (the same work for each size),
and, after every epoch, scored on the held-out positions whose search score lies within ``--within``
centipawns: the mean absolute difference, in centipawns for the side to move, between its score and the
search's.  The best epoch counts.  With ``--save`` that epoch is exported to ``DIR/LABEL.nnue`` and the
file's integers are scored on the same positions (``int_error``: the quantisation's cost, in cp).  The
hand-written static evaluation is measured on the same positions (and kept beside the data's packed
cache, since it depends only on them), so the question "how much data until a network evaluates as well
as the evaluation it should replace" gets a number, and a power law ``error = a * positions ** -b``
fitted to the curve (one setting, several sizes) says where the two would meet if the trend held.  The
error measures the search's score alone, so a WDL blend (``--wdl`` above 0) is judged on what it does
not aim at: compare blends by play as well.  Writes the table as JSON (``--out``) and a plot beside it.
Needs PyTorch (``pip install -e .[train]``).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np

from jitfish.runtime.extras import MissingExtra, report_missing, require

try:
    torch = require("torch", "python -m tuning.nnue_learning_curve")
    require("matplotlib", "python -m tuning.nnue_learning_curve (its plot)")
except MissingExtra as missing:
    sys.exit(report_missing(missing))
import jitfish  # noqa: E402  (after the check: a missing extra is one line, not a traceback)
from jitfish.eval import evaluate as handwritten_evaluation  # noqa: E402
from jitfish.nnue.format import write_network  # noqa: E402
from jitfish.runtime.jit import cache_root  # noqa: E402
from tuning.datagen.records import unpack_fen  # noqa: E402
from tuning.nnue.check import integer_scores  # noqa: E402
from tuning.nnue.data import and_mirrors, batches, data_digest, load_positions_cached, split, with_mirrors  # noqa: E402
from tuning.nnue.model import quantise  # noqa: E402
from tuning.nnue.train import (  # noqa: E402
    HELD_OUT_WITHIN,
    SCORING_BATCH,
    TrainSettings,
    mean_error,
    new_run,
    scored_rows,
    train_epoch,
)


def integer_error(net, positions, rows: np.ndarray) -> float:
    """Mean |integer network - search| in centipawns over ``rows``: what the engine would score."""
    total = sum(
        float(np.abs(integer_scores(net, inputs) - inputs.score).sum())
        for inputs in batches(positions, rows, SCORING_BATCH)
    )
    return total / len(rows)


def handwritten_error(positions, rows: np.ndarray) -> float:
    """Mean |hand-written static evaluation - search| in centipawns over ``rows`` of ``positions``."""
    fens = [unpack_fen(positions.records[row]) for row in rows]
    static = np.array([handwritten_evaluation(jitfish.Board(fen)) for fen in fens], dtype=np.float64)
    return float(np.mean(np.abs(static - positions.score[rows])))


def cached_handwritten_error(positions, rows: np.ndarray, cache: Path) -> float:
    """:func:`handwritten_error`, kept in ``cache`` (a JSON file named by the data and the rows)."""
    if cache.exists():
        return float(json.loads(cache.read_text())["handwritten_error"])
    error = handwritten_error(positions, rows)
    cache.write_text(json.dumps({"handwritten_error": error, "positions": len(rows)}) + "\n")
    return error


def power_law(sizes: list[int], errors: list[float]) -> tuple[float, float]:
    """``a, b`` of ``error = a * size ** -b``, fitted in log-log space."""
    slope, intercept = np.polyfit(np.log(sizes), np.log(errors), 1)
    return float(np.exp(intercept)), float(-slope)


def label(row: dict) -> str:
    return f"h{row['hidden']}-wdl{row['wdl']:g}-{'mirror' if row['mirror'] else 'plain'}-{row['positions']}"


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    settings = sorted({(row["hidden"], row["wdl"]) for row in result["curve"]})
    for hidden, wdl in settings:
        rows = [row for row in result["curve"] if (row["hidden"], row["wdl"]) == (hidden, wdl)]
        axes.plot(
            [row["positions"] for row in rows],
            [row["error"] for row in rows],
            marker="o",
            label=f"hidden {hidden}, wdl {wdl:g} (best epoch)",
        )
    axes.axhline(result["handwritten_error"], color="grey", linestyle="--", label="hand-written evaluation")
    axes.set_xscale("log")
    axes.set_xlabel("training positions")
    axes.set_ylabel("mean |eval - search score| (cp)")
    axes.set_title(f"768 -> N x 2 -> 1, {result['validation_positions']} held out")
    axes.legend(fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="+", help="a data set: game and text files, directories")
    parser.add_argument("--sizes", type=int, nargs="+", help="training positions of each network (default: all)")
    parser.add_argument(
        "--samples",
        type=int,
        default=10_000_000,
        help="train each network for samples / size epochs (with --mirror each also sees the mirrors)",
    )
    parser.add_argument("--hidden", type=int, nargs="+", default=[TrainSettings.hidden])
    parser.add_argument(
        "--wdl",
        type=float,
        nargs="+",
        default=[0.0],
        help="weights of the game result in the target (lambda = 1 - blend)",
    )
    parser.add_argument("--batch-size", type=int, default=TrainSettings.batch_size)
    parser.add_argument("--lr", type=float, default=TrainSettings.lr)
    parser.add_argument("--lr-decay", type=float, default=TrainSettings.lr_decay)
    parser.add_argument("--lr-step", type=int, default=TrainSettings.lr_step)
    parser.add_argument("--validation", type=float, default=0.1)
    parser.add_argument(
        "--mirror",
        action="store_true",
        help="also train on every training position mirrored left to right (files a <-> h)",
    )
    parser.add_argument("--within", type=int, default=HELD_OUT_WITHIN)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--save", type=Path, help="export each network's best epoch here, and score its integers")
    parser.add_argument("--out", type=Path, required=True, help="the JSON table (the plot goes beside it)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    cache = cache_root() / "nnue" / "curves"
    positions = load_positions_cached(args.data, cache)
    training, validation = split(len(positions), args.validation)
    sizes = sorted(args.sizes or [len(training)])
    if sizes[-1] > len(training):
        parser.error(f"the data set has {len(training)} training positions, fewer than {sizes[-1]}")
    trained_on = with_mirrors(positions) if args.mirror else positions
    held_out = scored_rows(positions, validation, args.within)
    handwritten = cached_handwritten_error(
        positions, held_out, cache / f"handwritten-{data_digest(args.data)}-{args.validation:g}-{args.within}.json"
    )
    result = {
        "data": [str(path) for path in args.data],
        "positions": len(positions),
        "training_positions": len(training),
        "settings": vars(args) | {"data": None, "out": None, "save": None},
        "validation_positions": len(held_out),
        "handwritten_error": handwritten,
        "curve": [],
    }
    print(
        f"{len(positions)} positions, {len(training)} for training; hand-written evaluation: "
        f"{handwritten:.1f} cp on {len(held_out)} held-out positions",
        flush=True,
    )
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    for hidden in args.hidden:
        for wdl in args.wdl:
            settings = TrainSettings(
                hidden=hidden,
                batch_size=args.batch_size,
                lr=args.lr,
                lr_decay=args.lr_decay,
                lr_step=args.lr_step,
                blend=1.0 - wdl,
                validation=args.validation,
                seed=args.seed,
                mirror=args.mirror,
            )
            for size in sizes:
                row = {"hidden": hidden, "wdl": wdl, "mirror": args.mirror, "positions": size}
                run = new_run(settings)
                rows = and_mirrors(training[:size], len(positions)) if args.mirror else training[:size]
                errors, best_state, started = [], None, time.process_time()
                for _ in range(-(-args.samples // size)):
                    run.losses.append(train_epoch(run, trained_on, rows, quiet=True))
                    errors.append(mean_error(run.model, settings.scale, positions, held_out))
                    if errors[-1] == min(errors):
                        best_state = copy.deepcopy(run.model.state_dict())
                    print(
                        f"{label(row)}  epoch {run.epochs_done:3d}  loss {run.losses[-1]:.6f}  "
                        f"error {errors[-1]:.2f} cp  ({time.process_time() - started:.0f} CPU s)",
                        flush=True,
                    )
                best = int(np.argmin(errors))
                row |= {
                    "error": errors[best],
                    "best_epoch": best + 1,
                    "errors": errors,
                    "cpu_seconds": time.process_time() - started,
                }
                if args.save:
                    run.model.load_state_dict(best_state)
                    net = quantise(run.model, scale=settings.scale)
                    write_network(args.save / f"{label(row)}.nnue", net)
                    row["int_error"] = integer_error(net, positions, held_out)
                    print(
                        f"{label(row)}  best epoch {best + 1}: float {row['error']:.2f} cp, "
                        f"integers {row['int_error']:.2f} cp",
                        flush=True,
                    )
                result["curve"].append(row)
                args.out.write_text(json.dumps(result, indent=1) + "\n")
    if len(sizes) > 1 and len(args.hidden) == len(args.wdl) == 1:
        a, b = power_law([row["positions"] for row in result["curve"]], [row["error"] for row in result["curve"]])
        result["power_law"] = {"a": a, "b": b, "positions_to_match_handwritten": (a / handwritten) ** (1 / b)}
        print(
            f"error ~ {a:.1f} * positions ** -{b:.3f}: the hand-written evaluation's error at "
            f"{result['power_law']['positions_to_match_handwritten']:.3g} positions"
        )
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    plot(result, args.out.with_suffix(".png"))


if __name__ == "__main__":
    main()
