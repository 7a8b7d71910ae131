"""Fast self-play at 1 s + 0.01 s with python-chess keeping the clocks.

Zero illegal moves, zero time losses, and every game ends by the rules
(checkmate, stalemate, insufficient material, threefold repetition or the
fifty-move rule: no adjudication).
"""

from __future__ import annotations

import pytest

from tests.uci.conftest import ENGINE_COMMAND, REPO
from tests.uci.selfplay import self_play

RULE_ENDINGS = {
    "CHECKMATE",
    "STALEMATE",
    "INSUFFICIENT_MATERIAL",
    "THREEFOLD_REPETITION",
    "FIFTY_MOVES",
    "FIVEFOLD_REPETITION",
    "SEVENTYFIVE_MOVES",
}


def check(summary, games):
    assert len(summary.games) == games
    assert summary.illegal_moves == 0, summary.describe()
    assert summary.time_losses == 0, summary.describe()
    assert summary.engine_errors == 0, summary.describe()
    assert {game.termination for game in summary.games} <= RULE_ENDINGS, summary.describe()


@pytest.mark.slow
def test_twenty_games_at_1s_plus_10ms(warm_cache):
    check(self_play(ENGINE_COMMAND, 20, 1.0, 0.01, cwd=REPO, seed=0), 20)  # about 50 s


@pytest.mark.slow
def test_sixty_more_games_at_1s_plus_10ms(warm_cache):
    check(self_play(ENGINE_COMMAND, 60, 1.0, 0.01, cwd=REPO, seed=1000), 60)
