"""A resumable self-play run: games in fixed chunks, played by worker processes, merged into one file.

The run writing ``data.bin`` (a game file, :mod:`tuning.datagen.records`)
keeps its work in ``data.bin.parts/``: one ``chunk-SSSSSSSS-EEEEEEEE.bin`` per
finished chunk (games ``S`` to ``E - 1``, one gzip member),
written under a temporary name and renamed when complete, and
``manifest.json``, the run's settings and the chunks recorded as done (the
main process rewrites it, again by rename, after each chunk).  Chunk ``k``
always holds games ``k * chunk_games`` onwards, and a game depends only on the
seed, its index and the settings (:mod:`tuning.datagen.selfplay`), so a run
killed at any moment and started again with the same command continues with
the chunks not recorded, and ends with the same games as an uninterrupted
run: a chunk written but not yet recorded is played again, identically.

``--games N`` writes games ``0 … N-1``; ``--positions N`` writes the shortest
run of chunks from chunk 0 that holds ``N`` labelled positions (whole games,
so a few more than ``N``).  The output is the chunk files laid end to end (gzip
members concatenate), so it can be extended by appending.  When
the output is written the parts are deleted, unless asked to keep them (to
extend the run later without replaying it).  The manifest records the
engine (version, digest of the kernel sources, digest of the weights) with
the settings, and a run with other ones is refused rather than mixed in.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import shutil
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from pathlib import Path

from tqdm import tqdm

from jitfish import __version__
from jitfish.eval.params import default_weights
from jitfish.runtime.jit import cache_root, source_digest
from tuning.datagen.dataset import teacher_name
from tuning.datagen.lines import BLACK_WIN, DRAW, WHITE_WIN, write_atomically
from tuning.datagen.records import GAME_SUFFIX, write_games
from tuning.datagen.selfplay import GameSettings, SelfPlayer, warm_up

CHUNK_GAMES = 16
MANIFEST = "manifest.json"
RESULT_NAMES = {WHITE_WIN: "white_wins", DRAW: "draws", BLACK_WIN: "black_wins"}


@dataclass
class Chunk:
    """A finished chunk as the manifest records it."""

    start: int
    stop: int
    positions: int
    white_wins: int
    draws: int
    black_wins: int

    @property
    def name(self) -> str:
        return chunk_name(self.start, self.stop)


@dataclass
class Summary:
    games: int  # in the output
    positions: int  # labelled positions in the output
    results: tuple[int, int, int]  # white wins, draws, black wins among the output's games
    new_games: int  # played by this call (the rest were resumed)
    new_positions: int
    elapsed: float  # seconds, this call

    def report(self) -> str:
        rate = self.new_positions / self.elapsed if self.elapsed > 0 else 0.0
        white, draws, black = self.results
        return (
            f"games {self.games} (+{white} ={draws} -{black}), positions {self.positions}; "
            f"this run: {self.new_games} games, {self.new_positions} positions in {self.elapsed:.1f} s, "
            f"{rate:.1f} positions/s"
        )


def engine_identity() -> str:
    """What the games depend on besides the settings: the version, the kernel sources and the weights."""
    weights = hashlib.sha1(default_weights().tobytes()).hexdigest()[:16]
    return f"{__version__}-{source_digest()}-{weights}"


def default_output(seed: int, nodes: int) -> Path:
    """Where a run writes unless told: the user's Jitfish cache, never the repository."""
    return cache_root() / "data" / f"selfplay-seed{seed}-nodes{nodes}{GAME_SUFFIX}"


def chunk_name(start: int, stop: int) -> str:
    return f"chunk-{start:08d}-{stop:08d}{GAME_SUFFIX}"


def parts_dir(output: Path) -> Path:
    return output.with_name(output.name + ".parts")


# --- the worker side: one player per process -------------------------------
_worker: dict = {}


def _start_worker(parts: Path, seed: int, settings: GameSettings, network: Path | None) -> None:
    _worker.update(parts=parts, seed=seed, settings=settings, player=SelfPlayer(network=network))


def _play_chunk(start: int, stop: int) -> Chunk:
    """Play games ``start … stop - 1`` and write their records as one chunk file."""
    games = [_worker["player"].play_game(_worker["seed"], index, _worker["settings"]) for index in range(start, stop)]
    write_atomically(
        _worker["parts"] / chunk_name(start, stop), lambda path: write_games(path, [game.record() for game in games])
    )
    counts = {name: sum(game.result == result for game in games) for result, name in RESULT_NAMES.items()}
    return Chunk(start, stop, sum(game.positions for game in games), **counts)


class _InProcess:
    """The executor interface, playing each chunk at once in this process (one worker)."""

    def __init__(self, initializer, initargs) -> None:
        initializer(*initargs)

    def submit(self, function, *args) -> Future:
        future: Future = Future()
        future.set_result(function(*args))
        return future

    def __enter__(self) -> _InProcess:
        return self

    def __exit__(self, *exc) -> None:
        pass


# --- the main side: what to play next, the manifest, the output --------------
class _Plan:
    """Which chunk to play next, given the chunks done and those being played."""

    def __init__(self, chunk_games: int, games: int | None, positions: int | None, done: dict[int, Chunk]):
        self.chunk_games, self.games, self.positions = chunk_games, games, positions
        self.done = {k: chunk for k, chunk in done.items() if chunk.stop == self._stop(k)}

    def _stop(self, k: int) -> int:
        stop = (k + 1) * self.chunk_games
        return stop if self.games is None else min(stop, self.games)

    def next_chunk(self, playing: set[int]) -> tuple[int, int, int] | None:
        """``(k, start, stop)`` of the next chunk to play, or ``None`` when those done or playing suffice."""
        k = 0
        while k in self.done or k in playing:
            k += 1
        if self.games is not None:
            return (k, k * self.chunk_games, self._stop(k)) if k * self.chunk_games < self.games else None
        finished = [chunk for j, chunk in self.done.items() if j < k]
        per_chunk = sum(c.positions for c in finished) / len(finished) if finished else 0.0
        expected = sum(c.positions for c in finished) + per_chunk * len(playing)
        return (k, k * self.chunk_games, self._stop(k)) if expected < self.positions else None

    def output_chunks(self) -> list[Chunk]:
        """The chunks the output holds, in order."""
        chunks, total, k = [], 0, 0
        while k in self.done and (self.positions is None or total < self.positions):
            chunks.append(self.done[k])
            total += self.done[k].positions
            k += 1
        return chunks

    def progress(self) -> int:
        if self.games is not None:
            return sum(c.stop - c.start for c in self.done.values())
        return min(sum(c.positions for c in self.done.values()), self.positions)


def _load_manifest(parts: Path, settings: dict) -> dict[int, Chunk]:
    """The chunks recorded as done (whose files exist); ``ValueError`` if the run had other settings."""
    path = parts / MANIFEST
    if not path.exists():
        return {}
    manifest = json.loads(path.read_text())
    if manifest["settings"] != settings:
        raise ValueError(
            f"{parts} holds a run with settings {manifest['settings']}, not {settings}: "
            f"give another --output, or delete {parts} to start again"
        )
    chunks = (Chunk(**record) for record in manifest["chunks"])
    return {chunk.start // settings["chunk_games"]: chunk for chunk in chunks if (parts / chunk.name).exists()}


def _save_manifest(parts: Path, settings: dict, done: dict[int, Chunk]) -> None:
    manifest = {"settings": settings, "chunks": [asdict(done[k]) for k in sorted(done)]}
    write_atomically(parts / MANIFEST, lambda path: path.write_text(json.dumps(manifest, indent=1) + "\n"))


def _merge(parts: Path, chunks: list[Chunk], output: Path) -> None:
    """Write the chunks' games to ``output``, one chunk file after the other."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as merged:
            for chunk in chunks:
                with open(parts / chunk.name, "rb") as part:
                    shutil.copyfileobj(part, merged)

    write_atomically(output, write)


def _executor(
    workers: int, cluster: str | None, parts: Path, seed: int, settings: GameSettings, network: Path | None
) -> tuple[Executor, int]:
    """Where chunks are played, and how many at once: the Dask cluster at ``cluster`` (its worker threads;
    :mod:`tuning.cluster`), this process for one worker, else a pool of ``workers`` processes, each
    started by :func:`_start_worker`."""
    initargs = (parts, seed, settings, network)
    if cluster is not None:
        from tuning.cluster import ClusterExecutor

        executor = ClusterExecutor(cluster, _start_worker, initargs)
        warm_up(network)  # a local cluster's workers then only load the cache (remote ones compile their own)
        return executor, executor.slots
    if workers == 1:
        return _InProcess(_start_worker, initargs), 1
    warm_up(network)  # compile (or load) once here, so that the workers only load the cache
    return ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker, initargs=initargs
    ), workers


def generate(
    output: str | Path,
    *,
    seed: int,
    settings: GameSettings = GameSettings(),  # noqa: B008 (frozen)
    games: int | None = None,
    positions: int | None = None,
    workers: int = 1,
    chunk_games: int = CHUNK_GAMES,
    keep_parts: bool = False,
    progress: bool = True,
    network: str | Path | None = None,
    published: Callable[[Summary], None] | None = None,
    cluster: str | None = None,
) -> Summary:
    """Play (or resume) the run and write its games to ``output``; ``games`` or ``positions`` says how much.

    ``network`` is the teacher (a network file; ``None``: the hand-written evaluation), recorded in the
    run's settings by its hash.  With ``published``, ``output`` is rewritten after every chunk that
    extends the finished run of chunks from chunk 0, and ``published`` is called with what it then
    holds, so that the output is always a whole, valid file of everything finished so far.  ``cluster``:
    a Dask scheduler's address, or ``local:N``, to play the chunks on (``workers`` is then unused).
    """
    if (games is None) == (positions is None):
        raise ValueError("give exactly one of games or positions")
    if (games if games is not None else positions) <= 0 or workers <= 0 or chunk_games <= 0:
        raise ValueError("games, positions, workers and chunk size must be positive")
    started = time.perf_counter()
    output = Path(output).expanduser()
    parts = parts_dir(output)
    parts.mkdir(parents=True, exist_ok=True)
    network = None if network is None else Path(network).resolve()
    recorded = {
        "seed": seed,
        **asdict(settings),
        "chunk_games": chunk_games,
        "engine": engine_identity(),
        "teacher": teacher_name(network),
    }
    plan = _Plan(chunk_games, games, positions, _load_manifest(parts, recorded))
    new_games = new_positions = 0
    pool, slots = _executor(workers, cluster, parts, seed, settings, network)
    bar = tqdm(
        total=games or positions,
        initial=plan.progress(),
        unit=" games" if games else " positions",
        disable=not progress,
        dynamic_ncols=True,
    )
    written_chunks = plan.output_chunks()
    with pool, bar:
        playing: dict[Future, int] = {}
        while True:
            while len(playing) < slots and (chunk := plan.next_chunk(set(playing.values()))) is not None:
                k, start, stop = chunk
                playing[pool.submit(_play_chunk, start, stop)] = k
            if not playing:
                break
            finished, _ = wait(playing, return_when=FIRST_COMPLETED)
            for future in finished:
                done = future.result()
                plan.done[playing.pop(future)] = done
                _save_manifest(parts, recorded, plan.done)
                new_games += done.stop - done.start
                new_positions += done.positions
                bar.update(plan.progress() - bar.n)
                if published is not None and len(plan.output_chunks()) > len(written_chunks):
                    written_chunks = plan.output_chunks()
                    _merge(parts, written_chunks, output)
                    published(_summary(written_chunks, new_games, new_positions, started))
    chunks = plan.output_chunks()
    _merge(parts, chunks, output)
    if not keep_parts:
        for path in parts.iterdir():
            path.unlink()
        parts.rmdir()
    summary = _summary(chunks, new_games, new_positions, started)
    if published is not None:
        published(summary)
    return summary


def _summary(chunks: list[Chunk], new_games: int, new_positions: int, started: float) -> Summary:
    """The summary of an output holding ``chunks``."""
    results = tuple(sum(getattr(c, name) for c in chunks) for name in RESULT_NAMES.values())
    return Summary(
        sum(c.stop - c.start for c in chunks),
        sum(c.positions for c in chunks),
        results,
        new_games,
        new_positions,
        time.perf_counter() - started,
    )
