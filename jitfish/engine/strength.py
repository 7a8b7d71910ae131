"""Playing strength below full: Skill Level and UCI_LimitStrength / UCI_Elo.

Pure Python, imported by the engine (to weaken its play) and by the UCI
option table (for the Elo window), so it must stay light.  The rules follow
Stockfish: a weakened engine searches at least ``SKILL_MULTIPV`` lines and
then picks among them with a seeded random push that grows as the level
drops; an Elo setting maps onto a level and onto a node budget.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitfish.search import SearchInfo

# The playing-strength window of UCI_Elo (UCI_LimitStrength).
MIN_ELO = 800
MAX_ELO = 2400
# Skill Level: search at least SKILL_MULTIPV lines, then pick a move from
# them with a push of at most SKILL_PUSH_CAP_CP; SKILL_MAX_LEVEL plays at full strength.
SKILL_MULTIPV = 4
SKILL_MAX_LEVEL = 20
SKILL_PUSH_CAP_CP = 100
# UCI_LimitStrength: Elo maps linearly onto Skill Level 0..19 and onto a node
# budget that doubles every ELO_PER_DOUBLING points above the weakest setting.
ELO_NODES_AT_MIN = 200
ELO_PER_DOUBLING = 200


def skill_for_elo(elo: int, min_elo: int, max_elo: int) -> tuple[int, int]:
    """(Skill Level, node budget) playing at about ``elo``."""
    share = (min(max(elo, min_elo), max_elo) - min_elo) / max(max_elo - min_elo, 1)
    level = min(int(share * SKILL_MAX_LEVEL), SKILL_MAX_LEVEL - 1)
    nodes = int(ELO_NODES_AT_MIN * 2 ** ((elo - min_elo) / ELO_PER_DOUBLING))
    return level, nodes


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
