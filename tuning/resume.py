"""Resuming a match from its PGN: ``python -m tuning.match … --pgnout games.pgn.gz --resume``.

A match stopped before it ended (a session's end, a machine taken back) can go on where it stopped. The PGN
that ``--pgnout`` appended to (plain, or compressed for a ``.gz`` name: :mod:`tuning.pgnfile`) is the record:
every encounter (one opening, both colours) whose two games are in it counts as played, and the run plays
only the others, in the same order, appending to the same file.
The score, the Elo and the SPRT are those of all the games, old and new, so a sequential test goes on as if
it had never stopped (a pair cut in half by the stop is played again, whole).

The games are matched to the schedule the command line gives (:func:`tuning.config.schedule`): the same
engine names, openings, order and ``--seed`` must be given again, and a game whose starting position is not
its encounter's opening is refused, never silently miscounted.
"""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path

import chess
import chess.pgn

from tuning import pgnfile
from tuning.backends.pychess import TERMINATION_TAGS
from tuning.config import GAMES_PER_ENCOUNTER, Encounter, MatchConfig, schedule
from tuning.results import FaultKind, GameRecord, GameResult

FAULT_BY_TERMINATION: dict[str, FaultKind] = {tag: kind for kind, tag in TERMINATION_TAGS.items()}
"""The engine fault behind each PGN ``Termination`` tag the python-chess backend writes."""


def played_records(config: MatchConfig) -> list[GameRecord]:
    """The games of complete encounters of ``config``'s schedule found in its ``--pgnout`` file, as records
    numbered as the match numbers them. An encounter cut in half counts only once both of its games are in
    the file; a game played twice (a half pair played again whole) counts by its last try. Raises
    ``ValueError`` when the file holds games of this match's engines that do not fit the schedule."""
    if config.pgn_out is None:
        raise ValueError("--resume needs --pgnout: the PGN of the run to resume")
    if config.opening_order == "random" and config.seed is None and config.openings:
        raise ValueError("--resume with random openings needs the first run's --seed")
    path = Path(config.pgn_out)
    if not path.exists():
        return []
    handle = io.StringIO(pgnfile.read_text(path))  # plain or .gz; a cut-short last gzip member is left out
    names = [engine.name for engine in config.engines]
    encounters = {(encounter.round, frozenset(_names(config, encounter))): encounter for encounter in schedule(config)}
    games: dict[int, dict[int, GameRecord]] = defaultdict(dict)  # encounter -> game number -> its last try
    while (game := chess.pgn.read_game(handle)) is not None:
        headers = game.headers
        if headers.get("Event") != config.event or not {headers["White"], headers["Black"]} <= set(names):
            continue
        key = (int(headers.get("Round", "0")), frozenset((headers["White"], headers["Black"])))
        if key not in encounters:
            raise ValueError(f"{path}: a game of round {key[0]} is outside this match's schedule")
        encounter = encounters[key]
        if game.board().fen() != chess.Board(encounter.opening.fen).fen():
            raise ValueError(
                f"{path}: round {encounter.round} began from another opening than this command gives: "
                "resume with the first run's --openings, --openings-order and --seed"
            )
        record = _record(game, encounter, names)
        games[encounter.number][record.number] = record
    complete = [pair for pair in games.values() if len(pair) == GAMES_PER_ENCOUNTER]
    return sorted((record for pair in complete for record in pair.values()), key=lambda record: record.number)


def _names(config: MatchConfig, encounter: Encounter) -> tuple[str, str]:
    return config.engines[encounter.first].name, config.engines[encounter.second].name


def _record(game: chess.pgn.Game, encounter: Encounter, names: list[str]) -> GameRecord:
    headers = game.headers
    white, black = headers["White"], headers["Black"]
    game_index = 0 if white == names[encounter.first] else 1
    result: GameResult = headers.get("Result", "*")  # type: ignore[assignment]
    fault = FAULT_BY_TERMINATION.get(headers.get("Termination", ""))
    faulty = None
    if fault is not None:
        faulty = white if result == "0-1" else black
    comment = game.end().comment
    reason = comment.rsplit(", ", 1)[-1] if comment else headers.get("Termination", "")
    number = encounter.game_number(game_index)
    plies = int(headers.get("PlyCount", "0")) - len(encounter.opening.moves)  # the engines' moves, as played
    return GameRecord(number, encounter.number, white, black, result, reason, fault, faulty, plies)
