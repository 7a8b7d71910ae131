"""``--cluster``: datagen chunks and match pairs on a Dask cluster of worker processes on 127.0.0.1
(docs/cluster.md) give what a local run gives, and a worker killed in the middle of a chunk loses nothing."""

from __future__ import annotations

import io
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

import chess.pgn
import pytest

from tests.extras import importorskip, needs_program, program_path
from tuning import pgnfile
from tuning.cluster import local_workers
from tuning.datagen.run import MANIFEST, generate, parts_dir
from tuning.datagen.selfplay import GameSettings
from tuning.match import main as match_main

importorskip("distributed")
from distributed import Client, LocalCluster  # noqa: E402

REPO = Path(__file__).parents[2]
STOCKFISH = program_path("stockfish")
SETTINGS = GameSettings(nodes=500, depth_cap=8)  # a chunk of two games takes a few seconds
RUN = dict(seed=11, settings=SETTINGS, games=4, chunk_games=2, progress=False)


@pytest.fixture(scope="module")
def pool_output(tmp_path_factory) -> bytes:
    """The run on the local process pool of two workers."""
    output = tmp_path_factory.mktemp("pool") / "d.bin"
    generate(output, workers=2, **RUN)
    return output.read_bytes()


def test_datagen_on_a_local_cluster_writes_the_bytes_of_the_local_pool(tmp_path, pool_output):
    generate(tmp_path / "d.bin", cluster="local:2", **RUN)
    assert (tmp_path / "d.bin").read_bytes() == pool_output


def test_a_worker_killed_in_the_middle_of_a_chunk_loses_nothing(tmp_path, pool_output):
    output = tmp_path / "d.bin"
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        run = threading.Thread(
            target=generate, args=(output,), kwargs=dict(cluster=cluster.scheduler_address, keep_parts=True, **RUN)
        )
        run.start()
        busy = None
        while busy is None and run.is_alive():  # the first worker seen playing a chunk
            busy = next((worker for worker, tasks in client.processing().items() if tasks), None)
            time.sleep(0.05)
        assert busy is not None, "no chunk was seen being played"
        pid = client.run(os.getpid, workers=[busy])[busy]
        os.kill(pid, signal.SIGKILL)
        run.join(timeout=600)
    assert not run.is_alive()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert output.read_bytes() == pool_output
    manifest = json.loads((parts_dir(output) / MANIFEST).read_text())
    assert [chunk["start"] for chunk in manifest["chunks"]] == [0, 2]
    assert sorted(path.name for path in parts_dir(output).iterdir()) == [
        "chunk-00000000-00000002.bin",
        "chunk-00000002-00000004.bin",
        MANIFEST,
    ]


def play_match(capsys, pgn: Path, *cluster: str) -> tuple[dict, dict[str, tuple[str, list[str]]]]:
    """A short match at fixed nodes, Jitfish against Stockfish on two openings: its JSON summary, and each
    game of its PGN by number (result and moves)."""
    jitfish = ["--engine", f"cmd={sys.executable}", "arg=-m", "arg=jitfish", f"dir={REPO}", "name=Jitfish"]
    stockfish = ["--engine", f"cmd={STOCKFISH}", "name=Stockfish", "option.Threads=1"]
    assert (
        match_main(
            [
                *jitfish,
                *stockfish,
                "--each",
                "option.Hash=16",
                "--tc",
                "nodes=300",
                "--rounds",
                "2",
                "--openings",
                str(REPO / "tuning" / "openings" / "balanced.epd"),
                "--openings-order",
                "sequential",
                "--maxmoves",
                "30",
                "--startup-timeout",
                "300",
                "--backend",
                "python-chess",
                "--pgnout",
                str(pgn),
                "--quiet",
                *cluster,
            ]
        )
        == 0
    )
    games = {}
    handle = io.StringIO(pgnfile.read_text(pgn))
    while (game := chess.pgn.read_game(handle)) is not None:
        games[game.headers["GameNumber"]] = (game.headers["Result"], [move.uci() for move in game.mainline_moves()])
    return json.loads(capsys.readouterr().out.splitlines()[-1]), games


@needs_program("stockfish")
def test_a_match_on_a_local_cluster_plays_the_games_of_a_local_run(capsys, tmp_path):
    local, local_games = play_match(capsys, tmp_path / "local.pgn")
    # The workers' games reach the file compressed, as a .gz name asks.
    clustered, clustered_games = play_match(capsys, tmp_path / "cluster.pgn.gz", "--cluster", "local:2")
    assert clustered["backend"] == "dask" and local["backend"] == "python-chess"
    assert sorted(clustered_games) == sorted(local_games) == ["1", "2", "3", "4"]
    assert clustered_games == local_games
    counts = ("wins", "losses", "draws")
    assert [clustered[key] for key in counts] == [local[key] for key in counts]


def test_a_local_cluster_needs_a_worker_count():
    assert local_workers("local:3") == 3 and local_workers("tcp://10.0.0.1:8786") is None
    with pytest.raises(ValueError, match="local:2"):
        local_workers("local:")
