"""UCT on toy trees: it first follows the random playouts' averages, then converges to minimax's choice."""

from __future__ import annotations

import random

import pytest

from jitfish.teach.mcts import checkpoint_schedule, uct_tree
from jitfish.teach.toytree import TEXTBOOK_TREE


def random_tree(rng: random.Random, depth: int, width: int):
    if depth == 0:
        return rng.randint(-20, 20)
    return [random_tree(rng, depth - 1, width) for _ in range(width)]


def test_uct_on_the_textbook_tree_first_follows_the_averages_then_minimax():
    result = uct_tree(TEXTBOOK_TREE, 5000, seed=1)
    assert result.minimax_values == [3, 2, 2] and result.minimax_choice == 0
    ten = result.checkpoints.index(10)
    # Early on the random playouts' averages lead: the third move's leaves (14, 5, 2) average 7.
    assert result.choice(ten) == 2
    # As the MIN nodes' statistics concentrate on their smallest child, the first move takes over.
    assert all(result.choice(k) == 0 for k, n in enumerate(result.checkpoints) if n >= 50)
    assert round(result.share(0), 2) == 0.60  # the page's figure
    assert result.share(0) > result.share(0, result.checkpoints.index(500)) > result.share(0, ten)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_uct_visit_share_of_the_minimax_move_passes_a_threshold_for_every_seed(seed):
    result = uct_tree(TEXTBOOK_TREE, 5000, seed=seed)
    assert result.share(0) >= 0.55


def test_uct_is_reproducible_with_a_seed():
    tree = random_tree(random.Random(3), 3, 3)
    assert uct_tree(tree, 300, seed=7).visits == uct_tree(tree, 300, seed=7).visits
    assert uct_tree(tree, 300, seed=7).visits != uct_tree(tree, 300, seed=8).visits


def test_uct_chooses_the_minimax_move_on_random_trees_with_a_clear_best_move():
    rng = random.Random(11)
    checked = 0
    while checked < 25:
        result = uct_tree(random_tree(rng, rng.choice([2, 3]), 3), 3000, seed=checked)
        values = sorted(result.minimax_values, reverse=True)
        if values[0] - values[1] < 3:
            continue
        assert result.choice() == result.minimax_choice, (result.visits[-1], result.minimax_values)
        checked += 1


def test_uct_rejects_a_tree_without_moves():
    with pytest.raises(ValueError):
        uct_tree(3)
    with pytest.raises(ValueError):
        uct_tree(TEXTBOOK_TREE, 0)


def test_checkpoints_grow_1_2_5_and_end_at_the_budget():
    assert checkpoint_schedule(1) == [1]
    assert checkpoint_schedule(10) == [1, 2, 5, 10]
    assert checkpoint_schedule(3000) == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 3000]
