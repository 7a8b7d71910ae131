"""The analysis of a file of games: read and checked, every position searched, every move judged, written back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import chess.pgn

from jitfish.analysis import DEFAULT_NODES
from jitfish.analysis.judge import NAG_BLUNDER, NAG_INACCURACY, NAG_MISTAKE
from jitfish.analysis.reading import PgnGame, PgnSource, read_games
from jitfish.analysis.report import MoveAnalysis, accuracies, analysis_note, annotate, judge_game
from jitfish.analysis.searching import Position, evaluate_all
from jitfish.search.results import SearchLimits
from jitfish.search.worker import MAX_DEPTH

COUNTED = (
    (NAG_INACCURACY, "inaccuracy", "inaccuracies"),
    (NAG_MISTAKE, "mistake", "mistakes"),
    (NAG_BLUNDER, "blunder", "blunders"),
)


@dataclass
class GameAnalysis:
    """One game of the file: analysed (``game`` annotated, ``moves``, the accuracies), or not (``error``)."""

    number: int  # from 1, in the file
    name: str  # "game 2 (Alice - Bob)"
    original: str  # the game's text in the file
    game: chess.pgn.Game | None = None  # annotated; None when the game could not be analysed
    moves: list[MoveAnalysis] = field(default_factory=list)
    white_accuracy: float | None = None  # per cent
    black_accuracy: float | None = None
    error: str | None = None  # why it was not analysed: "game 2 (Alice - Bob): 2. Ke3 is not a legal move"

    def pgn(self) -> str:
        """The game as PGN: annotated, or as it was in the file when it could not be analysed."""
        if self.game is None:
            return self.original.strip() + "\n"
        return str(self.game) + "\n"

    def marked(self, white: bool) -> list[MoveAnalysis]:
        """One side's moves that earned a NAG."""
        return [move for move in self.moves if move.white == white and move.nag is not None]

    def side_summary(self, white: bool) -> str:
        """``accuracy 84.1 %, 2 inaccuracies, 0 mistakes, 1 blunder (17. Rfe1)``."""
        accuracy = self.white_accuracy if white else self.black_accuracy
        if accuracy is None:
            return "no move"
        marked = self.marked(white)
        counts = []
        for nag, one, many in COUNTED:
            count = sum(move.nag == nag for move in marked)
            counts.append(f"{count} {one if count == 1 else many}")
        blunders = [move.label for move in marked if move.nag == NAG_BLUNDER]
        return f"accuracy {accuracy:.1f} %, " + ", ".join(counts) + (f" ({', '.join(blunders)})" if blunders else "")

    def summary(self) -> str:
        """Lines for a reader: the game, then each side's accuracy and marks (or the error)."""
        if self.error is not None:
            return f"error: {self.error}"
        headers = self.game.headers if self.game is not None else {}
        lines = [f"{self.name}, {headers.get('Result', '*')}"]
        for white, side in ((True, "White"), (False, "Black")):
            player = headers.get(side, "?")
            named = side if player == "?" else f"{side} ({player})"
            lines.append(f"  {named}: {self.side_summary(white)}")
        return "\n".join(lines)


def budget_text(limits: SearchLimits) -> str:
    """``300,000 nodes a position`` and the like."""
    if limits.nodes is not None:
        return f"{limits.nodes:,} nodes a position"
    if limits.depth is not None:
        return f"depth {limits.depth} a position"
    return f"{limits.movetime:g} s a position"


def search_limits(depth: int | None, nodes: int | None, movetime: float | None) -> SearchLimits:
    """The limits of one position's search (``DEFAULT_NODES`` when none is given); ``ValueError`` out of range."""
    if depth is not None and not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 1 and {MAX_DEPTH}, got {depth}")
    if nodes is not None and nodes < 1:
        raise ValueError(f"nodes must be at least 1, got {nodes}")
    if movetime is not None and not movetime > 0:
        raise ValueError(f"movetime must be positive, got {movetime}")
    if depth is None and nodes is None and movetime is None:
        nodes = DEFAULT_NODES
    return SearchLimits(depth=depth, nodes=nodes, movetime=movetime)


def _positions(game: chess.pgn.Game) -> list[Position]:
    board = game.board()
    fen, chess960, moves = board.fen(), board.chess960, []
    positions = [Position(fen, chess960, ())]
    for move in game.mainline_moves():
        moves.append(board.uci(move))
        board.push(move)
        positions.append(Position(fen, chess960, tuple(moves)))
    return positions


def analyse(
    pgn: PgnSource,
    *,
    depth: int | None = None,
    nodes: int | None = None,
    movetime: float | None = None,
    workers: int = 1,
    progress: bool = False,
    skip_bad_games: bool = False,
    say: Callable[[str], None] | None = None,
) -> list[GameAnalysis]:
    """Analyse every game of a PGN file (a path, or an open text file): ``jitfish.analyse("game.pgn")``.

    Each position is searched to ``depth``, ``nodes`` or ``movetime`` seconds (``DEFAULT_NODES`` when none
    is given; more than one: whichever ends first) with a cleared table, on ``workers`` processes, with a
    progress bar on stderr if ``progress``.  With a node or depth limit the result is the same on every
    run and with any number of workers.  Bad input raises ``ValueError`` whose message names the game and
    the move; with ``skip_bad_games`` a bad game is returned with its ``error`` instead (the others are
    analysed), and ``ValueError`` is raised only when the file itself is bad (empty, not PGN).  ``say``
    hears notes (a first run's compile), by default printed to stderr.
    """
    limits = search_limits(depth, nodes, movetime)
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    games = read_games(pgn)
    results = [_unanalysed(entry) for entry in games]
    failed = [result.error for result in results if result.error is not None]
    if failed and not skip_bad_games:
        raise ValueError(failed[0])
    todo = [(result, entry.game) for result, entry in zip(results, games) if entry.game is not None and not entry.error]
    positions = [_positions(game) for _, game in todo]
    flat = evaluate_all([p for game in positions for p in game], limits, workers, progress, say) if todo else []
    start = 0
    for (result, game), game_positions in zip(todo, positions):
        evaluations = flat[start : start + len(game_positions)]
        start += len(game_positions)
        result.game = game
        result.moves = judge_game(game, evaluations)
        result.white_accuracy, result.black_accuracy = accuracies(game, result.moves)
        annotate(game, result.moves, analysis_note(budget_text(limits), result.white_accuracy, result.black_accuracy))
    return results


def _unanalysed(entry: PgnGame) -> GameAnalysis:
    error = None if entry.error is None else f"{entry.name}: {entry.error}"
    return GameAnalysis(entry.number, entry.name, entry.text, error=error)


def write_pgn(results: list[GameAnalysis]) -> str:
    """Every game of the file, analysed or as it was, in the file's order, as one PGN text."""
    return "\n".join(result.pgn() for result in results)
