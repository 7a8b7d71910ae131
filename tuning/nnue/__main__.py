"""``python -m tuning.nnue train DATA``: train a network; ``python -m tuning.nnue export RUN``: write its file.

    python -m tuning.nnue train data.gz --hidden 128 --epochs 20 --seed 1      # ~/.cache/jitfish/nnue/...
    python -m tuning.nnue train games/ more.bin --wdl 0.25 --lr-decay 0.5 --lr-step 4   # a data set
    python -m tuning.nnue train data.gz --epochs 30 --seed 1                   # the same run, extended
    python -m tuning.nnue train data/nnue --hidden 64 --activation screlu --buckets 8 --wdl 0.25 \
        --optimiser adamw --weight-decay 0.01 --schedule cosine --epochs 40 --validation 0.05 --mirror
    python -m tuning.nnue train data/nnue --min-ply 16 --max-score 2000         # skip openings and decided games
    python -m tuning.nnue train data/nnue --backend numba --threads 2          # the fast CPU trainer (docs/nnue.md)
    python -m tuning.nnue export ~/.cache/jitfish/nnue/data-crelu128-seed1 --output net.nnue --check data.gz

``train`` ends by exporting its best epoch (the lowest held-out loss; the last without ``--validation``) to
``DIR/network.nnue`` and checking it on the data's first positions; ``export`` takes a run's folder (its
best epoch) or one checkpoint.  Exit status: 0, 1 if the check fails, 2 for bad input.  Needs PyTorch:
``pip install -e .[train]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from jitfish.runtime.extras import MissingExtra, report_missing, require

try:  # the training extra is optional: say what to install rather than show a traceback
    torch = require("torch", "python -m tuning.nnue")
    require("matplotlib", "python -m tuning.nnue (its loss plots)")
except MissingExtra as missing:
    sys.exit(report_missing(missing))

from jitfish.nnue.format import ACTIVATION_NAMES, DEFAULT_QA, DEFAULT_QB, write_network
from tuning.datagen.dataset import verify
from tuning.nnue.check import CHECK_POSITIONS, DEFAULT_SIGMAS, check_network
from tuning.nnue.model import NnueModel, quantise
from tuning.nnue.train import (
    BACKENDS,
    OPTIMISERS,
    SCHEDULES,
    Run,
    TrainSettings,
    best_checkpoint,
    default_out_dir,
    load_run,
    resolve_device,
    train,
)

# MKL's branches for its conditional numerical reproducibility (MKL_CBWR), the newest instruction sets last.
MKL_BRANCHES = ("COMPATIBLE", "SSE4_2", "AVX2", "AVX512", "AVX512_E1")

NETWORK_NAME = "network.nnue"


def _positive(kind: type) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, not {text}")
        return value

    return parse


def _check_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--positions",
        type=_positive(int),
        default=CHECK_POSITIONS,
        help=f"positions the check compares (default {CHECK_POSITIONS})",
    )
    parser.add_argument(
        "--sigmas",
        type=_positive(float),
        default=DEFAULT_SIGMAS,
        help="most standard deviations of its rounding error a position's integer score may "
        f"differ from the float one by (default {DEFAULT_SIGMAS:g})",
    )


def parser() -> argparse.ArgumentParser:
    defaults = TrainSettings()
    main = argparse.ArgumentParser(
        prog="python -m tuning.nnue",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1],
    )
    commands = main.add_subparsers(dest="command", required=True)

    fit = commands.add_parser("train", help="train (or resume) a network on FEN | score | result data")
    fit.add_argument(
        "data",
        type=Path,
        nargs="+",
        help="game files (.bin), text files ('FEN | score | result', .gz) or directories of them, "
        "one data set (python -m tuning.datagen)",
    )
    fit.add_argument("--hidden", type=_positive(int), default=defaults.hidden, help="hidden neurons (128 or 256)")
    fit.add_argument("--activation", choices=ACTIVATION_NAMES, default=defaults.activation)
    fit.add_argument("--epochs", type=_positive(int), default=10, help="train until this many epochs are done")
    fit.add_argument("--batch-size", type=_positive(int), default=defaults.batch_size)
    fit.add_argument(
        "--buckets",
        type=_positive(int),
        default=defaults.buckets,
        help="output buckets by piece count: 8 is (pieces - 2) // 4 (default 1)",
    )
    fit.add_argument("--optimiser", choices=OPTIMISERS, default=defaults.optimiser)
    fit.add_argument(
        "--weight-decay",
        type=float,
        default=defaults.weight_decay,
        help="AdamW's decoupled weight decay (needs --optimiser adamw; default 0)",
    )
    fit.add_argument("--lr", type=_positive(float), default=defaults.lr, help="the (first) step size")
    fit.add_argument(
        "--schedule",
        choices=SCHEDULES,
        default=defaults.schedule,
        help="step: --lr-decay every --lr-step epochs; cosine: down to --lr times --lr-end over --schedule-epochs",
    )
    fit.add_argument(
        "--lr-decay",
        type=_positive(float),
        default=defaults.lr_decay,
        help="multiply the step size by this every --lr-step epochs (default 1: constant)",
    )
    fit.add_argument("--lr-step", type=_positive(int), default=defaults.lr_step, help="epochs between decays")
    fit.add_argument(
        "--lr-end",
        type=_positive(float),
        default=defaults.lr_end,
        help=f"the cosine's last step size, a share of --lr (default {defaults.lr_end:g})",
    )
    fit.add_argument(
        "--schedule-epochs",
        type=_positive(int),
        help="the cosine's length in epochs (default --epochs; give it again to extend a run)",
    )
    target = fit.add_mutually_exclusive_group()
    target.add_argument(
        "--blend",
        type=float,
        default=defaults.blend,
        help=f"weight of the search score in the target, 0 (results only) to 1 (default {defaults.blend})",
    )
    target.add_argument(
        "--wdl",
        type=float,
        metavar="LAMBDA",
        help="weight of the game result in the target (lambda): the same as --blend 1-LAMBDA",
    )
    fit.add_argument(
        "--wdl-scale",
        type=_positive(float),
        default=defaults.wdl_scale,
        help="centipawns per unit of the sigmoid that turns scores into expected results",
    )
    fit.add_argument(
        "--scale",
        type=_positive(int),
        default=defaults.scale,
        help="centipawns per unit of the network's output (stored in the file)",
    )
    fit.add_argument(
        "--validation",
        type=float,
        default=defaults.validation,
        help="share of positions, the file's last (whole games), held out to measure the loss on",
    )
    fit.add_argument(
        "--mirror",
        action="store_true",
        help="also train on each training position mirrored left to right (files a <-> h)",
    )
    fit.add_argument(
        "--min-ply",
        type=int,
        default=defaults.min_ply,
        help="train only on positions from this ply of their game on (the held-out ones all stay; default 0)",
    )
    fit.add_argument(
        "--max-score",
        type=int,
        default=defaults.max_score,
        help="and only on those scored within this many centipawns of 0 (default 0: any score)",
    )
    fit.add_argument("--seed", type=int, default=defaults.seed)
    fit.add_argument(
        "--out",
        type=Path,
        help="checkpoints, loss.png and network.nnue (default ~/.cache/jitfish/nnue/DATA-ACTIVATIONHIDDEN-seedS)",
    )
    fit.add_argument(
        "--threads", type=_positive(int), help="PyTorch's threads, and the numba backend's (default: PyTorch's choice)"
    )
    fit.add_argument(
        "--mkl-branch",
        choices=MKL_BRANCHES,
        help="run MKL's code for this instruction set, with fixed cache sizes and ordered sums (MKL_CBWR), so that"
        " a run on the CPU gives the same network on any Intel CPU that has it (AVX2: since 2013); default: MKL"
        " chooses by the CPU, and at more than one thread the network may differ from one CPU model to another",
    )
    fit.add_argument(
        "--backend",
        choices=BACKENDS,
        default=defaults.backend,
        help="torch: PyTorch's EmbeddingBag and autograd (every shipped network); numba: the sparse kernels of"
        " tuning.nnue.sparse, several times faster on the CPU, the same network at any --threads (a setting of"
        " the run: it gives another network than torch)",
    )
    fit.add_argument(
        "--device",
        default="auto",
        help="auto (cuda when PyTorch sees a GPU, else cpu; cpu for --backend numba), cpu, cuda or cuda:N",
    )
    fit.add_argument("--quiet", action="store_true", help="no progress bar")
    fit.add_argument(
        "--unchecked",
        action="store_true",
        help="train on a data set even when its manifest does not check (python -m tuning.datagen check)",
    )
    _check_options(fit)

    export = commands.add_parser("export", help="quantise a run's last checkpoint (or one checkpoint) to a file")
    export.add_argument("run", type=Path, help="a run's folder or one epoch-NNNN.pt")
    export.add_argument("--output", type=Path, required=True, help="the .nnue file to write")
    export.add_argument("--check", type=Path, metavar="DATA", help="compare float and integer on DATA's positions")
    _check_options(export)
    return main


def export_and_check(
    model: NnueModel, scale: int, output: Path, data: Path | None, positions: int, sigmas: float
) -> int:
    net = quantise(model, DEFAULT_QA, DEFAULT_QB, scale)
    write_network(output, net)
    print(
        f"wrote {output} ({net.activation_name}, hidden {net.hidden}, {net.buckets} output bucket"
        f"{'s' if net.buckets > 1 else ''}, QA {net.qa}, QB {net.qb}, scale {net.scale})"
    )
    if data is None:
        return 0
    report = check_network(model, net, data, positions, sigmas)
    print(report.summary())
    return 0 if report.passed else 1


def pin_mkl_branch(branch: str) -> None:
    """Make MKL run ``branch``'s code with fixed cache sizes, static scheduling and ordered sums.

    Unpinned, MKL picks its code by the CPU and sizes its blocks by the caches, so that the float sums of
    a run on more than one thread differ in their last bits from one CPU model to another (I-1's recipe,
    repeated on another machine, parted from its log in the first epoch).  MKL reads ``MKL_CBWR`` at its
    first call: this must come before any.
    """
    os.environ["MKL_CBWR"] = branch


def run_train(args: argparse.Namespace) -> int:
    if args.wdl is not None:
        args.blend = 1.0 - args.wdl
    if not 0.0 <= args.blend <= 1.0:
        raise ValueError(f"--blend must be in [0, 1], not {args.blend}")
    if not 0.0 <= args.validation < 1.0:
        raise ValueError(f"--validation must be in [0, 1), not {args.validation}")
    if args.mkl_branch:
        pin_mkl_branch(args.mkl_branch)
    if args.threads:
        torch.set_num_threads(args.threads)
    cosine = args.schedule == "cosine"
    settings = TrainSettings(
        hidden=args.hidden,
        activation=args.activation,
        batch_size=args.batch_size,
        lr=args.lr,
        lr_decay=args.lr_decay,
        lr_step=args.lr_step,
        blend=args.blend,
        wdl_scale=args.wdl_scale,
        scale=args.scale,
        validation=args.validation,
        seed=args.seed,
        mirror=args.mirror,
        buckets=args.buckets,
        optimiser=args.optimiser,
        weight_decay=args.weight_decay,
        schedule=args.schedule,
        lr_end=args.lr_end,
        schedule_epochs=(args.schedule_epochs or args.epochs) if cosine else 0,
        min_ply=args.min_ply,
        max_score=args.max_score,
        backend=args.backend,
    )
    device = resolve_device("cpu" if args.backend == "numba" and args.device == "auto" else args.device)
    if args.backend == "numba" and device.type != "cpu":
        raise ValueError("the numba backend trains on the CPU: --device cpu")
    out_dir = args.out or default_out_dir(args.data, settings)

    def report(run: Run) -> None:
        line = f"epoch {run.epochs_done:4d}  loss {run.losses[-1]:.6f}"
        if run.validation_losses:
            line += f"  validation {run.validation_losses[-1]:.6f}  held-out error {run.held_out_errors[-1]:.2f} cp"
        print(line, flush=True)

    if not args.unchecked:
        verify(args.data)
    pinned = f", MKL's {os.environ['MKL_CBWR']} code (MKL_CBWR)" if "MKL_CBWR" in os.environ else ""
    print(f"training on {device}{pinned}")
    run = train(args.data, settings, args.epochs, out_dir, quiet=args.quiet, report=report, device=device)
    done, best = run.epochs_done, run.best_epoch
    if best != done:
        run, _ = load_run(best_checkpoint(out_dir))
    held_out = f", the best by held-out loss ({run.held_out_errors[-1]:.2f} cp)" if run.held_out_errors else ""
    print(f"{done} epochs in {out_dir} (loss per epoch: {out_dir / 'loss.png'}); exporting epoch {best}{held_out}")
    return export_and_check(run.model, settings.scale, out_dir / NETWORK_NAME, args.data, args.positions, args.sigmas)


def run_export(args: argparse.Namespace) -> int:
    checkpoint = best_checkpoint(args.run) if args.run.is_dir() else args.run
    if checkpoint is None:
        raise ValueError(f"{args.run} holds no checkpoint")
    run, _ = load_run(checkpoint)
    print(f"{checkpoint}: epoch {run.epochs_done}, loss {run.losses[-1]:.6f}")
    return export_and_check(run.model, run.settings.scale, args.output, args.check, args.positions, args.sigmas)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return run_train(args) if args.command == "train" else run_export(args)
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
