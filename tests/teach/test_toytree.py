"""Alpha-beta on toy trees: the textbook example, agreement with minimax, and the drawing."""

from __future__ import annotations

import random

import pytest

from jitfish.teach.toytree import (
    TEXTBOOK_TREE,
    alphabeta_tree,
    build_tree,
    draw_tree,
    minimax_value,
    tree_from_position,
)


def random_tree(rng: random.Random, depth: int, width: int):
    if depth == 0:
        return rng.randint(-20, 20)
    return [random_tree(rng, depth - 1, width) for _ in range(rng.randint(1, width))]


def test_textbook_tree_has_value_3_and_prunes_the_second_min_nodes_last_two_leaves():
    result = alphabeta_tree(TEXTBOOK_TREE)
    assert result.value == 3
    assert [leaf.path for leaf in result.pruned_leaves] == [(1, 1), (1, 2)]
    assert [leaf.value for leaf in result.pruned_leaves] == [4, 6]
    assert [leaf.value for leaf in result.visited_leaves] == [3, 12, 8, 2, 14, 5, 2]


def test_textbook_tree_min_nodes_take_their_smallest_leaf():
    result = alphabeta_tree(TEXTBOOK_TREE)
    assert [child.value for child in result.root.children] == [3, 2, 2]
    assert result.root.children[1].window == (3, float("inf"))


def test_best_move_first_prunes_more_than_worst_move_first():
    # The textbook's MIN nodes with the best one last: alpha stays low and nothing is pruned.
    worst = alphabeta_tree([[2, 4, 6], [14, 5, 2], [3, 12, 8]])
    best = alphabeta_tree([[3, 12, 8], [2, 4, 6], [14, 5, 2]])
    assert worst.value == best.value == 3
    assert len(worst.pruned_leaves) == 0
    assert len(best.pruned_leaves) == 2


def test_alphabeta_equals_minimax_on_random_trees_and_never_reads_more_leaves():
    rng = random.Random(13)
    for _ in range(300):
        nested = random_tree(rng, rng.randint(1, 5), 4)
        result = alphabeta_tree(nested)
        assert result.value == minimax_value(nested)
        assert len(result.visited_leaves) + len(result.pruned_leaves) == len(result.root.leaves())


def test_a_min_root_is_allowed_and_a_bad_tree_is_a_value_error():
    assert minimax_value(build_tree([[1, 5], [4, 2]], maximizing=False)) == 4
    for bad in ([], [1, []], "3", [1, None], True):
        with pytest.raises(ValueError):
            build_tree(bad)


def test_tree_from_position_is_searched_like_any_toy_tree(compiled_kernels):
    tree = tree_from_position("4k3/8/8/3q4/8/2N5/8/4K3 w - - 0 1", depth=2, width=3)
    assert [child.label for child in tree.children][0] == "Nxd5"  # captures first
    result = alphabeta_tree(tree)
    assert result.value == minimax_value(tree) > 0  # white wins the queen


def test_draw_tree_writes_png_and_svg(tmp_path):
    result = alphabeta_tree(TEXTBOOK_TREE)
    draw_tree(result, str(tmp_path / "tree.png"))
    draw_tree(result, str(tmp_path / "tree.svg"))
    assert (tmp_path / "tree.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "tree.svg").read_text()[:2000]
