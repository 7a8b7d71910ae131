"""Playing strength below full: Skill Level and UCI_LimitStrength / UCI_Elo.

Pure Python, imported by the engine (to weaken its play) and by the UCI
option table (for the Elo window), so it must stay light.

- **Skill Level** follows Stockfish: a weakened engine searches at least
  ``SKILL_MULTIPV`` lines and picks among them with a seeded random push that
  grows as the level drops (:func:`pick_weaker_move`).
- **UCI_Elo** is measured, not guessed: each setting is a node budget (the
  horizon: what a weaker player misses lies beyond it), a number of lines
  searched and a bounded noise on their scores (:func:`pick_noisy_move`), so
  a weak level misses tactics past its horizon and often prefers one of its
  few best moves to the best, yet never gives away more than its noise.  The rows of ``strength.json`` are the
  settings whose strength on Stockfish's ``UCI_Elo`` scale was measured
  (``python -m tuning.calibrate``; the table and games: ``docs/strength.md``).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.search import SearchInfo

LEVELS_FILE = Path(__file__).with_name("strength.json")
# Skill Level: search at least SKILL_MULTIPV lines, then pick a move from
# them with a push of at most SKILL_PUSH_CAP_CP; SKILL_MAX_LEVEL plays at full strength.
SKILL_MULTIPV = 4
SKILL_MAX_LEVEL = 20
SKILL_PUSH_CAP_CP = 100


@dataclass(frozen=True)
class Handicap:
    """How UCI_Elo weakens the engine: the node budget of each move, the lines searched and the noise on
    their scores."""

    nodes: int
    noise_cp: int
    lines: int


@cache
def calibrated_levels(path: Path = LEVELS_FILE) -> tuple[tuple[int, Handicap], ...]:
    """The measured rows of ``strength.json``, by rising Elo: (Elo, its handicap)."""
    return parse_levels(json.loads(path.read_text())["levels"], str(path))


def parse_levels(rows: Sequence[Sequence[int]], source: str = "levels") -> tuple[tuple[int, Handicap], ...]:
    """Rows ``[Elo, nodes, noise, lines]`` as (Elo, its handicap), checked to rise."""
    levels = tuple((int(elo), Handicap(int(nodes), int(noise), int(lines))) for elo, nodes, noise, lines in rows)
    elos = [elo for elo, _ in levels]
    if elos != sorted(set(elos)) or len(levels) < 2:
        raise ValueError(f"{source}: the levels must be at least two rows of rising Elo")
    return levels


# The window of UCI_Elo: the weakest and the strongest measured rows.
MIN_ELO, MAX_ELO = calibrated_levels()[0][0], calibrated_levels()[-1][0]


def handicap_for_elo(elo: int, levels: Sequence[tuple[int, Handicap]] | None = None) -> Handicap:
    """The handicap playing at about ``elo`` under ``levels`` (default: the shipped rows): between two
    measured rows, nodes are interpolated geometrically, the noise and the lines linearly; outside them, the
    nearest row."""
    levels = calibrated_levels() if levels is None else levels
    if elo <= levels[0][0]:
        return levels[0][1]
    for (low_elo, low), (high_elo, high) in zip(levels, levels[1:]):
        if elo <= high_elo:
            share = (elo - low_elo) / (high_elo - low_elo)
            nodes = low.nodes * (high.nodes / low.nodes) ** share
            noise = low.noise_cp + (high.noise_cp - low.noise_cp) * share
            lines = low.lines + (high.lines - low.lines) * share
            return Handicap(round(nodes), round(noise), round(lines))
    return levels[-1][1]


def pick_noisy_move(lines: list[SearchInfo], noise_cp: int, rng: random.Random) -> str:
    """UCI_Elo's pick over the lines of the last iteration (best first): each line's score plus a uniform
    draw in [0, ``noise_cp``]; the highest wins.  A line more than ``noise_cp`` below the best is never
    played, and a mate found is never given up for a score."""
    scored = [(line, _comparable_score(line)) for line in lines if line.pv]
    if not scored:
        return lines[0].pv[0] if lines and lines[0].pv else "0000"
    best_move, best_value = scored[0][0].pv[0], -math.inf
    for line, score in scored:
        value = score + rng.uniform(0.0, noise_cp)
        if value > best_value:
            best_value, best_move = value, line.pv[0]
    return best_move


def pick_weaker_move(lines: list[SearchInfo], level: int, rng: random.Random) -> str:
    """Stockfish's Skill Level rule over the lines of the last iteration (best first).

    Each line scores ``score + (weakness * (top - score) + delta * random(weakness)) / 128``
    and the highest wins: the random push grows as ``level`` drops, so weaker
    levels often pick a worse line, yet never one far worse than ``delta``.
    """
    scored = [(line, _comparable_score(line)) for line in lines if line.pv]
    if not scored:
        return lines[0].pv[0] if lines and lines[0].pv else "0000"
    top = scored[0][1]
    weakness = 120 - 2 * level
    delta = min(top - scored[-1][1], SKILL_PUSH_CAP_CP)
    best_move, best_value = scored[0][0].pv[0], -math.inf
    for line, score in scored:
        push = (weakness * (top - score) + delta * rng.randrange(weakness)) / 128
        if score + push >= best_value:
            best_value, best_move = score + push, line.pv[0]
    return best_move


def _comparable_score(info: SearchInfo) -> int:
    if info.score_mate is not None:
        return 100_000 - info.score_mate if info.score_mate > 0 else -100_000 - info.score_mate
    return info.score_cp or 0
