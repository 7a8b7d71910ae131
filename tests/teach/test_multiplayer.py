"""max^n, paranoid and random opponents: values by hand, the reduction to minimax, the drawing and bad trees."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from jitfish.teach.multiplayer import (
    OPPONENT_TREE,
    TEXTBOOK_THREE_PLAYER_TREE,
    THREE_PLAYER_TREE,
    build_players_tree,
    maxn_tree,
    paranoid_value,
    players_tree,
    reduction,
)
from jitfish.teach.toytree import alphabeta_tree, draw_tree, minimax_value

DOCS = Path(__file__).resolve().parents[2] / "docs" / "teaching.md"


def random_players_tree(rng: random.Random, depth: int, players: int):
    if depth == 0:
        return [rng.randint(-5, 9) for _ in range(players)]
    return [random_players_tree(rng, depth - 1, players) for _ in range(rng.randint(1, 3))]


def interior_values(root) -> dict[tuple[int, ...], tuple]:
    return {node.path: node.value for node in root.walk() if not node.is_leaf}


def test_maxn_gives_the_values_worked_out_by_hand_on_the_shipped_tree():
    root = maxn_tree(THREE_PLAYER_TREE, 3)
    # C (third level) keeps its best third entry: (3,1,2) > (4,2,1) as 2 > 1; (2,2,4); (6,4,3); (1,3,5) as 5 > 2.
    # B keeps its best second entry: (2,2,4) as 2 > 1; (6,4,3) as 4 > 3.  A keeps its best first: 6 > 2.
    assert interior_values(root) == {
        (): (6, 4, 3),
        (0,): (2, 2, 4),
        (0, 0): (3, 1, 2),
        (0, 1): (2, 2, 4),
        (1,): (6, 4, 3),
        (1, 0): (6, 4, 3),
        (1, 1): (1, 3, 5),
    }
    assert [child.chosen for child in root.children] == [False, True]


def test_maxn_on_the_textbooks_three_player_figure_backs_up_1_2_6():
    root = maxn_tree(TEXTBOOK_THREE_PLAYER_TREE, 3)
    assert [node.value for node in root.walk() if not node.is_leaf] == [
        (1, 2, 6),
        (1, 2, 6),
        (1, 2, 6),
        (6, 1, 2),
        (1, 5, 2),
        (1, 5, 2),
        (5, 4, 5),
    ]
    assert root.children[0].chosen  # A is indifferent (1 either way): the first of equals


def test_paranoid_and_random_models_of_the_shipped_tree_by_hand():
    result = players_tree(THREE_PLAYER_TREE, 3)
    assert result.values["max^n"] == [2, 6]
    # Paranoid: B and C minimise A's entry: min(3, 4, 3, 2) = 2 and min(6, 0, 1, 0) = 0.
    assert result.values["paranoid"] == [2, 0]
    # Random: the mean of A's entries: (3 + 4 + 3 + 2) / 4 and (6 + 0 + 1 + 0) / 4.
    assert result.values["random"] == [3, 1.75]
    assert [result.choice(model) for model in ("max^n", "paranoid", "random")] == [1, 0, 0]
    # Alpha-beta on the paranoid reduction cuts C's second node on A's second move: 6 of 8 leaves.
    assert (result.leaves, result.pruned_leaves) == (8, 2)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_paranoid_equals_minimax_and_alphabeta_on_its_reduction(players):
    rng = random.Random(players)
    for _ in range(100):
        nested = random_players_tree(rng, rng.randint(1, 4), players)
        for me in range(players):
            reduced = reduction(nested, players, me, "paranoid")
            assert alphabeta_tree(reduced).value == minimax_value(reduced) == paranoid_value(nested, players, me)


def test_paranoid_on_the_shipped_tree_is_minimax_of_its_reduction():
    reduced = reduction(THREE_PLAYER_TREE, 3, 0, "paranoid")
    assert [node.maximizing for node in reduced.walk() if not node.is_leaf] == [True] + [False] * 6
    assert minimax_value(reduced) == paranoid_value(THREE_PLAYER_TREE, 3) == 2


def test_two_player_zero_sum_maxn_is_minimax():
    rng = random.Random(7)
    for _ in range(100):
        numbers = random_tree(rng, rng.randint(1, 4))
        assert maxn_tree(build_players_tree(numbers, 2, zero_sum=True)).value[0] == minimax_value(numbers)


def random_tree(rng: random.Random, depth: int):
    if depth == 0:
        return rng.randint(-9, 9)
    return [random_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))]


def test_the_expectimax_example_against_a_perfect_and_a_random_opponent():
    result = players_tree(OPPONENT_TREE, 2)
    assert result.zero_sum
    assert result.values["paranoid"] == result.values["max^n"] == [3, 2, 2]
    assert [round(v, 3) for v in result.values["random"]] == [7.667, 4, 10.333]
    assert result.choice("paranoid") == 0 and result.choice("random") == 2
    # Assuming a perfect opponent costs 10.33 - 7.67 = 2.67 against a random one; assuming a random one costs 1.
    best_against_random = result.values["random"][result.choice("random")]
    assert round(best_against_random - result.values["random"][result.choice("paranoid")], 3) == 2.667
    assert result.values["paranoid"][0] - result.values["paranoid"][result.choice("random")] == 1


def test_text_names_the_models_and_the_reduction():
    text = players_tree(THREE_PLAYER_TREE, 3).text()
    assert "value (6, 4, 3); the line played: A 2, B 1, C 1" in text
    assert "alpha-beta reads 6 of its 8 leaves" in text
    assert "zero-sum: max^n is minimax" in players_tree(OPPONENT_TREE, 2).text()


def test_two_player_pairs_are_utilities_and_other_numbers_zero_sum_leaves():
    assert build_players_tree([[1, 2], [3, 4]], 2).children[0].value == (1, 2)
    assert build_players_tree([[1, 2, 3], [3, 4]], 2).children[1].children[0].value == (3, -3)


@pytest.mark.parametrize(
    "bad, players, message",
    [
        ([[1, 2], [3]], 3, "3 utilities"),
        ([[1, 2, 3], 4], 3, "list of 3 utilities"),
        ([], 3, "a node is a list"),
        ([[1, 2, 3], []], 3, "a node is a list"),
        ([[1, 2, 3]], 7, "between 2 and 6"),
        ([["a", 1, 2]], 3, "a node is a list"),
    ],
)
def test_a_malformed_tree_is_a_value_error_naming_the_node(bad, players, message):
    with pytest.raises(ValueError, match=message):
        build_players_tree(bad, players)


def test_draw_a_maxn_tree_with_its_tuples(tmp_path):
    draw_tree(maxn_tree(THREE_PLAYER_TREE, 3), str(tmp_path / "maxn.png"))
    assert (tmp_path / "maxn.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_page_shows_the_numbers_the_tests_compute():
    page = DOCS.read_text()
    for tree, players in ((THREE_PLAYER_TREE, 3), (OPPONENT_TREE, 2)):
        for line in players_tree(tree, players).text().splitlines():
            assert line in page, line
