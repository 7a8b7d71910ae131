"""Training, resuming, export and the float-versus-integer check on the 3,000-line sample (needs PyTorch)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from tests.extras import importorskip

# PyTorch is an optional extra: a checkout without it skips these tests; .ci/run installs it, so CI runs them.
torch = importorskip("torch")

import numpy as np  # noqa: E402

from jitfish.nnue.format import SCRELU, Network, read_network, shipped_network  # noqa: E402
from jitfish.nnue.reference import evaluate  # noqa: E402
from tests.nnue.conftest import REPOSITORY, SAMPLE  # noqa: E402
from tests.nnue.networks import random_network  # noqa: E402
from tuning.datagen.records import unpack_fen  # noqa: E402
from tuning.nnue import train as training  # noqa: E402
from tuning.nnue.__main__ import main  # noqa: E402
from tuning.nnue.check import check_network, integer_scores  # noqa: E402
from tuning.nnue.data import and_mirrors, batch, kept_rows, load_positions, split, with_mirrors  # noqa: E402
from tuning.nnue.model import dequantised, quantise  # noqa: E402
from tuning.nnue.train import (  # noqa: E402
    TrainSettings,
    best_checkpoint,
    checkpoint_path,
    last_checkpoint,
    learning_rate,
    load_run,
    mean_error,
    new_run,
    resolve_device,
    scored_rows,
    train,
    train_epoch,
)

SETTINGS = TrainSettings(hidden=16, batch_size=64, lr=3e-3, validation=0.1, seed=2)


def trained(tmp_path_factory, settings: TrainSettings, epochs: int) -> tuple[training.Run, object]:
    """A run of ``epochs`` on the sample, one thread, in a fresh folder; and the folder."""
    torch.set_num_threads(1)
    out_dir = tmp_path_factory.mktemp("run")
    return train(SAMPLE, settings, epochs=epochs, out_dir=out_dir, quiet=True), out_dir


@pytest.fixture(scope="module")
def two_epochs(tmp_path_factory):
    return trained(tmp_path_factory, SETTINGS, 2)


def test_two_epochs_lower_the_loss_and_leave_checkpoints_and_a_plot(two_epochs):
    run, out_dir = two_epochs
    assert len(run.losses) == 2 and run.losses[1] < run.losses[0]
    assert len(run.validation_losses) == 2 and run.validation_losses[1] < run.validation_losses[0]
    assert sorted(path.name for path in out_dir.glob("epoch-*.pt")) == ["epoch-0001.pt", "epoch-0002.pt"]
    assert (out_dir / "loss.png").stat().st_size > 0


@pytest.mark.parametrize("activation", ["crelu", "screlu"])
def test_the_exported_integers_agree_with_the_float_model(two_epochs, activation):
    run, _ = two_epochs
    model = run.model
    if activation == "screlu":  # the same weights through the other activation
        model.activation = "screlu"
    try:
        report = check_network(model, quantise(model), SAMPLE, count=200)
    finally:
        model.activation = "crelu"
    assert report.passed, report.summary()
    assert report.rounding[0] >= -0.01 and report.rounding[1] < report.rounding_bound + 0.01


def test_the_check_fails_a_file_whose_output_halves_are_swapped(two_epochs):
    model = two_epochs[0].model
    net = quantise(model)
    hidden = net.hidden
    swapped = Network(
        net.feature_weights, net.feature_bias, np.roll(net.output_weights, hidden, axis=1), net.output_bias
    )
    report = check_network(model, swapped, SAMPLE, count=100)
    assert not report.passed and report.worst_ratio > 5


def test_a_run_resumes_after_its_last_checkpoint_and_refuses_other_settings(two_epochs, tmp_path):
    run, out_dir = two_epochs
    copy = tmp_path / "run"
    copy.mkdir()
    for path in out_dir.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    resumed = train(SAMPLE, SETTINGS, epochs=3, out_dir=copy, quiet=True)
    uninterrupted = train(SAMPLE, SETTINGS, epochs=3, out_dir=tmp_path / "fresh", quiet=True)
    assert resumed.losses == uninterrupted.losses and resumed.losses[:2] == run.losses
    assert torch.equal(resumed.model.output.weight, uninterrupted.model.output.weight)
    with pytest.raises(ValueError, match="other settings"):
        train(SAMPLE, TrainSettings(hidden=32, batch_size=64), epochs=3, out_dir=copy, quiet=True)


def test_a_mirrored_run_trains_on_twice_the_positions_and_is_not_resumed_without_mirrors(tmp_path):
    mirrored = dataclasses.replace(SETTINGS, mirror=True)
    run = train(SAMPLE, mirrored, epochs=1, out_dir=tmp_path, quiet=True)
    steps = run.optimiser.state[run.model.output.weight]["step"]
    assert int(steps) == -(-2 * 2700 // SETTINGS.batch_size)  # 2,700 training positions and their mirrors
    with pytest.raises(ValueError, match="other settings"):
        train(SAMPLE, SETTINGS, epochs=2, out_dir=tmp_path, quiet=True)


def test_a_filtered_run_trains_on_the_kept_positions_and_its_checkpoint_records_the_rules(tmp_path):
    kept = kept_rows(load_positions(SAMPLE), np.arange(2700), 16, 1000)
    assert 0 < len(kept) < 2700
    out = tmp_path / "cli"
    command = ["train", str(SAMPLE), "--hidden", "16", "--batch-size", "64", "--validation", "0.1", "--epochs", "1"]
    command += ["--min-ply", "16", "--max-score", "1000", "--out", str(out), "--quiet", "--positions", "20"]
    assert main(command) == 0
    run = load_run(last_checkpoint(out))[0]
    assert (run.settings.min_ply, run.settings.max_score) == (16, 1000)
    assert int(run.optimiser.state[run.model.output.weight]["step"]) == -(-len(kept) // 64)
    with pytest.raises(ValueError, match="0 or more"):
        TrainSettings(min_ply=-1)


def test_export_writes_a_file_that_reads_back_and_passes_the_check(two_epochs, tmp_path, capsys):
    _, out_dir = two_epochs
    output = tmp_path / "net.nnue"
    assert main(["export", str(out_dir), "--output", str(output), "--check", str(SAMPLE), "--positions", "100"]) == 0
    assert read_network(output).hidden == 16
    assert "check passed on 100 positions" in capsys.readouterr().out


def test_the_step_size_follows_its_schedule_by_epoch():
    settings = TrainSettings(lr=1e-3, lr_decay=0.5, lr_step=2)
    assert [learning_rate(settings, epoch) for epoch in range(5)] == [1e-3, 1e-3, 5e-4, 5e-4, 2.5e-4]
    assert learning_rate(SETTINGS, 7) == SETTINGS.lr  # no decay by default


def test_a_decaying_run_steps_with_the_scheduled_size_and_the_wdl_option_sets_the_blend(tmp_path, capsys):
    decaying = dataclasses.replace(SETTINGS, lr_decay=0.25)
    run = train(SAMPLE, decaying, epochs=2, out_dir=tmp_path / "decay", quiet=True)
    assert run.optimiser.param_groups[0]["lr"] == SETTINGS.lr * 0.25
    out = tmp_path / "cli"
    assert (
        main(
            [
                "train",
                str(SAMPLE),
                "--hidden",
                "8",
                "--epochs",
                "1",
                "--wdl",
                "0.25",
                "--out",
                str(out),
                "--quiet",
                "--positions",
                "20",
            ]
        )
        == 0
    )
    assert load_run(last_checkpoint(out))[0].settings.blend == 0.75


def test_a_training_epoch_steps_on_every_record_once_in_a_new_order_each_epoch(monkeypatch):
    """The trainer's own loop, not only the batch maker: the loss sees each training row (scores made
    the row number) exactly once per epoch, mirrors included, and the next epoch in another order."""
    positions = load_positions(SAMPLE)
    records = positions.records.copy()
    records["score"] = np.arange(len(records))
    records["flags"] &= 0xFE  # white to move: the score is the row number as read
    mirrored = with_mirrors(dataclasses.replace(positions, records=records))
    rows = and_mirrors(np.arange(2700), len(records))
    seen: list[np.ndarray] = []
    real_loss = training.loss

    def recording_loss(settings, model, inputs):
        seen.append(inputs.score.copy())
        return real_loss(settings, model, inputs)

    monkeypatch.setattr(training, "loss", recording_loss)
    run = new_run(dataclasses.replace(SETTINGS, batch_size=500, mirror=True))
    orders = []
    for _ in range(2):
        seen.clear()
        train_epoch(run, mirrored, rows, quiet=True)
        run.losses.append(0.0)
        orders.append(np.concatenate(seen))
        assert sorted(orders[-1].tolist()) == sorted(list(range(2700)) * 2)
    assert not np.array_equal(orders[0], orders[1])


def test_the_batch_integer_scores_are_the_references_for_the_shipped_network():
    """The held-out errors of the file's integers (tuning/nnue_learning_curve.py) use this batch form."""
    net = shipped_network()
    positions = load_positions(SAMPLE)
    rows = np.arange(0, len(positions), 7)
    expected = [evaluate(net, unpack_fen(positions.records[row])) for row in rows]
    assert integer_scores(net, batch(positions, rows)).tolist() == expected
    assert min(expected) < 0 < max(expected)


# The recipe of issue 50: output buckets, SCReLU, AdamW, a cosine schedule, the best epoch, the device.

RECIPE = dataclasses.replace(
    SETTINGS,
    activation="screlu",
    buckets=8,
    optimiser="adamw",
    weight_decay=0.01,
    schedule="cosine",
    schedule_epochs=3,
    blend=0.75,
)


@pytest.fixture(scope="module")
def recipe_run(tmp_path_factory):
    return trained(tmp_path_factory, RECIPE, 3)


def test_the_recipe_trains_a_bucketed_screlu_network_whose_file_passes_the_check(recipe_run):
    run, _ = recipe_run
    assert isinstance(run.optimiser, torch.optim.AdamW) and run.optimiser.param_groups[0]["weight_decay"] == 0.01
    assert run.losses[-1] < run.losses[0]  # 2,700 positions: too few for the held-out loss to fall
    assert len(run.validation_losses) == len(run.held_out_errors) == 3
    net = quantise(run.model)
    assert (net.buckets, net.activation) == (8, SCRELU)
    assert len(np.unique(net.output_weights, axis=0)) == 8  # each bucket learnt from its own positions
    report = check_network(run.model, net, SAMPLE, count=200)
    assert report.passed, report.summary()


def test_the_held_out_error_is_the_mean_centipawn_gap_on_positions_within_600(recipe_run):
    run, _ = recipe_run
    positions = load_positions(SAMPLE)
    rows = scored_rows(positions, split(len(positions), RECIPE.validation)[1])
    assert 0 < len(rows) < 300 and np.abs(positions.score[rows]).max() <= 600
    scores = integer_scores(quantise(run.model), batch(positions, rows))
    integer_error = float(np.mean(np.abs(scores - positions.score[rows])))
    assert abs(mean_error(run.model, RECIPE.scale, positions, rows) - integer_error) < 2.0  # the rounding
    assert mean_error(run.model, RECIPE.scale, positions, rows) == pytest.approx(run.held_out_errors[-1])


def test_the_check_follows_each_positions_bucket():
    """A bucketed network and its float twin agree to the floors; the same with two buckets exchanged
    does not: the trainer's bucket of a position is the reference's."""
    net = random_network(seed=5, hidden=16, activation=SCRELU, buckets=8)
    assert check_network(dequantised(net), net, SAMPLE, count=300).passed
    exchanged = Network(
        net.feature_weights,
        net.feature_bias,
        net.output_weights[[0, 1, 2, 3, 4, 6, 5, 7]],
        net.output_bias[[0, 1, 2, 3, 4, 6, 5, 7]],
        activation=SCRELU,
    )
    report = check_network(dequantised(exchanged), net, SAMPLE, count=300)
    assert not report.passed and report.worst_ratio > 50


def test_the_cosine_falls_from_the_step_size_to_its_end_share_and_stays():
    settings = TrainSettings(lr=1e-3, schedule="cosine", schedule_epochs=10, lr_end=0.01)
    assert learning_rate(settings, 0) == 1e-3
    assert learning_rate(settings, 5) == pytest.approx((1e-3 + 1e-5) / 2)
    assert learning_rate(settings, 2, 0.5) == pytest.approx(1e-5 + (1e-3 - 1e-5) * 0.5 * (1 + np.cos(np.pi / 4)))
    assert learning_rate(settings, 10) == learning_rate(settings, 30) == pytest.approx(1e-5)
    rates = [learning_rate(settings, epoch, part / 4) for epoch in range(10) for part in range(4)]
    assert all(later < earlier for earlier, later in zip(rates, rates[1:]))


def test_a_cosine_run_ends_at_its_last_step_size(recipe_run):
    run, _ = recipe_run
    batches_per_epoch = -(-2700 // RECIPE.batch_size)
    assert run.optimiser.param_groups[0]["lr"] == pytest.approx(
        learning_rate(RECIPE, 2, (batches_per_epoch - 1) * RECIPE.batch_size / 2700)
    )


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(optimiser="sgd"), "optimiser must be one of"),
        (dict(schedule="linear"), "schedule must be one of"),
        (dict(schedule="cosine"), "needs its length"),
        (dict(weight_decay=0.01), "weight decay needs the adamw optimiser"),
    ],
)
def test_settings_that_mean_nothing_are_refused(change, message):
    with pytest.raises(ValueError, match=message):
        TrainSettings(**change)


def test_the_run_exports_its_best_epoch_by_held_out_loss(tmp_path, monkeypatch, capsys):
    held_out_losses = iter([0.3, 0.1, 0.2])
    monkeypatch.setattr(training, "mean_loss", lambda run, positions, rows: next(held_out_losses))
    out = tmp_path / "best"
    assert (
        main(
            [
                "train",
                str(SAMPLE),
                "--hidden",
                "8",
                "--epochs",
                "3",
                "--validation",
                "0.1",
                "--out",
                str(out),
                "--quiet",
                "--positions",
                "20",
                "--buckets",
                "8",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    assert "exporting epoch 2, the best by held-out loss" in capsys.readouterr().out
    assert best_checkpoint(out) == checkpoint_path(out, 2)
    best = quantise(load_run(checkpoint_path(out, 2))[0].model)
    exported = read_network(out / "network.nnue")
    assert np.array_equal(exported.output_weights, best.output_weights) and exported.buckets == 8
    last = quantise(load_run(checkpoint_path(out, 3))[0].model)
    assert not np.array_equal(exported.output_weights, last.output_weights)


def test_the_device_is_the_gpu_when_there_is_one_and_is_not_a_setting(tmp_path, two_epochs):
    assert resolve_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    assert resolve_device("cpu").type == "cpu"
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA GPU"):
            resolve_device("cuda")
    with pytest.raises(ValueError, match="device nonsense"):
        resolve_device("nonsense")
    assert main(["train", str(SAMPLE), "--optimiser", "adam", "--weight-decay", "0.1", "--out", str(tmp_path)]) == 2


def test_a_checkpoint_from_before_the_recipe_options_resumes_as_adam_with_a_step_schedule(two_epochs, tmp_path):
    """Checkpoints written before buckets, AdamW and the cosine carried none of their settings."""
    run, out_dir = two_epochs
    saved = torch.load(last_checkpoint(out_dir), weights_only=False)
    for name in ("buckets", "optimiser", "weight_decay", "schedule", "schedule_epochs", "lr_end"):
        del saved["settings"][name]
    del saved["held_out_errors"]
    old = tmp_path / "epoch-0002.pt"
    torch.save(saved, old)
    loaded, _ = load_run(old)
    assert loaded.settings == SETTINGS and isinstance(loaded.optimiser, torch.optim.Adam)
    assert loaded.model.buckets == 1 and torch.equal(loaded.model.output.weight, run.model.output.weight)


@pytest.mark.slow
def test_the_mkl_branch_option_pins_mkl_as_the_environment_variable_does(tmp_path):
    """``--mkl-branch AVX2`` trains what ``MKL_CBWR=AVX2`` set before Python starts trains, tensor for tensor.

    On a CPU whose own MKL code is not AVX2's (AVX-512 ones), an option that came after MKL's first call
    would train MKL's own code instead, and the floats differ: the sums of a 6,000-position batch at two
    threads part in their last bits.
    """

    def trained(name: str, *option: str, env: dict[str, str]) -> dict[str, torch.Tensor]:
        out = tmp_path / name
        command = [sys.executable, "-m", "tuning.nnue", "train", str(SAMPLE), "--hidden", "128", "--batch-size"]
        command += ["16384", "--mirror", "--epochs", "1", "--threads", "2", "--validation", "0", "--quiet"]
        subprocess.run([*command, "--out", str(out), *option], check=True, env=env, cwd=REPOSITORY, capture_output=True)
        return torch.load(out / "epoch-0001.pt", weights_only=False)["model"]

    unset = {key: value for key, value in os.environ.items() if key != "MKL_CBWR"}
    by_option = trained("option", "--mkl-branch", "AVX2", env=unset)
    by_variable = trained("variable", env={**unset, "MKL_CBWR": "AVX2"})
    assert by_option.keys() == by_variable.keys()
    assert all(torch.equal(by_option[name], by_variable[name]) for name in by_option)
