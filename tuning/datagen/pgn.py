"""Positions from a user's PGN games, labelled with each game's result.

Each game with a result (``1-0``, ``1/2-1/2``, ``0-1``; unfinished games are
skipped) is replayed along its main line.  A position gets a line when it is
quiet (:mod:`tuning.datagen.quiet`) for the move the game played there, and
its score comes from the ``[%eval …]`` comment on the move that reached it
(as lichess and most GUIs write it) or, when there is none, from a Jitfish
search of ``nodes`` soft nodes, whose best move must then be quiet too.  With
``nodes=0`` positions without an ``[%eval]`` are skipped.  Games of variants
other than standard chess and Chess960 are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn
from tqdm import tqdm

import jitfish
from jitfish.search import Searcher
from jitfish.types import MATE
from tuning.datagen.lines import PGN_RESULTS, format_line, write_data
from tuning.datagen.quiet import is_quiet
from tuning.datagen.selfplay import DEFAULT_DEPTH_CAP, DEFAULT_NODES, HASH_MB, GameSettings


@dataclass
class PgnSummary:
    games: int = 0  # games read
    skipped: int = 0  # of which without a result, of a variant, or with errors in their moves
    positions: int = 0  # lines written
    from_eval: int = 0  # of which scored by an [%eval] comment
    elapsed: float = 0.0

    def report(self) -> str:
        rate = self.positions / self.elapsed if self.elapsed > 0 else 0.0
        return (
            f"games {self.games} ({self.skipped} skipped), positions {self.positions} "
            f"({self.from_eval} scored by [%eval], {self.positions - self.from_eval} by search) "
            f"in {self.elapsed:.1f} s, {rate:.1f} positions/s"
        )


def _eval_score(node: chess.pgn.GameNode) -> int | None:
    """The ``[%eval]`` of the position after ``node``'s move, centipawns from white's view (mates as
    Jitfish's ``MATE - ply``), or ``None``."""
    evaluation = node.eval() if node.parent is not None else None
    return None if evaluation is None else evaluation.white().score(mate_score=MATE)


def game_lines(game: chess.pgn.Game, searcher: Searcher | None, settings: GameSettings) -> Iterator[tuple[str, bool]]:
    """``(line, scored_by_eval)`` for each kept position of ``game`` (which has a result)."""
    result = PGN_RESULTS[game.headers["Result"]]
    board = game.board()
    engine_board = jitfish.Board(board.fen(), chess960=board.chess960)
    if searcher is not None:
        searcher.clear()
    node: chess.pgn.GameNode = game
    while node.variations:
        following = node.variation(0)
        played = following.move
        score, from_eval = _eval_score(node), True
        if score is None and searcher is not None and is_quiet(board, played, 0):
            searched = searcher.search(engine_board, settings.limits())
            score, from_eval = searched.score if board.turn == chess.WHITE else -searched.score, False
            if not is_quiet(board, chess.Move.from_uci(searched.best_move), searched.score):
                score = None
        if score is not None and is_quiet(board, played, score):
            yield format_line(board.fen(), score, result), from_eval
        engine_board.push_uci(played.uci())
        board.push(played)
        node = following


def _games(paths: Iterable[str | Path]) -> Iterator[chess.pgn.Game]:
    for path in paths:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                yield game


def import_pgn(
    paths: Iterable[str | Path],
    output: str | Path,
    *,
    nodes: int = DEFAULT_NODES,
    depth_cap: int = DEFAULT_DEPTH_CAP,
    progress: bool = True,
) -> PgnSummary:
    """Write the kept positions of every game in ``paths`` to ``output`` (gzip); ``ValueError`` for a
    missing file."""
    paths = [Path(p) for p in paths]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ValueError(f"no such PGN file: {', '.join(missing)}")
    started = time.perf_counter()
    searcher = Searcher(hash_mb=HASH_MB, threads=1) if nodes > 0 else None
    settings = GameSettings(nodes=max(nodes, 1), depth_cap=depth_cap)
    summary = PgnSummary()

    def lines() -> Iterator[str]:
        for game in tqdm(_games(paths), unit=" games", disable=not progress, dynamic_ncols=True):
            summary.games += 1
            if game.headers.get("Result") not in PGN_RESULTS or game.errors or type(game.board()) is not chess.Board:
                summary.skipped += 1
                continue
            for line, from_eval in game_lines(game, searcher, settings):
                summary.positions += 1
                summary.from_eval += from_eval
                yield line

    output = Path(output).expanduser()
    output.parent.mkdir(parents=True, exist_ok=True)
    write_data(output, lines())
    summary.elapsed = time.perf_counter() - started
    return summary
