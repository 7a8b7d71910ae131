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
        "spared_moves": 2,
        "spared_nodes": 2,
        "spared_leaves": 2,
        "backups": 0,
        "table_hits": 0,
        "searches": 0,
        "passes": 0,
        "lines": 0,
        "engine_nodes": 0,
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


# The ladder's compiled searches: each traceable rung, at a depth its trace holds.
RUNG_DEPTHS = {
    "minimax": 2,
    "alphabeta": 3,
    "ordering": 3,
    "deepening": 3,
    "pvs": 3,
    "mtdf": 3,
    "pruning": 3,
    "quiescence": 2,
}


@pytest.mark.usefixtures("teaching_kernels")
@pytest.mark.parametrize("rung", RUNG_DEPTHS)
def test_a_ladder_rungs_trace_adds_up_to_the_reports_row(rung):
    from jitfish.teach.ladder import ladder

    depth = RUNG_DEPTHS[rung]
    trace = Trace("test")
    report = ladder(FEN, depth, [rung], trace=trace)
    row = report.results[(rung, depth)]
    counts = trace.counts()
    assert (counts["nodes"], counts["leaves"]) == (row.nodes, row.leaves)
    searches = [e for e in trace.events if e["kind"] == "search"]
    fixed = rung in ("minimax", "alphabeta", "ordering")
    assert [e["depth"] for e in searches][-1] == depth and (len(searches) == 1 if fixed else len(searches) >= depth)
    if rung == "mtdf":
        passes = [e for e in trace.events if e["kind"] == "pass"]
        assert [(e["depth"], e["gamma"], e["value"]) for e in passes] == [
            (d, p.gamma, p.result) for d in sorted(report.passes) for p in report.passes[d]
        ]
        assert passes[-1]["lower"] == passes[-1]["upper"] == row.value
    roots = [e for e in trace.events if e["kind"] == "value" and e["path"] == []]
    assert roots[-1]["value"] == row.value  # the root's value, from the root player's side
    assert json.loads(json.dumps(trace.as_dict(), allow_nan=False)) == trace.as_dict()


@pytest.mark.usefixtures("teaching_kernels")
def test_a_traced_ladder_search_is_the_same_search_untraced():
    from jitfish.teach.ladder import ladder

    for rung in ("alphabeta", "pvs", "mtdf"):
        plain = ladder(FEN, 3, [rung]).results[(rung, 3)]
        traced_row = ladder(FEN, 3, [rung], trace=Trace("test")).results[(rung, 3)]
        assert (plain.nodes, plain.leaves, plain.value, plain.pv) == (
            traced_row.nodes,
            traced_row.leaves,
            traced_row.value,
            traced_row.pv,
        )


@pytest.mark.usefixtures("teaching_kernels")
def test_a_ladder_trace_names_the_moves_and_positions_and_lists_the_moves_a_cutoff_spared():
    import chess

    from jitfish.teach.ladder import ladder

    trace = Trace("test")
    ladder(FEN, 2, ["alphabeta"], trace=trace)
    board = chess.Board(FEN)
    entered = {tuple(e["path"]): e for e in trace.events if e["kind"] == "enter"}
    assert entered[()]["fen"] == board.fen() and entered[()]["role"] == "max"
    for path, event in entered.items():
        if len(path) == 1:
            after = board.copy()
            after.push_san(event["label"])
            assert event["fen"] == after.fen() and event["role"] == "min"
    root_moves = [entered[(i,)]["label"] for i in range(board.legal_moves.count())]  # no cut at the root
    assert sorted(root_moves) == sorted(board.san(move) for move in board.legal_moves)
    cut = next(e for e in trace.events if e["kind"] == "cutoff")
    parent = chess.Board(entered[tuple(cut["path"])]["fen"])
    spared = [s["label"] for s in cut["spared"]]
    searched = [e["label"] for p, e in entered.items() if p[:-1] == tuple(cut["path"])]
    assert spared and not set(spared) & set(searched)
    assert sorted(spared + searched) == sorted(parent.san(m) for m in parent.legal_moves)


@pytest.mark.usefixtures("teaching_kernels")
def test_a_ladder_trace_past_its_cap_stops_with_the_message_and_follows_one_rung():
    from jitfish.teach.ladder import ladder

    with pytest.raises(TraceFull, match="more than 100 events"):
        ladder(FEN, 3, ["alphabeta"], trace=Trace("test", cap=100))
    with pytest.raises(TraceFull, match="more than 20,000 events"):  # minimax's 24,942 nodes at depth 3
        ladder(FEN, 3, ["minimax"], trace=Trace("test"))
    with pytest.raises(ValueError, match="one rung of"):
        ladder(FEN, 2, ["alphabeta", "mtdf"], trace=Trace("test"))


@pytest.mark.usefixtures("uct_kernels")
def test_uct_traces_every_iteration_and_its_counts_add_up_to_the_reports():
    from jitfish.teach.mcts import mcts

    trace = Trace("test")
    report = mcts(FEN, 1500, "eval", alphabeta=False, trace=trace)
    events = trace.events
    assert [e["number"] for e in events] == list(range(1, 1501)) and trace.counts()["nodes"] == 0
    assert all(e["kind"] == "iteration" and len(e["backed"]) == len(e["path"]) + 1 for e in events)
    assert events[0]["root"]["fen"] == report.fen and events[0]["new"]["label"] == report.san[0]
    final: dict[int, list] = {}
    for event in events:
        if event["path"]:
            final[event["path"][0]] = event["backed"][1]
        assert event["backed"][0][0] == event["number"]  # every iteration passes through the root
    assert [final[i][0] for i in range(len(report.moves))] == list(report.visits[-1])
    assert [final[i][1] for i in range(len(report.moves))] == pytest.approx(list(report.means(-1)), abs=1e-4)
    expansions = sum(e["expanded"] for e in events)
    new_nodes = sum("new" in e for e in events)
    assert expansions == new_nodes and all(0 <= e["playout"] <= 1 for e in events)
    untraced = mcts(FEN, 1500, "eval", alphabeta=False)
    assert (untraced.visits == report.visits).all() and untraced.nodes == report.nodes


@pytest.mark.usefixtures("uct_kernels")
def test_uct_with_more_iterations_than_the_trace_holds_stops_before_searching():
    from jitfish.teach.mcts import mcts

    with pytest.raises(TraceFull, match="more than 100 events"):
        mcts(FEN, 101, "eval", alphabeta=False, trace=Trace("test", cap=100))
    trace = Trace("test", cap=100)
    mcts(FEN, 100, "eval", alphabeta=False, trace=trace)
    assert len(trace) == 100


@pytest.mark.usefixtures("teaching_kernels")
def test_the_horizon_traces_both_searches_and_their_root_values_are_the_reports():
    from jitfish.teach.horizon import horizon

    trace = Trace("test")
    result = horizon("R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", 3, trace)
    searches = [e["rung"] for e in trace.events if e["kind"] == "search"]
    assert searches == ["without quiescence", "with quiescence"]
    roots = [e["value"] for e in trace.events if e["kind"] == "value" and e["path"] == []]
    assert roots == [result.without_quiescence.value, result.with_quiescence.value]
    first = [e["label"] for e in trace.events if e["kind"] == "enter" and len(e["path"]) == 1]
    assert result.without_quiescence.san[0] in first and result._repr_html_() == trace._repr_html_()


@pytest.mark.usefixtures("teaching_kernels")
def test_a_kriegspiel_games_trace_holds_every_attempt_and_announcement_as_the_game_text_does():
    import chess

    from jitfish.teach.kriegspiel_game import RandomPlayer, SamplingPlayer, play_game

    trace = Trace("test")
    game = play_game(SamplingPlayer(chess.WHITE, 4, 2), RandomPlayer(), max_moves=8, trace=trace)
    said = [e for e in trace.events if e["kind"] == "announcement"]
    tried = [e for e in trace.events if e["kind"] == "illegal"]
    assert [e["ply"] for e in said] == [ply.number for ply in game.plies]
    assert [(e["move"], e["text"]) for e in said] == [(ply.move, ply.heard.text()) for ply in game.plies]
    assert [e["move"] for e in tried] == [move for ply in game.plies for move in ply.illegal]
    by_ply: dict[int, list[str]] = {}
    for event in tried:
        by_ply.setdefault(event["ply"], []).append(event["move"])
    assert by_ply == {ply.number: ply.illegal for ply in game.plies if ply.illegal}
    for event, ply in zip(said, game.plies):
        assert event["chosen_with"] == (None if ply.decision is None else [ply.decision.belief_size, ply.decision.mode])
        assert set(event["belief"]) == {"White"} and event["belief"]["White"][0] >= 1
    board = chess.Board()
    for event in said:
        board.push_san(event["move"])
        assert event["fen"] == board.fen()
    assert game._repr_html_() == trace._repr_html_()


@pytest.mark.usefixtures("teaching_kernels")
def test_a_chess_trace_near_the_cap_fits_though_its_cutoffs_spare_more_moves_than_the_cap():
    from jitfish.teach.ladder import ladder

    trace = Trace("test")
    row = ladder(FEN, 4, ["ordering"], trace=trace).results[("ordering", 4)]
    counts = trace.counts()
    assert DEFAULT_CAP * 0.9 < len(trace) <= DEFAULT_CAP < counts["spared_moves"]
    assert (counts["nodes"], counts["leaves"]) == (row.nodes, row.leaves)


def test_uct_on_the_blackboard_tree_traces_every_iteration_and_ends_with_the_reports_visits():
    from jitfish.teach.mcts import uct_tree

    trace = Trace("test")
    result = uct_tree(TEXTBOOK_TREE, 300, trace=trace)
    events = trace.events
    assert [e["number"] for e in events] == list(range(1, 301))
    final: dict[int, list] = {}
    for event in events:
        assert event["backed"][0][0] == event["number"] and len(event["backed"]) == len(event["path"]) + 1
        if event["path"]:
            final[event["path"][0]] = event["backed"][1]
    assert [final[i][0] for i in range(3)] == result.visits[-1]
    assert sum("new" in e for e in events) == sum(e["expanded"] for e in events) == 12  # 3 MIN nodes, 9 leaves
    assert all(e["leaf"] in (3, 12, 8, 2, 4, 6, 14, 5) for e in events)


@pytest.mark.usefixtures("teaching_kernels")
def test_the_engines_trace_holds_each_iteration_it_reports_with_the_reports_numbers():
    import chess

    from jitfish.teach.ladder import ladder

    trace = Trace("test")
    report = ladder(FEN, 5, ["engine"], trace=trace)
    lines = [e for e in trace.events if e["kind"] == "line"]
    assert [e["kind"] for e in trace.events] == ["line"] * len(lines)  # no node by node: the kernel records nothing
    last = {e["depth"]: e for e in lines}  # a depth's last report is the report's row
    rows = {d: report.results[("engine", d)] for d in range(1, 6)}
    assert sorted(last) == sorted(rows)
    for depth, row in rows.items():
        assert (last[depth]["nodes"], last[depth]["value"], last[depth]["bound"]) == (row.nodes, row.value, "")
        board = chess.Board(FEN)
        for move, shown in zip(row.pv, last[depth]["moves"], strict=True):
            assert shown["label"] == board.san(chess.Move.from_uci(move))
            board.push_uci(move)
            assert shown["fen"] == board.fen()
    counts = trace.counts()
    assert (counts["lines"], counts["engine_nodes"], counts["nodes"]) == (len(lines), rows[5].nodes, 0)
    assert trace.summary == {"value": rows[5].value, "nodes visited": rows[5].nodes}
