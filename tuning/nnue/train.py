"""Training: Adam or AdamW on a blended target, a step-size schedule, weight clipping, a checkpoint per
epoch, resuming, and the best epoch by held-out loss.

The model's score of a position is ``y * scale`` centipawns for the side to move (:mod:`tuning.nnue.model`);
the loss is the mean squared error between ``sigmoid(y * scale / wdl_scale)`` and the target::

    target = blend * sigmoid(score / wdl_scale) + (1 - blend) * result

(score and result in the side to move's view, :mod:`tuning.nnue.data`); ``1 - blend`` is the WDL
weight often called lambda.  The step size follows one of two schedules that depend only on how far the
run has got, so that raising ``--epochs`` extends a run without changing its past:

* ``step``: epoch ``e`` (0-based) steps with ``lr * lr_decay ** (e // lr_step)``;
* ``cosine``: batch by batch from ``lr`` down to ``lr * lr_end`` along half a cosine over
  ``schedule_epochs`` epochs, then ``lr * lr_end`` (extending such a run past its cosine trains at the end
  step size; a longer cosine is another run).

``optimiser`` is ``adam`` or ``adamw`` (AdamW's decoupled ``weight_decay``, which pulls every weight
towards zero by ``lr * weight_decay`` of itself each step).  Every epoch visits every training position
once, in a fresh permutation of the whole set.  After each optimiser step the weights are clipped
(``WEIGHT_CLIP``) so that they quantise into int16.  With ``validation`` the data set's last positions are
held out: after each epoch their loss, and the mean |score - search score| in centipawns of those within
``HELD_OUT_WITHIN`` (the held-out error of ``docs/nnue.md``), are measured, and the run's network is its
best epoch by held-out loss (:func:`best_checkpoint`), not its last.  With ``mirror`` every training
position is also trained on mirrored left to right (:func:`tuning.nnue.data.with_mirrors`), which on our
data is worth about as much as twice the positions.  After each epoch the run writes ``DIR/epoch-NNNN.pt``
(model, optimiser, settings, the data's digest, losses) and ``DIR/loss.png``.  Run again with the same
settings and data, it continues after its last checkpoint (``--epochs`` may be raised to extend it);
other settings or other data are refused rather than mixed into one network.  The same data, settings and
seed give the same network on the CPU at the same number of threads, on one machine; on another CPU model
MKL's own code may sum in another order (I-1's recipe, at two threads, parted from its log in the first
epoch), unless its code is pinned (``--mkl-branch``, MKL's conditional numerical reproducibility); on a GPU
the sums may differ.  The device is not a setting: a run may be resumed on another.

``backend`` is how a batch's gradients are computed: ``torch`` (PyTorch's ``EmbeddingBag`` and autograd, every
shipped network) or ``numba`` (:mod:`tuning.nnue.sparse`, on the CPU, several times faster, the same network
at any number of threads).  Everything else is shared.  The two give close but different networks, so the
backend is a setting: a run is not resumed under the other.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from tqdm import tqdm

from jitfish.nnue.format import DEFAULT_SCALE
from jitfish.runtime.extras import require
from jitfish.runtime.jit import cache_root
from tuning.nnue.data import (
    Batch,
    DataSet,
    Positions,
    and_mirrors,
    batches,
    data_digest,
    epoch_order,
    kept_rows,
    load_positions_cached,
    split,
    with_mirrors,
)
from tuning.nnue.model import NnueModel, model_inputs

CHECKPOINT_GLOB = "epoch-*.pt"
OPTIMISERS = ("adam", "adamw")
BACKENDS = ("torch", "numba")
SCHEDULES = ("step", "cosine")
HELD_OUT_WITHIN = 600  # centipawns: the held-out positions whose error is reported (docs/nnue.md)
SCORING_BATCH = 8192


@dataclass(frozen=True)
class TrainSettings:
    hidden: int = 128
    activation: str = "crelu"
    batch_size: int = 4096
    lr: float = 1e-3
    lr_decay: float = 1.0  # the step size is multiplied by this every lr_step epochs
    lr_step: int = 1
    blend: float = 1.0  # weight of the search's score in the target, 0 (results only) to 1
    wdl_scale: float = 400.0  # centipawns per unit of the sigmoid's argument
    scale: int = DEFAULT_SCALE  # centipawns per unit of the model's output (stored in the file)
    validation: float = 0.0  # share of positions, the file's last, held out to measure the loss on
    seed: int = 1
    mirror: bool = False  # also train on each training position mirrored left to right
    buckets: int = 1  # output buckets by piece count (jitfish.nnue.format.output_bucket)
    optimiser: str = "adam"  # or "adamw"
    weight_decay: float = 0.0  # AdamW's decoupled weight decay (Adam: none)
    schedule: str = "step"  # "step": lr_decay every lr_step epochs; "cosine": down to lr * lr_end
    schedule_epochs: int = 0  # the cosine's length in epochs
    lr_end: float = 0.01  # the cosine's last step size, as a share of lr
    min_ply: int = 0  # train only on positions from this ply of their game on (tuning.nnue.data.kept_rows)
    max_score: int = 0  # and, if not 0, only on those scored within this many centipawns of 0
    backend: str = "torch"  # or "numba": the loss's gradients by tuning.nnue.sparse (CPU only)

    def __post_init__(self) -> None:
        if self.optimiser not in OPTIMISERS:
            raise ValueError(f"optimiser must be one of {OPTIMISERS}, not {self.optimiser!r}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be one of {SCHEDULES}, not {self.schedule!r}")
        if self.schedule == "cosine" and self.schedule_epochs < 1:
            raise ValueError("a cosine schedule needs its length: schedule_epochs >= 1")
        if self.weight_decay and self.optimiser != "adamw":
            raise ValueError("weight decay needs the adamw optimiser")
        if self.min_ply < 0 or self.max_score < 0:
            raise ValueError("min_ply and max_score are counts: 0 or more")
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, not {self.backend!r}")


@dataclass
class Run:
    settings: TrainSettings
    model: NnueModel
    optimiser: torch.optim.Optimizer
    losses: list[float]  # mean training loss of each finished epoch
    validation_losses: list[float]
    held_out_errors: list[float] = field(default_factory=list)  # cp, each epoch, with validation

    @property
    def epochs_done(self) -> int:
        return len(self.losses)

    @property
    def best_epoch(self) -> int:
        """The epoch (1-based) of the lowest held-out loss; the last without held-out positions."""
        if not self.validation_losses:
            return self.epochs_done
        return int(np.argmin(self.validation_losses)) + 1


def default_out_dir(data: DataSet, settings: TrainSettings) -> Path:
    """Where a run writes unless told: the user's Jitfish cache, never the repository."""
    first = Path(data) if isinstance(data, (str, Path)) else Path(next(iter(data)))
    name = first.name.split(".")[0]
    buckets = f"x{settings.buckets}" if settings.buckets > 1 else ""
    return cache_root() / "nnue" / f"{name}-{settings.activation}{settings.hidden}{buckets}-seed{settings.seed}"


def checkpoint_path(out_dir: Path, epoch: int) -> Path:
    return out_dir / f"epoch-{epoch:04d}.pt"


def last_checkpoint(out_dir: Path) -> Path | None:
    checkpoints = sorted(out_dir.glob(CHECKPOINT_GLOB))
    return checkpoints[-1] if checkpoints else None


def best_checkpoint(out_dir: Path) -> Path | None:
    """The checkpoint of a run's best epoch by held-out loss (its last without held-out positions)."""
    last = last_checkpoint(out_dir)
    return None if last is None else checkpoint_path(out_dir, load_run(last)[0].best_epoch)


def resolve_device(name: str = "auto") -> torch.device:
    """``auto``: the GPU when PyTorch sees one (``cuda``), else the CPU; or the device named."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(name)
    except RuntimeError as error:
        raise ValueError(f"device {name}: {error}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {name}: PyTorch sees no CUDA GPU here")
    return device


def new_run(settings: TrainSettings, device: torch.device | str = "cpu") -> Run:
    torch.manual_seed(settings.seed)
    model = NnueModel(settings.hidden, settings.activation, settings.buckets).to(device)
    if settings.optimiser == "adamw":
        optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    else:
        optimiser = torch.optim.Adam(model.parameters(), lr=settings.lr)
    return Run(settings, model, optimiser, [], [])


def load_run(path: Path, device: torch.device | str = "cpu") -> tuple[Run, str]:
    """The run saved in checkpoint ``path`` (its model on ``device``), and the digest of its data."""
    saved = torch.load(path, map_location="cpu", weights_only=False)
    run = new_run(TrainSettings(**saved["settings"]), device)
    run.model.load_state_dict(saved["model"])
    run.optimiser.load_state_dict(saved["optimiser"])
    run.losses = list(saved["losses"])
    run.validation_losses = list(saved["validation_losses"])
    run.held_out_errors = list(saved.get("held_out_errors", []))
    return run, saved["data_digest"]


def save_run(run: Run, out_dir: Path, data_digest: str) -> Path:
    path = checkpoint_path(out_dir, run.epochs_done)
    temporary = path.with_name(path.name + ".tmp")
    torch.save(
        {
            "settings": dataclasses.asdict(run.settings),
            "model": run.model.state_dict(),
            "optimiser": run.optimiser.state_dict(),
            "losses": run.losses,
            "validation_losses": run.validation_losses,
            "held_out_errors": run.held_out_errors,
            "data_digest": data_digest,
        },
        temporary,
    )
    temporary.replace(path)
    return path


def start_or_resume(
    settings: TrainSettings, out_dir: Path, data_digest: str, device: torch.device | str = "cpu"
) -> Run:
    """A new run, or the one in ``out_dir`` if it has the same settings and data (``ValueError`` if not)."""
    checkpoint = last_checkpoint(out_dir)
    if checkpoint is None:
        return new_run(settings, device)
    run, digest = load_run(checkpoint, device)
    if run.settings != settings:
        raise ValueError(
            f"{out_dir} holds a run with other settings ({run.settings}): use another --out or the same options"
        )
    if digest != data_digest:
        raise ValueError(f"{out_dir} holds a run on other data (digest {digest}, this file's {data_digest})")
    return run


def model_device(model: NnueModel) -> torch.device:
    return model.output.weight.device


def targets(settings: TrainSettings, inputs: Batch) -> torch.Tensor:
    score = torch.sigmoid(torch.from_numpy(inputs.score) / settings.wdl_scale)
    return settings.blend * score + (1.0 - settings.blend) * torch.from_numpy(inputs.result)


def output(model: NnueModel, inputs: Batch) -> torch.Tensor:
    """The model's ``y`` for each position of a batch (its score is ``y * scale`` centipawns), on the
    model's device."""
    return model(*model_inputs(model, inputs, model_device(model)))


def loss(settings: TrainSettings, model: NnueModel, inputs: Batch) -> torch.Tensor:
    prediction = torch.sigmoid(output(model, inputs) * (settings.scale / settings.wdl_scale))
    return torch.mean((prediction - targets(settings, inputs).to(prediction.device)) ** 2)


def learning_rate(settings: TrainSettings, epoch: int, progress: float = 0.0) -> float:
    """The step size in epoch ``epoch`` (0-based), ``progress`` (0 to 1) of the way through it."""
    if settings.schedule == "cosine":
        done = min((epoch + progress) / settings.schedule_epochs, 1.0)
        end = settings.lr * settings.lr_end
        return end + (settings.lr - end) * 0.5 * (1.0 + math.cos(math.pi * done))
    return settings.lr * settings.lr_decay ** (epoch // settings.lr_step)


def train_epoch(run: Run, positions: Positions, rows: np.ndarray, quiet: bool) -> float:
    """One pass over ``rows`` in the epoch's seeded order; the mean loss over its batches."""
    if run.settings.backend == "numba":
        return train_epoch_sparse(run, positions, rows, quiet)
    settings, model = run.settings, run.model
    model.train()
    total, done = 0.0, 0
    progress = tqdm(total=len(rows), unit="pos", unit_scale=True, disable=quiet, desc=f"epoch {run.epochs_done + 1}")
    for inputs in batches(positions, rows, settings.batch_size, settings.seed, run.epochs_done):
        for group in run.optimiser.param_groups:
            group["lr"] = learning_rate(settings, run.epochs_done, done / len(rows))
        batch_loss = loss(settings, model, inputs)
        run.optimiser.zero_grad()
        batch_loss.backward()
        run.optimiser.step()
        model.clip_weights()
        total += batch_loss.item() * len(inputs.score)
        done += len(inputs.score)
        progress.update(len(inputs.score))
        progress.set_postfix(loss=f"{total / done:.5f}")
    progress.close()
    return total / len(rows)


def train_epoch_sparse(run: Run, positions: Positions, rows: np.ndarray, quiet: bool) -> float:
    """:func:`train_epoch` with the numba backend: the same batches, step sizes, optimiser and clipping, the
    loss's gradients by :class:`tuning.nnue.sparse.SparseGradients` on PyTorch's number of threads.  PyTorch
    itself (the optimiser's step, the clipping: element by element, the same at any number of threads) runs on
    one thread meanwhile: its threads would only wait on the kernels' for the cores."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _sparse_passes(run, positions, rows, quiet, threads)
    finally:
        torch.set_num_threads(threads)


def _sparse_passes(run: Run, positions: Positions, rows: np.ndarray, quiet: bool, threads: int) -> float:
    from tuning.nnue.sparse import SparseGradients  # Numba: only for this backend

    settings, model = run.settings, run.model
    model.train()
    total, done = 0.0, 0
    order = rows[epoch_order(len(rows), settings.seed, run.epochs_done)]
    progress = tqdm(total=len(rows), unit="pos", unit_scale=True, disable=quiet, desc=f"epoch {run.epochs_done + 1}")
    with SparseGradients(
        model, settings.batch_size, settings.scale, settings.wdl_scale, settings.blend, threads
    ) as gradients:
        for first in range(0, len(order), settings.batch_size):
            chunk = order[first : first + settings.batch_size]
            for group in run.optimiser.param_groups:
                group["lr"] = learning_rate(settings, run.epochs_done, done / len(rows))
            total += gradients(positions, chunk)
            run.optimiser.step()
            model.clip_weights()
            done += len(chunk)
            progress.update(len(chunk))
            progress.set_postfix(loss=f"{total / done:.5f}")
    progress.close()
    return total / len(rows)


@torch.no_grad()
def mean_loss(run: Run, positions: Positions, rows: np.ndarray) -> float:
    run.model.eval()
    total = sum(
        loss(run.settings, run.model, inputs).item() * len(inputs.score)
        for inputs in batches(positions, rows, run.settings.batch_size)
    )
    return total / len(rows)


def scored_rows(positions: Positions, rows: np.ndarray, within: int = HELD_OUT_WITHIN) -> np.ndarray:
    """The ``rows`` whose search score lies within ``within`` centipawns: where the held-out error is measured
    (beyond, a score says "winning" more than how much)."""
    return rows[np.abs(positions.score[rows]) <= within]


@torch.no_grad()
def mean_error(model: NnueModel, scale: int, positions: Positions, rows: np.ndarray) -> float:
    """Mean |model's score - search score| in centipawns over ``rows``: the held-out error."""
    model.eval()
    total = 0.0
    for inputs in batches(positions, rows, SCORING_BATCH):
        scores = output(model, inputs).double().cpu() * scale
        total += float(torch.abs(scores - torch.from_numpy(inputs.score)).sum())
    return total / len(rows)


def plot_losses(run: Run, path: Path, title: str) -> None:
    matplotlib = require("matplotlib", "the training's loss plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=(6, 4))
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    epochs = range(1, run.epochs_done + 1)
    axes.plot(epochs, run.losses, marker="o", label="training")
    if run.validation_losses:
        axes.plot(epochs, run.validation_losses, marker="o", label="validation")
        axes.axvline(run.best_epoch, color="grey", linestyle=":", label=f"best epoch ({run.best_epoch})")
    axes.set_xlabel("epoch")
    axes.set_ylabel("mean squared error")
    axes.set_yscale("log")
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def train(
    data: DataSet,
    settings: TrainSettings,
    epochs: int,
    out_dir: Path,
    quiet: bool = False,
    report: Callable[[Run], None] | None = None,
    device: torch.device | str = "cpu",
) -> Run:
    """Train (or resume) up to ``epochs`` epochs on a data set (a file, a directory or several) on
    ``device``, checkpointing and plotting after each one; the run's model ends on the CPU."""
    out_dir.mkdir(parents=True, exist_ok=True)
    digest = data_digest(data)
    run = start_or_resume(settings, out_dir, digest, device)
    positions = load_positions_cached(data, out_dir)
    training, validation = split(len(positions), settings.validation)
    training = kept_rows(positions, training, settings.min_ply, settings.max_score)  # held-out rows all stay
    scored = scored_rows(positions, validation)
    buckets = f" x {settings.buckets} buckets" if settings.buckets > 1 else ""
    title = f"NNUE (768 -> {settings.hidden}) x 2 -> 1{buckets}, {settings.activation}, {len(training)} positions"
    if settings.mirror:
        training = and_mirrors(training, len(positions))
        positions = with_mirrors(positions)
        title += " and their mirrors"
    while run.epochs_done < epochs:
        run.losses.append(train_epoch(run, positions, training, quiet))
        if len(validation):
            run.validation_losses.append(mean_loss(run, positions, validation))
            run.held_out_errors.append(
                mean_error(run.model, settings.scale, positions, scored) if len(scored) else math.nan
            )
        save_run(run, out_dir, digest)
        plot_losses(run, out_dir / "loss.png", title)
        if report is not None:
            report(run)
    run.model.cpu()
    return run
