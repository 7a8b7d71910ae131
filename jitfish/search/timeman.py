"""Time management: how long to think about one move, from the clocks of ``go``.

Two limits come out of the clocks, both in seconds from the start of the search:

* the *soft* limit, an ideal time: no new iteration starts after it (and the
  search stops sooner when the best move has stayed the same for a while);
* the *hard* limit, a ceiling: the search is aborted when it is reached.

The time the game still offers (the clock plus the increments of the moves to
go) is spread over those moves, after keeping back the Move Overhead once for
each of them, as Stockfish does: every move costs that much outside the search
(the pipe, the GUI, Python), so a low clock means thinking almost nothing and
living on the increment.  The hard limit is a few ideal shares but never more
than a fraction of the clock, so one long iteration cannot lose the game.

Pure Python, no kernels: unit-tested in ``tests/uci/test_timeman.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

# Moves the rest of the game is assumed to last when ``movestogo`` is not given.
DEFAULT_MOVES_TO_GO = 30
# ``movestogo`` above this is treated as this (long controls ask for even shares).
MAX_MOVES_TO_GO = 50
# Move Overheads kept back beyond one per move to go.
OVERHEAD_RESERVE_MOVES = 2
# The hard limit is at most this many ideal times ...
HARD_TO_SOFT = 4.0
# ... and at most this fraction of what is left on the clock (the last move
# before a time control may use more, the clock is refilled after it).
MAX_CLOCK_FRACTION = 0.4
LAST_MOVE_CLOCK_FRACTION = 0.8
# Whatever the clock says, allow at least this much (a legal move must come out).
MIN_THINK = 0.001
# A best move unchanged over this many iterations lets the search stop at a
# fraction of the soft limit.
STABLE_ITERATIONS = (3, 6)
STABLE_SCALE = (0.6, 0.4)
# After a ponderhit the pondering time counts, but the soft limit is at least this share of its full value.
PONDERHIT_MIN_SHARE = 0.25


@dataclass(frozen=True)
class TimeLimits:
    """Seconds from the start of the search."""

    soft: float
    hard: float


def time_limits(time_left_ms: int, increment_ms: int = 0, moves_to_go: int | None = None,
                move_overhead_ms: int = 0) -> TimeLimits:
    """The soft and hard limits for one move.

    ``time_left_ms`` may be zero or negative (some GUIs report an overdrawn
    clock): the limits are then the minimum, and the engine still answers.

    >>> time_limits(60_000, 0, None, 0)
    TimeLimits(soft=2.0, hard=8.0)
    """
    time_left = max(time_left_ms, 0) / 1000.0
    increment = max(increment_ms, 0) / 1000.0
    overhead = max(move_overhead_ms, 0) / 1000.0
    available = max(time_left - overhead, 0.0)
    if moves_to_go is not None and moves_to_go > 0:
        moves = min(moves_to_go, MAX_MOVES_TO_GO)
    else:
        moves = DEFAULT_MOVES_TO_GO
    fraction = LAST_MOVE_CLOCK_FRACTION if moves == 1 else MAX_CLOCK_FRACTION
    ceiling = available * fraction
    budget = time_left + increment * (moves - 1) - overhead * (moves + OVERHEAD_RESERVE_MOVES)
    ideal = max(budget, 0.0) / moves
    hard = max(min(ideal * HARD_TO_SOFT, ceiling), MIN_THINK)
    soft = max(min(ideal, hard), MIN_THINK)
    return TimeLimits(soft=round(soft, 6), hard=round(hard, 6))


def ponderhit_limits(limits: TimeLimits, pondered: float) -> TimeLimits:
    """Limits from the moment of ``ponderhit``, ``pondered`` seconds after ``go ponder``.

    The clock did not run while pondering, so the hard limit stays whole; the
    soft limit counts the pondering (the search already went deep), down to a
    floor.
    """
    soft = max(limits.soft - pondered, limits.soft * PONDERHIT_MIN_SHARE)
    return TimeLimits(soft=round(min(soft, limits.hard), 6), hard=limits.hard)


class StabilityClock:
    """Decides after each iteration whether to stop before the soft limit.

    A best move that survived several iterations is unlikely to change with
    one more, so the search stops at a fraction of the soft limit.
    """

    def __init__(self, soft: float) -> None:
        self.soft = soft
        self.best_move: str | None = None
        self.stable_iterations = 0

    def scale(self) -> float:
        """The fraction of the soft limit after which to stop."""
        scale = 1.0
        for iterations, factor in zip(STABLE_ITERATIONS, STABLE_SCALE):
            if self.stable_iterations >= iterations:
                scale = factor
        return scale

    def after_iteration(self, best_move: str, elapsed: float) -> bool:
        """Record an iteration's best move; ``True`` when the search should stop now."""
        if best_move == self.best_move:
            self.stable_iterations += 1
        else:
            self.best_move = best_move
            self.stable_iterations = 0
        return elapsed >= self.soft * self.scale()
