"""cutechess-cli backend: builds its command line, runs it, and reads the games back from its output.

Every finished game is read from cutechess-cli's ``Finished game N (White vs Black): 1-0 {reason}`` lines, so
W/D/L, pentanomial pairs and faults are computed by :mod:`tuning.results` exactly as for the built-in backend. Its
own ``Score of``, ``Elo difference`` and ``SPRT`` lines are parsed too and passed on as ``reported`` (a value it
printed as ``nan`` or ``inf``, e.g. the Elo of a 100 % score, becomes None: the summary is strict JSON).  cutechess-cli
1.4 prints an ``SPRT`` line with infinite bounds after a match without ``-sprt``; that one is skipped.  Games ``2k-1``
and ``2k`` form opening pair k (``-games 2 -repeat``). cutechess-cli stops an SPRT itself; ``-recover`` makes it
restart crashed engines instead of ending the match.
"""

from __future__ import annotations

import dataclasses
import math
import re
import subprocess
import tempfile
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuning import pgnfile
from tuning.backends.interface import CUTECHESS_PROGRAM, GameCallback, MatchOutcome, StopPredicate
from tuning.config import GAMES_PER_ENCOUNTER, MatchConfig
from tuning.openings import opening_format
from tuning.results import FaultKind, GameRecord, GameResult

_FINISHED = re.compile(r"^Finished game (\d+) \((.+)\): (1-0|0-1|1/2-1/2|\*) \{(.*)\}\s*$")
_SCORE = re.compile(r"^Score of (.+): (\d+) - (\d+) - (\d+)\s+\[([-\d.]+|nan)\] (\d+)\s*$")
_ELO = re.compile(r"^Elo difference: (\S+) \+/- (\S+?)(?:, LOS: (\S+) %, DrawRatio: (\S+) %)?\s*$")
_SPRT = re.compile(r"^SPRT: llr (\S+) \((\S+)%\), lbound (\S+), ubound (\S+)(?: - (H0|H1) was accepted)?\s*$")
_FAULT_WORDS: tuple[tuple[str, FaultKind], ...] = (
    ("loses on time", "time_loss"),
    ("makes an illegal move", "illegal_move"),
    ("disconnects", "crash"),
    ("connection stalls", "hang"),
)


def _number(text: str) -> float | None:
    """The number cutechess-cli printed, or None where it printed none or a non-finite one."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _format(value: float) -> str:
    return f"{value:g}"


def build_command(config: MatchConfig, program: str = CUTECHESS_PROGRAM) -> list[str]:
    """The cutechess-cli argument list for ``config`` (no shell quoting needed: it is passed as a list)."""
    protocols = {engine.protocol for engine in config.engines}
    shared_protocol = protocols.pop() if len(protocols) == 1 else None
    command = [program]
    for engine in config.engines:
        command += ["-engine", *engine.cutechess_tokens(include_protocol=shared_protocol is None)]
    each = config.time_control.cutechess_options()
    if shared_protocol:
        each.append(f"proto={shared_protocol}")
    if config.time_margin:
        each.append(f"timemargin={round(config.time_margin * 1000)}")
    command += ["-each", *each]
    if len(config.engines) > 2:
        command += ["-tournament", config.tournament]
    if config.openings_file:
        command += [
            "-openings",
            f"file={config.openings_file}",
            f"format={opening_format(config.openings_file)}",
            f"order={config.opening_order}",
        ]
        if config.opening_plies is not None:
            command.append(f"plies={config.opening_plies}")
    command += ["-repeat", "-games", str(GAMES_PER_ENCOUNTER), "-rounds", str(config.rounds)]
    command += ["-concurrency", str(config.concurrency)]
    if config.sprt is not None:
        sprt = config.sprt
        command += [
            "-sprt",
            f"elo0={_format(sprt.elo0)}",
            f"elo1={_format(sprt.elo1)}",
            f"alpha={_format(sprt.alpha)}",
            f"beta={_format(sprt.beta)}",
        ]
    if config.draw is not None:
        command += ["-draw", *config.draw.cutechess_tokens()]
    if config.resign is not None:
        command += ["-resign", *config.resign.cutechess_tokens()]
    if config.max_moves is not None:
        command += ["-maxmoves", str(config.max_moves)]
    if config.seed is not None:
        command += ["-srand", str(config.seed)]
    if config.pgn_out:
        command += ["-pgnout", config.pgn_out]
    command += ["-event", config.event, "-recover"]
    return command


def _split_players(text: str, names: Sequence[str]) -> tuple[str, str]:
    """``"A vs B"`` into its two names, using the known names when a name itself contains " vs "."""
    for white in names:
        if text.startswith(white + " vs ") and text[len(white) + 4 :] in names:
            return white, text[len(white) + 4 :]
    white, separator, black = text.partition(" vs ")
    if not separator:
        raise ValueError(f"no ' vs ' in {text!r}")
    return white, black


def classify_reason(reason: str) -> FaultKind | None:
    """The engine fault a cutechess-cli result description stands for, if any."""
    for words, kind in _FAULT_WORDS:
        if words in reason:
            return kind
    return None


@dataclass
class CutechessOutputParser:
    """Reads cutechess-cli output line by line into game records and its own summary lines."""

    names: Sequence[str] = ()
    records: list[GameRecord] = field(default_factory=list)
    reported: dict[str, Any] = field(default_factory=dict)

    def feed(self, line: str) -> GameRecord | None:
        """Take one output line; returns the game record when the line finishes a game."""
        line = line.rstrip("\r\n")
        if match := _FINISHED.match(line):
            number = int(match[1])
            white, black = _split_players(match[2], self.names)
            result: GameResult = match[3]  # type: ignore[assignment]
            reason = match[4]
            fault = classify_reason(reason)
            faulty = None
            if fault is not None and result in ("1-0", "0-1"):
                faulty = black if result == "1-0" else white
            record = GameRecord(
                number,
                (number - 1) // GAMES_PER_ENCOUNTER,
                white,
                black,
                result,
                reason,
                fault if faulty else None,
                faulty,
            )
            self.records.append(record)
            return record
        if match := _SCORE.match(line):
            first, second = _split_players(match[1], self.names)
            self.reported["score"] = {
                "first": first,
                "second": second,
                "wins": int(match[2]),
                "losses": int(match[3]),
                "draws": int(match[4]),
                "score": _number(match[5]),
                "games": int(match[6]),
            }
        elif match := _ELO.match(line):
            self.reported["elo"] = {"elo": _number(match[1]), "margin": _number(match[2])}
            if match[3] is not None:
                los, draws = _number(match[3]), _number(match[4])
                self.reported["elo"].update(
                    los=None if los is None else los / 100, draw_ratio=None if draws is None else draws / 100
                )
        elif (match := _SPRT.match(line)) and _number(match[3]) is not None:
            self.reported["sprt"] = {
                "llr": _number(match[1]),
                "lower_bound": _number(match[3]),
                "upper_bound": _number(match[4]),
                "decision": match[5],
            }
        elif line.startswith("Finished match"):
            self.reported["finished"] = True
        return None


def parse_output(text: str, names: Sequence[str] = ()) -> CutechessOutputParser:
    """Parse a whole recorded cutechess-cli output."""
    parser = CutechessOutputParser(names)
    for line in text.splitlines():
        parser.feed(line)
    return parser


class CutechessBackend:
    """Runs cutechess-cli as a subprocess and follows its output."""

    name = "cutechess-cli"

    def __init__(self, program: str = CUTECHESS_PROGRAM) -> None:
        self.program = program

    def run(self, config: MatchConfig, on_game: GameCallback, should_stop: StopPredicate) -> MatchOutcome:
        if config.pgn_out is None or not pgnfile.is_compressed(config.pgn_out):
            return self._run(config, on_game)
        # cutechess-cli writes plain PGN: it writes beside the file, and the games are added to it compressed.
        folder = Path(config.pgn_out).resolve().parent
        with tempfile.TemporaryDirectory(prefix=".cutechess-pgn-", dir=folder) as scratch:
            plain = Path(scratch) / "games.pgn"
            try:
                return self._run(dataclasses.replace(config, pgn_out=str(plain)), on_game)
            finally:
                if plain.exists():
                    pgnfile.append(config.pgn_out, plain.read_text(encoding="utf-8"))

    def _run(self, config: MatchConfig, on_game: GameCallback) -> MatchOutcome:
        parser = CutechessOutputParser([engine.name for engine in config.engines])
        tail: deque[str] = deque(maxlen=20)
        with subprocess.Popen(
            build_command(config, self.program), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                tail.append(line.rstrip())
                if (record := parser.feed(line)) is not None:
                    on_game(record, parser.records)
            returncode = process.wait()
        if returncode != 0 and not parser.records:
            raise RuntimeError(f"cutechess-cli failed with exit code {returncode}:\n" + "\n".join(tail))
        records = sorted(parser.records, key=lambda record: record.number)
        decided = bool(parser.reported.get("sprt", {}).get("decision"))
        return MatchOutcome(
            records, stopped_early=decided and len(records) < config.total_games, reported=parser.reported
        )
