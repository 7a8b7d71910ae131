"""Event traces of the blackboard searches: what they record, the counts they add up to, and their cap."""

from __future__ import annotations

import json
import random

import pytest

from jitfish.teach.chance import CHANCE_BOUNDS, CHANCE_TREE, ORDER_TREES, build_chance_tree, leaf_bounds, star1_tree
from jitfish.teach.multiplayer import TEXTBOOK_THREE_PLAYER_TREE, THREE_PLAYER_TREE, players_tree
from jitfish.teach.toytree import TEXTBOOK_TREE, alphabeta_tree, build_tree
from jitfish.teach.trace import DEFAULT_CAP, Trace, TraceFull, bound, number

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def random_tree(rng: random.Random, depth: int, width: int):
    if depth == 0:
        return rng.randint(-20, 20)
    return [random_tree(rng, depth - 1, width) for _ in range(rng.randint(1, width))]


def report_counts(result) -> dict[str, int]:
    """The numbers the ``teach tree`` report gives, for comparison with a trace's."""
    return {
        "nodes": sum(1 for node in result.root.walk() if node.visited),
        "leaves": len(result.visited_leaves),
        "spared_nodes": sum(1 for node in result.root.walk() if node.pruned),
        "spared_leaves": len(result.pruned_leaves),
    }


def traced(search, *args) -> tuple[object, Trace]:
    trace = Trace("test")
    return search(*args, trace=trace), trace


def test_the_textbook_trees_trace_enters_every_node_with_its_window_and_cuts_once():
    result, trace = traced(alphabeta_tree, TEXTBOOK_TREE)
    events = trace.events
    assert events[0] == {
        "kind": "enter",
        "path": [],
        "label": "",
        "leaf": False,
        "role": "max",
        "window": ["-inf", "+inf"],
    }
    assert events[-1] == {"kind": "value", "path": [], "value": 3}
    entered = {tuple(e["path"]): e["window"] for e in events if e["kind"] == "enter"}
    assert entered[(1,)] == [3, "+inf"] and entered[(2, 2)] == [3, 5]
    (cut,) = [e for e in events if e["kind"] == "cutoff"]
    assert cut["path"] == [1] and cut["after"] == 0 and cut["window"] == [3, 2]
    assert [spared["path"] for spared in cut["spared"]] == [[1, 1], [1, 2]]
    assert trace.counts() == {
        "nodes": 11,
        "leaves": 7,
        "cutoffs": 1,
        "spared_nodes": 2,
        "spared_leaves": 2,
        "backups": 0,
    }
    assert {k: v for k, v in trace.counts().items() if k in report_counts(result)} == report_counts(result)


@pytest.mark.parametrize("seed", range(40))
def test_alpha_betas_trace_adds_up_to_its_report_on_random_trees(seed):
    rng = random.Random(seed)
    result, trace = traced(alphabeta_tree, random_tree(rng, rng.randint(1, 5), rng.randint(1, 4)))
    counts = trace.counts()
    assert {k: counts[k] for k in report_counts(result)} == report_counts(result)
    assert counts["nodes"] + counts["spared_nodes"] == len(list(result.root.walk()))
    values = [e for e in trace.events if e["kind"] == "value"]
    assert len(values) == counts["nodes"]  # every node entered returns a value, the root last
    assert values[-1]["value"] == bound(result.value)


@pytest.mark.parametrize("tree", [CHANCE_TREE, *ORDER_TREES], ids=["lecture", "order", "order-scaled"])
def test_star1s_trace_adds_up_to_its_report_and_notes_the_bounds_it_cut_on(tree):
    root = build_chance_tree(tree)
    bounds = CHANCE_BOUNDS if tree is CHANCE_TREE else leaf_bounds(root)
    result, trace = traced(star1_tree, root, bounds)
    counts = trace.counts()
    assert {k: counts[k] for k in report_counts(result)} == report_counts(result)
    notes = {tuple(e["path"]): e["note"] for e in trace.events if e["kind"] == "value" and "note" in e}
    assert notes == {node.path: node.note for node in result.root.walk() if node.chance and node.note}
    chance = [e for e in trace.events if e["kind"] == "enter" and e["role"] == "chance"]
    assert chance and all("window" in e for e in chance)
    assert all("probability" in e for e in trace.events if e["kind"] == "enter" and len(e["path"]) == 2)


@pytest.mark.parametrize("tree", [THREE_PLAYER_TREE, TEXTBOOK_THREE_PLAYER_TREE])
def test_maxns_trace_backs_up_a_tuple_at_every_interior_node(tree):
    result, trace = traced(players_tree, tree, 3)
    counts = trace.counts()
    interior = sum(1 for node in result.root.walk() if not node.is_leaf)
    assert counts["nodes"] == len(list(result.root.walk())) and counts["leaves"] == result.leaves
    assert counts["backups"] == interior and counts["cutoffs"] == 0
    backups = [e for e in trace.events if e["kind"] == "backup"]
    assert backups[-1]["path"] == [] and backups[-1]["value"] == list(result.root.value)
    for event in backups:
        node = result.root
        for index in event["path"]:
            node = node.children[index]
        assert node.children[event["chosen"]].chosen
        assert event["player"] == "ABC"[node.player]


def test_a_position_trees_trace_holds_the_moves_and_the_positions():
    import chess

    from jitfish.teach.toytree import tree_from_position

    root = tree_from_position(FEN, depth=2, width=3)
    result, trace = traced(alphabeta_tree, root)
    entered = [e for e in trace.events if e["kind"] == "enter"]
    assert entered[0]["fen"] == chess.Board(FEN).fen()
    first = entered[1]
    board = chess.Board(FEN)
    board.push_san(first["label"])
    assert first["fen"] == board.fen()
    counts = trace.counts()
    assert {k: counts[k] for k in report_counts(result)} == report_counts(result)


def test_a_trace_is_json_and_reads_back_the_same():
    _, trace = traced(star1_tree, CHANCE_TREE, CHANCE_BOUNDS)
    data = trace.as_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["counts"] == trace.counts() and data["command"] == "test"
    assert number("+inf") == float("inf") and number(bound(float("-inf"))) == float("-inf") and number(3) == 3


def test_a_trace_past_its_cap_stops_the_search_and_says_what_to_do():
    trace = Trace("test", cap=10)
    with pytest.raises(TraceFull, match="more than 10 events .*trace a smaller search or raise the cap"):
        alphabeta_tree(TEXTBOOK_TREE, trace=trace)
    assert len(trace) == 10
    exact = Trace("test", cap=23)  # the textbook tree's trace has 23 events: exactly the cap is allowed
    alphabeta_tree(TEXTBOOK_TREE, trace=exact)
    assert len(exact) == 23
    with pytest.raises(ValueError, match="at least 1"):
        Trace(cap=0)
    assert issubclass(TraceFull, ValueError) and DEFAULT_CAP >= 10_000


def test_a_search_without_a_trace_is_the_search_it_was():
    traced_result, _ = traced(alphabeta_tree, TEXTBOOK_TREE)
    plain = alphabeta_tree(build_tree(TEXTBOOK_TREE))
    assert [n.window for n in plain.root.walk()] == [n.window for n in traced_result.root.walk()]
    assert plain.value == traced_result.value
