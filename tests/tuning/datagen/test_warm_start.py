"""A second fresh process loads the data tools' kernels from the cache and plays a game (Numba issue #6061:
a cached kernel that calls a recursive one can crash the next start, so none of them calls ``negamax``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CHILD = """
from tuning.datagen.selfplay import SelfPlayer, GameSettings
from tuning.datagen.records import game_positions, read_games, write_games
import sys
game = SelfPlayer(hash_mb=1).play_game(0, 0, GameSettings(nodes=200, depth_cap=4))
write_games(sys.argv[1], [game.record()])
print(sum(len(game_positions(*record)) for record in read_games(sys.argv[1])), game.positions)
"""


def test_a_second_process_loads_the_kernels_and_plays(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    outputs = []
    for _ in range(2):  # the first compiles what the cache lacks, the second must load it
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(tmp_path / "g.bin")],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
            cwd=REPO,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split())
    assert outputs[0] == outputs[1] and outputs[0][0] == outputs[0][1] and int(outputs[0][0]) > 0
