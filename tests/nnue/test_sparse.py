"""The numba training backend (tuning.nnue.sparse): its features, loss and gradients against PyTorch's, and
its runs' determinism (needs PyTorch)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.extras import importorskip

torch = importorskip("torch")

import numpy as np  # noqa: E402

from jitfish.nnue.format import output_bucket  # noqa: E402
from tests.nnue.conftest import SAMPLE  # noqa: E402
from tuning.nnue.__main__ import main  # noqa: E402
from tuning.nnue.check import check_network  # noqa: E402
from tuning.nnue.data import batch, load_positions, with_mirrors  # noqa: E402
from tuning.nnue.model import quantise  # noqa: E402
from tuning.nnue.sparse import SparseGradients, _shares  # noqa: E402
from tuning.nnue.train import TrainSettings, last_checkpoint, load_run, loss, new_run, train  # noqa: E402

SETTINGS = TrainSettings(
    hidden=16,
    activation="screlu",
    buckets=8,
    blend=0.7,
    batch_size=64,
    lr=3e-3,
    optimiser="adamw",
    weight_decay=0.01,
    validation=0.1,
    seed=3,
    backend="numba",
)


@pytest.fixture(scope="module")
def positions():
    return with_mirrors(load_positions(SAMPLE))


def sample_rows(positions, count: int = 96) -> np.ndarray:
    """Rows of the sample and of its mirrors, shuffled."""
    return np.random.default_rng(5).choice(len(positions), count, replace=False)


def torch_gradients(model, settings: TrainSettings, positions, rows) -> tuple[float, list[np.ndarray]]:
    """PyTorch's mean loss of a batch and its gradients (the torch backend's computation)."""
    model.zero_grad()
    batch_loss = loss(settings, model, batch(positions, rows))
    batch_loss.backward()
    parameters = (model.feature_weights.weight, model.feature_bias, model.output.weight, model.output.bias)
    return batch_loss.item(), [p.grad.numpy().copy() for p in parameters]


@pytest.mark.parametrize(
    ("activation", "threads", "hidden"),
    [("crelu", 1, 16), ("crelu", 2, 16), ("screlu", 1, 16), ("screlu", 2, 16), ("screlu", 2, 13), ("crelu", 1, 40)],
)
def test_the_kernels_loss_and_gradients_are_pytorchs_on_a_mixed_batch(positions, activation, threads, hidden):
    settings = dataclasses.replace(SETTINGS, activation=activation, hidden=hidden)
    model = new_run(settings).model
    with torch.no_grad():  # every accumulator value somewhere: some clipped at 0, some at 1, most between
        model.feature_bias.uniform_(-0.5, 1.2)
        model.output.weight.uniform_(-1.0, 1.0)
        model.output.bias.uniform_(-0.3, 0.3)
    rows = sample_rows(positions)
    expected_loss, expected = torch_gradients(model, settings, positions, rows)
    with SparseGradients(model, 128, settings.scale, settings.wdl_scale, settings.blend, threads) as gradients:
        total = gradients(positions, rows)
        found = [grad.copy() for grad in gradients.grads]
        assert gradients.model.feature_weights.weight.grad.data_ptr() == gradients.grads[0].ctypes.data
    assert total / len(rows) == pytest.approx(expected_loss, rel=1e-5)
    for ours, theirs in zip(found, expected):
        assert np.abs(theirs).max() > 1e-4  # a gradient that means something
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-6 * np.abs(theirs).max())


def test_the_kernel_decodes_the_features_and_buckets_the_batch_builder_gives(positions):
    rows = sample_rows(positions, 200)
    model = new_run(SETTINGS).model
    with SparseGradients(model, 200, 400, 400.0, 1.0) as gradients:
        gradients(positions, rows)
        expected = batch(positions, rows)
        counts = gradients.counts
        assert np.array_equal(counts, expected.pieces)
        assert np.array_equal(gradients.buckets, output_bucket(expected.pieces, SETTINGS.buckets))
        starts = expected.offsets
        for i in range(len(rows)):
            assert list(gradients.us[i, : counts[i]]) == list(expected.us_features[starts[i] : starts[i] + counts[i]])
            assert list(gradients.them[i, : counts[i]]) == list(
                expected.them_features[starts[i] : starts[i] + counts[i]]
            )


@pytest.mark.parametrize("threads", [1, 2])
def test_the_gradients_are_the_same_bits_whatever_the_chunks(positions, threads):
    rows = sample_rows(positions)
    model = new_run(dataclasses.replace(SETTINGS, hidden=40)).model
    found = []
    for chunk in (len(rows), 7, 32):  # one chunk; chunks that do not divide the batch; chunks of whole vectors
        with SparseGradients(model, 128, 400, 400.0, 0.9, threads, chunk=chunk) as gradients:
            found.append((gradients(positions, rows), [grad.copy() for grad in gradients.grads]))
    assert len(rows) > 32
    for total, grads in found[1:]:
        assert total == found[0][0]
        for ours, whole in zip(grads, found[0][1]):
            assert np.array_equal(ours, whole)


def test_a_batch_larger_than_the_buffers_is_refused(positions):
    with SparseGradients(new_run(SETTINGS).model, 8, 400, 400.0, 1.0) as gradients:
        with pytest.raises(ValueError, match="1 to 8 positions"):
            gradients(positions, np.arange(9))


def test_the_column_shares_cover_the_hidden_layer_in_whole_vectors():
    assert _shares(128, 2, 16) == [(0, 64), (64, 128)]
    assert _shares(48, 2, 16) == [(0, 32), (32, 48)]
    assert _shares(100, 3) == [(0, 34), (34, 68), (68, 100)]
    assert _shares(16, 4, 16) == [(0, 16)]


@pytest.fixture(scope="module")
def numba_runs(tmp_path_factory):
    """The same two-epoch run of the numba backend on one thread and on two."""
    runs = []
    threads = torch.get_num_threads()
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            out_dir = tmp_path_factory.mktemp(f"numba{count}")
            runs.append((train(SAMPLE, SETTINGS, epochs=2, out_dir=out_dir, quiet=True), out_dir))
            assert torch.get_num_threads() == count  # the epoch gives PyTorch its threads back
    finally:
        torch.set_num_threads(threads)
    return runs


def test_a_numba_run_is_the_same_at_one_and_two_threads(numba_runs):
    (one, _), (two, _) = numba_runs
    assert one.losses == two.losses and one.validation_losses == two.validation_losses
    for name, tensor in one.model.state_dict().items():
        assert torch.equal(tensor, two.model.state_dict()[name]), name


def test_a_numba_run_learns_and_its_file_passes_the_check(numba_runs, positions):
    run, out_dir = numba_runs[1]
    assert run.losses[1] < run.losses[0] and run.validation_losses[1] < run.validation_losses[0]
    assert int(run.optimiser.state[run.model.output.weight]["step"]) == 2 * -(-2700 // SETTINGS.batch_size)
    report = check_network(run.model, quantise(run.model), SAMPLE, count=200)
    assert report.passed, report.summary()
    assert load_run(last_checkpoint(out_dir))[0].settings.backend == "numba"


def test_a_numba_run_resumes_as_an_uninterrupted_one_and_not_as_torch(numba_runs, tmp_path):
    run, out_dir = numba_runs[0]
    copy = tmp_path / "run"
    copy.mkdir()
    (copy / "epoch-0001.pt").write_bytes((out_dir / "epoch-0001.pt").read_bytes())
    resumed = train(SAMPLE, SETTINGS, epochs=2, out_dir=copy, quiet=True)
    assert resumed.losses == run.losses
    assert torch.equal(resumed.model.feature_weights.weight, run.model.feature_weights.weight)
    with pytest.raises(ValueError, match="other settings"):
        train(SAMPLE, dataclasses.replace(SETTINGS, backend="torch"), epochs=3, out_dir=copy, quiet=True)


def test_the_backend_is_a_checked_option_and_trains_from_the_command_line(tmp_path):
    assert TrainSettings().backend == "torch"  # the shipped networks' commands name no backend
    with pytest.raises(ValueError, match="backend must be one of"):
        TrainSettings(backend="jax")
    with pytest.raises(ValueError, match="trains on the CPU"):
        SparseGradients(new_run(SETTINGS, "meta").model, 8, 400, 400.0, 1.0)
    command = ["train", str(SAMPLE), "--backend", "numba", "--device", "cpu", "--hidden", "16", "--buckets", "8"]
    command += ["--batch-size", "256", "--epochs", "1", "--out", str(tmp_path), "--quiet", "--positions", "50"]
    assert main(command) == 0
    assert load_run(last_checkpoint(tmp_path))[0].settings.backend == "numba"
