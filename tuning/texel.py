"""``python -m tuning.texel DATA``: fit every evaluation weight to game results (Texel's method).

Each training position's evaluation is linear in the weights but for the
king-danger term, a known function of its traced inputs (:mod:`tuning.trace`),
so the tuner never touches a board: it minimises the
mean squared error between ``sigmoid(K * eval)`` and a target, the game's
result blended, if asked, with the search's score (``(1 - blend) * result +
blend * sigmoid(K * score)``).

1. Fit K with the current weights to the game results alone: a golden-section
   search on log K (the error is unimodal in K), so that the weights start where
   they already fit.  The results alone, because a blended target contains K
   too: sigmoid(K * eval) against sigmoid(K * score) is matched best by K -> 0,
   where both are 1/2.
2. Fit all weight pairs at once by Adam over seeded, shuffled mini-batches
   (the king-danger pairs through the gradient of their squared sum),
   in one compiled pass per epoch; pairs named in ``FROZEN`` (and ``--freeze``)
   keep their value.  The step size falls geometrically from ``--lr`` to
   ``--lr-final`` over the epochs.
3. Round, write the weight file through :func:`jitfish.eval.params.save_weights`
   (the phase constants are kept as they were), and plot the loss per epoch.

The same data, options and seed give the same weights.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from jitfish.eval.params import (
    FROZEN,
    OFFSETS,
    TERMS,
    WEIGHT_PAIRS,
    WEIGHTS_FILE,
    frozen_mask,
    load_weights,
    save_weights,
)
from jitfish.runtime.extras import reporting_missing_extras, require
from jitfish.runtime.jit import kernel
from tuning.trace import Traces, danger_units, load_traces, row_halves

K_SEARCH_LOG10 = (-5.0, 0.0)  # K between 1e-5 and 1 per centipawn
K_TOLERANCE_LOG10 = 1e-6
GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0
ADAM_BETA1 = 0.9
ADAM_BETA2 = 0.999
ADAM_EPSILON = 1e-8


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def targets(traces: Traces, k: float, blend: float) -> np.ndarray:
    """What ``sigmoid(K * eval)`` should match: the result, blended with the search's score by ``blend``."""
    if blend == 0.0:
        return traces.result
    return (1.0 - blend) * traces.result + blend * sigmoid(k * traces.score)


def mean_squared_error(
    evaluations: np.ndarray, traces: Traces, k: float, blend: float, rows: np.ndarray | slice = slice(None)
) -> float:
    error = sigmoid(k * evaluations[rows]) - targets(traces, k, blend)[rows]
    return float(np.mean(error * error))


def fit_k(evaluations: np.ndarray, traces: Traces, search_log10: tuple[float, float] = K_SEARCH_LOG10) -> float:
    """The K in ``sigmoid(K * eval)`` closest to the results, by golden-section search on log10 K."""

    def error(log_k: float) -> float:
        return mean_squared_error(evaluations, traces, 10.0**log_k, blend=0.0)

    lo, hi = search_log10
    a = hi - GOLDEN * (hi - lo)
    b = lo + GOLDEN * (hi - lo)
    error_a, error_b = error(a), error(b)
    while hi - lo > K_TOLERANCE_LOG10:
        if error_a < error_b:
            hi, b, error_b = b, a, error_a
            a = hi - GOLDEN * (hi - lo)
            error_a = error(a)
        else:
            lo, a, error_a = a, b, error_b
            b = lo + GOLDEN * (hi - lo)
            error_b = error(b)
    return 10.0 ** ((lo + hi) / 2.0)


@kernel
def _adam_epoch(
    indptr,
    index,
    coefficient,
    phase,
    danger,
    first,
    scale,
    target,
    order,
    batch_size,
    k,
    pairs,
    frozen,
    gradient,
    moment1,
    moment2,
    step,
    learning_rate,
):
    """One pass of Adam over ``order``'s rows in batches; updates ``pairs`` in place.

    Returns the mean error over the epoch's batches (each measured before its
    step) and the new step count.
    """
    rows = len(order)
    error_sum = 0.0
    for start in range(0, rows, batch_size):
        stop = min(start + batch_size, rows)
        gradient[:] = 0.0
        for j in range(start, stop):
            row = order[j]
            mg, eg = row_halves(indptr, index, coefficient, danger, first, scale, pairs, row)
            rho = phase[row]
            predicted = 1.0 / (1.0 + math.exp(-k * (rho * mg + (1.0 - rho) * eg)))
            difference = predicted - target[row]
            error_sum += difference * difference
            # d(error)/d(eval) for this row, averaged over the batch.
            slope = 2.0 * difference * predicted * (1.0 - predicted) * k / (stop - start)
            for at in range(indptr[row], indptr[row + 1]):
                gradient[index[at], 0] += slope * rho * coefficient[at]
                gradient[index[at], 1] += slope * (1.0 - rho) * coefficient[at]
            _danger_gradient(danger, row, pairs, first, scale, slope * rho, slope * (1.0 - rho), gradient)
        step += 1
        correction1 = 1.0 - ADAM_BETA1**step
        correction2 = 1.0 - ADAM_BETA2**step
        for pair in range(pairs.shape[0]):
            if frozen[pair]:
                continue
            for half in range(2):
                g = gradient[pair, half]
                moment1[pair, half] = ADAM_BETA1 * moment1[pair, half] + (1.0 - ADAM_BETA1) * g
                moment2[pair, half] = ADAM_BETA2 * moment2[pair, half] + (1.0 - ADAM_BETA2) * g * g
                pairs[pair, half] -= (
                    learning_rate
                    * (moment1[pair, half] / correction1)
                    / (math.sqrt(moment2[pair, half] / correction2) + ADAM_EPSILON)
                )
    return error_sum / rows, step


@kernel(inline=True)
def _danger_gradient(danger, row, pairs, first, scale, slope_mg, slope_eg, gradient):
    """Add a row's king-danger gradient: d(units ** 2 / scale) = 2 units / scale per unit in the middlegame,
    1 / scale in the endgame, times each input's count; nothing where the units are clamped at 0."""
    for side in range(2):
        sign = 1.0 - 2.0 * side
        units_mg, units_eg = danger_units(danger, row, side, pairs, first)
        per_unit_mg = sign * slope_mg * 2.0 * units_mg / scale[0]
        per_unit_eg = sign * slope_eg / scale[1] if units_eg > 0.0 else 0.0
        for j in range(danger.shape[2]):
            gradient[first + j, 0] += per_unit_mg * danger[row, side, j]
            gradient[first + j, 1] += per_unit_eg * danger[row, side, j]


@dataclass
class TuneSettings:
    epochs: int = 30
    batch_size: int = 16384
    lr: float = 2.0  # Adam step size at the first epoch, in centipawns
    lr_final: float = 0.1  # ... and at the last
    blend: float = 0.0  # weight of the search's score in the target
    k: float | None = None  # fitted when None
    validation: float = 0.0  # share of positions held out to measure the error on
    seed: int = 1


@dataclass
class TuneResult:
    pairs: np.ndarray  # float (WEIGHT_PAIRS, 2)
    k: float
    initial_loss: float  # training error of the starting weights at K
    initial_validation_loss: float | None
    train_loss: list[float] = field(default_factory=list)  # full training error after each epoch
    validation_loss: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)


def tune(
    traces: Traces, initial_pairs: np.ndarray, frozen: np.ndarray, settings: TuneSettings, report=None
) -> TuneResult:
    """Fit K (unless given), then every unfrozen pair; ``report(epoch, result)`` after each epoch."""
    rng = np.random.default_rng(settings.seed)
    # Held out: the last rows. Data files are written game by game, so this keeps
    # each game on one side (positions of one game are near copies of each other).
    held_out = int(round(settings.validation * len(traces)))
    train_rows = np.arange(len(traces) - held_out)
    validation_rows = np.arange(len(traces) - held_out, len(traces))
    if not len(train_rows):
        raise ValueError("no training positions")

    pairs = np.array(initial_pairs, dtype=np.float64).reshape(-1, 2)
    k = settings.k
    if k is None:
        k = fit_k(traces.evaluations(pairs)[train_rows], traces.rows(train_rows))
    target = targets(traces, k, settings.blend)
    evaluations = traces.evaluations(pairs)
    result = TuneResult(
        pairs=pairs,
        k=k,
        initial_loss=mean_squared_error(evaluations, traces, k, settings.blend, train_rows),
        initial_validation_loss=mean_squared_error(evaluations, traces, k, settings.blend, validation_rows)
        if held_out
        else None,
    )
    gradient, moment1, moment2 = (np.zeros_like(pairs) for _ in range(3))
    frozen = np.ascontiguousarray(frozen, dtype=np.bool_)
    step = 0
    for epoch in range(settings.epochs):
        fraction = epoch / max(settings.epochs - 1, 1)
        learning_rate = settings.lr * (settings.lr_final / settings.lr) ** fraction
        order = rng.permutation(train_rows)
        started = time.perf_counter()
        _, step = _adam_epoch(
            traces.indptr,
            traces.index,
            traces.coefficient,
            traces.phase,
            traces.danger,
            traces.danger_first,
            traces.danger_scale,
            target,
            order,
            settings.batch_size,
            k,
            pairs,
            frozen,
            gradient,
            moment1,
            moment2,
            step,
            learning_rate,
        )
        result.epoch_seconds.append(time.perf_counter() - started)
        evaluations = traces.evaluations(pairs)
        result.train_loss.append(mean_squared_error(evaluations, traces, k, settings.blend, train_rows))
        if held_out:
            result.validation_loss.append(mean_squared_error(evaluations, traces, k, settings.blend, validation_rows))
        if report is not None:
            report(epoch, result)
    return result


def block_mask(blocks: list[str]) -> np.ndarray:
    """True for the pairs of the named blocks (every pair when none is named); ``ValueError`` for an unknown name."""
    if not blocks:
        return np.ones(WEIGHT_PAIRS, dtype=bool)
    sizes = dict(TERMS)
    mask = np.zeros(WEIGHT_PAIRS, dtype=bool)
    for block in blocks:
        if block not in sizes:
            raise ValueError(f"no block of weights named {block!r} (blocks: {', '.join(sizes)})")
        mask[OFFSETS[block] : OFFSETS[block] + sizes[block]] = True
    return mask


def rounded_weights(base: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """``base`` (the full weight array, constants included) with its pairs replaced by ``pairs`` rounded."""
    weights = np.array(base, dtype=np.int64)
    weights[: 2 * WEIGHT_PAIRS] = np.rint(pairs).astype(np.int64).ravel()
    return weights


def plot_loss(result: TuneResult, path: Path) -> None:
    matplotlib = require("matplotlib", "the Texel tuner's loss plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 4))
    epochs = range(1, len(result.train_loss) + 1)
    axes.plot(epochs, result.train_loss, label="training")
    if result.validation_loss:
        axes.plot(epochs, result.validation_loss, label="validation")
    axes.set_xlabel("epoch")
    axes.set_ylabel("mean squared error")
    axes.set_title(f"Texel tuning (K = {result.k:.5f})")
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    defaults = TuneSettings()
    parser = argparse.ArgumentParser(prog="python -m tuning.texel", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="gzip text lines 'FEN | score | result' (white's view)")
    parser.add_argument("--weights", type=Path, default=WEIGHTS_FILE, help="starting weights (default: shipped)")
    parser.add_argument("--output", type=Path, default=WEIGHTS_FILE, help="where to write (default: shipped)")
    parser.add_argument("--plot", type=Path, help="loss-per-epoch PNG (default: next to the data)")
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--lr", type=float, default=defaults.lr)
    parser.add_argument("--lr-final", type=float, default=defaults.lr_final)
    parser.add_argument(
        "--blend",
        type=float,
        default=defaults.blend,
        help="weight of the search score in the target, 0 (results only) to 1",
    )
    parser.add_argument("--k", type=float, help="use this K instead of fitting it")
    parser.add_argument(
        "--validation",
        type=float,
        default=defaults.validation,
        help="share of positions, the file's last, held out for the validation error",
    )
    parser.add_argument(
        "--freeze", nargs="*", default=[], metavar="NAME", help="more weight pairs to keep, e.g. 'tempo' 'material[P]'"
    )
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        metavar="BLOCK",
        help="tune only these blocks of pairs (e.g. 'king_danger'), keeping every other pair",
    )
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the trace cache")
    args = parser.parse_args(argv)
    if not 0.0 <= args.blend <= 1.0 or not 0.0 <= args.validation < 1.0:
        parser.error("--blend must be in [0, 1] and --validation in [0, 1)")
    if args.epochs < 1 or args.batch_size < 1 or args.lr <= 0 or args.lr_final <= 0:
        parser.error("--epochs, --batch-size, --lr and --lr-final must be positive")
    return args


@reporting_missing_extras
def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    require("matplotlib", "the Texel tuner's loss plot")  # before the tuning, not after
    try:
        base = load_weights(args.weights)
        frozen = frozen_mask(FROZEN + tuple(args.freeze)) | ~block_mask(args.only)
        started = time.perf_counter()
        traces = load_traces(args.data, base, use_cache=not args.no_cache)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(
        f"{len(traces)} positions, {len(traces.index)} coefficients, traced in "
        f"{time.perf_counter() - started:.1f} s; {int(frozen.sum())} of {WEIGHT_PAIRS} pairs frozen"
    )
    settings = TuneSettings(
        epochs=args.epochs,
        batch_size=args.batch_size,
        lr=args.lr,
        lr_final=args.lr_final,
        blend=args.blend,
        k=args.k,
        validation=args.validation,
        seed=args.seed,
    )
    initial = base[: 2 * WEIGHT_PAIRS].reshape(WEIGHT_PAIRS, 2)

    def report(epoch: int, result: TuneResult) -> None:
        if epoch == 0:
            line = f"K = {result.k:.6f}, error with the starting weights {result.initial_loss:.6f}"
            if result.initial_validation_loss is not None:
                line += f", validation {result.initial_validation_loss:.6f}"
            print(line)
        line = f"epoch {epoch + 1:3d}  error {result.train_loss[-1]:.6f}"
        if result.validation_loss:
            line += f"  validation {result.validation_loss[-1]:.6f}"
        print(line + f"  ({result.epoch_seconds[-1]:.2f} s)", flush=True)

    result = tune(traces, initial, frozen, settings, report=report)
    save_weights(rounded_weights(base, result.pairs), args.output)
    plot = args.plot or args.data.with_name(args.data.name + ".loss.png")
    plot_loss(result, plot)
    print(f"wrote {args.output} and {plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
