"""Matches on a Dask cluster (``python -m tuning.match … --cluster ADDRESS``, docs/cluster.md).

Each encounter (one opening, both colours) is one task: a worker starts the engines, plays the pair with
the python-chess backend (:meth:`~tuning.backends.pychess.PythonChessBackend.play_pair`) and sends back
the two records and, when the match writes a PGN, the two games' text, which is appended here as each pair
arrives.  The games are numbered as a local run numbers them, so at fixed nodes (and engines that are
deterministic there) the same command gives the same games, pair by pair.  As many pairs are in flight as
the cluster has worker threads; the SPRT stops new pairs as it does locally.  Every worker runs the
engine commands as given, so they must name programs that exist on every worker machine.
"""

from __future__ import annotations

import dataclasses
import tempfile
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

from tuning import pgnfile
from tuning.backends.interface import GameCallback, MatchOutcome, StopPredicate
from tuning.config import Encounter, MatchConfig, schedule
from tuning.results import GameRecord


def play_encounter(config: MatchConfig, encounter: Encounter) -> tuple[list[GameRecord], str]:
    """A worker's task: the pair's records and PGN text (empty when the match writes no PGN)."""
    from tuning.backends.pychess import PythonChessBackend

    with tempfile.TemporaryDirectory() as scratch:
        pgn = Path(scratch) / "pair.pgn"
        worker_config = dataclasses.replace(config, pgn_out=str(pgn) if config.pgn_out else None)
        records = PythonChessBackend().play_pair(worker_config, encounter)
        return records, pgn.read_text(encoding="utf-8") if pgn.exists() else ""


class ClusterBackend:
    """Plays the match's encounters on ``executor`` (a :class:`tuning.cluster.ClusterExecutor`)."""

    name = "dask"

    def __init__(self, executor) -> None:
        self.executor = executor

    def run(self, config: MatchConfig, on_game: GameCallback, should_stop: StopPredicate) -> MatchOutcome:
        encounters = schedule(config)
        records: list[GameRecord] = []
        playing: set[Future] = set()
        submitted, stopping = 0, False
        while True:
            while not stopping and submitted < len(encounters) and len(playing) < self.executor.slots:
                playing.add(self.executor.submit(play_encounter, config, encounters[submitted]))
                submitted += 1
            if not playing:
                break
            finished, playing = wait(playing, return_when=FIRST_COMPLETED)
            for future in finished:
                pair, pgn = future.result()
                if pgn:
                    pgnfile.append(config.pgn_out, pgn)
                for record in pair:
                    records.append(record)
                    on_game(record, records)
                    stopping = stopping or should_stop(records)
        records.sort(key=lambda record: record.number)
        return MatchOutcome(records, stopped_early=stopping and len(records) < 2 * len(encounters))
