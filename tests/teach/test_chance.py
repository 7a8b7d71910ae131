"""Expectiminimax and Star1 on chance trees: values by hand, the same value with fewer leaves, the page's counts."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jitfish.teach.chance import (
    CHANCE_BOUNDS,
    CHANCE_TREE,
    ORDER_TREES,
    build_chance_tree,
    describe,
    star1_tree,
    unbounded_leaves_visited,
)
from jitfish.teach.toytree import draw_tree, minimax_value
from tests.extras import needs

DOCS = Path(__file__).resolve().parents[2] / "docs" / "teaching.md"


def random_chance_tree(rng: random.Random, depth: int, low: int, high: int):
    """A player's node ``depth`` player levels deep: 1-3 moves, each a roll of 2 or 4 equally likely outcomes."""
    if depth == 0:
        return rng.randint(low, high)
    return [
        [[1 / outcomes, random_chance_tree(rng, depth - 1, low, high)] for _ in range(outcomes)]
        for outcomes in (rng.choice([2, 4]) for _ in range(rng.randint(1, 3)))
    ]


def test_the_lecture_example_has_the_values_worked_out_by_hand():
    root = build_chance_tree(CHANCE_TREE)
    # Move 1: 0.5 * min(3, 1) + 0.5 * min(2, 3) = 1.5; move 2: 0.5 * -2 + 0.5 * 0 = -1; move 3: 0.5 * 1 + 0.5 * 0.
    assert [minimax_value(child) for child in root.children] == [1.5, -1, 0.5]
    assert minimax_value(root) == 1.5


def test_star1_returns_the_same_value_with_fewer_leaves_than_without_bounds():
    result = star1_tree(CHANCE_TREE, CHANCE_BOUNDS)
    assert result.value == 1.5
    assert len(result.root.leaves()) == 12
    assert unbounded_leaves_visited(CHANCE_TREE) == 10  # only a chance node's last outcome can be cut
    assert len(result.visited_leaves) == 8
    assert [leaf.path for leaf in result.pruned_leaves] == [(1, 0, 1), (1, 1, 0), (1, 1, 1), (2, 1, 1)]
    # The second move's roll is cut after one leaf: -2 for the first outcome, at most 3 for the other.
    second = result.root.children[1]
    assert second.note == "\u2264 0.5" and second.value == -1


def test_the_page_shows_the_counts_the_test_computes():
    result = star1_tree(CHANCE_TREE, CHANCE_BOUNDS)
    page = DOCS.read_text()
    for line in describe(result, CHANCE_BOUNDS).splitlines():
        assert line in page, line


def test_an_order_preserving_change_of_the_leaves_changes_the_best_move():
    before, after = (build_chance_tree(tree) for tree in ORDER_TREES)
    assert [round(minimax_value(child), 9) for child in before.children] == [2.1, 1.3]
    assert [round(minimax_value(child), 9) for child in after.children] == [21, 40.9]
    # Without chance nodes the same change would keep minimax's choice: MIN's values keep their order.


@pytest.mark.parametrize("seed", range(40))
def test_star1_equals_expectiminimax_on_random_trees_and_never_reads_more_leaves(seed):
    rng = random.Random(seed)
    nested = random_chance_tree(rng, rng.randint(1, 3), -4, 4)
    result = star1_tree(nested, (-4, 4))
    assert result.value == minimax_value(build_chance_tree(nested))
    assert len(result.visited_leaves) <= unbounded_leaves_visited(nested) <= len(result.root.leaves())
    assert len(result.visited_leaves) + len(result.pruned_leaves) == len(result.root.leaves())


def test_tighter_bounds_never_prune_less():
    rng = random.Random(99)
    for _ in range(30):
        nested = random_chance_tree(rng, 2, -2, 2)
        loose = star1_tree(nested, (-8, 8))
        tight = star1_tree(nested, (-2, 2))
        assert loose.value == tight.value
        assert len(tight.visited_leaves) <= len(loose.visited_leaves)


@pytest.mark.parametrize(
    "bad, message",
    [
        ([[[0.5, 1], [0.4, 2]]], "sum to 0.9"),
        ([[[1.5, 1]]], "probability"),
        ([[1, 2]], "probability"),
        ([[]], "non-empty"),
        ([], "non-empty"),
    ],
)
def test_a_malformed_chance_tree_is_a_value_error_naming_the_node(bad, message):
    with pytest.raises(ValueError, match=message):
        build_chance_tree(bad)


def test_leaves_outside_the_bounds_are_a_value_error():
    with pytest.raises(ValueError, match="outside the bounds"):
        star1_tree(CHANCE_TREE, (-1, 1))
    with pytest.raises(ValueError, match="bounds"):
        star1_tree(CHANCE_TREE, (3, -3))


@needs("matplotlib")
def test_draw_a_chance_tree_to_png(tmp_path):
    draw_tree(star1_tree(CHANCE_TREE, CHANCE_BOUNDS), str(tmp_path / "chance.png"))
    assert (tmp_path / "chance.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
