"""The step-by-step page: it embeds the trace as it is, fetches nothing, and, in a headless browser, replays it.

The browser tests need Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (none is a
dependency of Jitfish); without them they skip, naming what is missing.
"""

from __future__ import annotations

import json
import random
import re
import time

import pytest

from jitfish.teach.chance import CHANCE_BOUNDS, CHANCE_TREE, star1_tree
from jitfish.teach.page import page_trace, trace_page, write_page
from jitfish.teach.toytree import TEXTBOOK_TREE, alphabeta_tree
from jitfish.teach.trace import DEFAULT_CAP, Trace, TraceFull
from tests.extras import installed, needs_program
from tests.teach.test_cli import run_jitfish

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
# (the command, what its report prints): the textbook tree, a chess position, Star1, max^n, and the ladder's
# minimax at depth 2, alpha-beta and MTD(f) at depth 3 and the engine's iterations to depth 5 on a chess position.
COMMANDS = {
    "textbook": (["tree", "--leaves", "[[3,12,8],[2,4,6],[14,5,2]]"], "leaves visited: 7 of 9"),
    "position": (["tree", "--fen", FEN, "--depth", "3", "--width", "4"], "leaves visited: 19 of 64"),
    "chance": (["tree", "--chance"], "Star1 with utilities in [-3, 3] 8 (value 1.5)"),
    "players": (["tree", "--players", "3"], "value (6, 4, 3)"),
    "minimax": (["ladder", "--fen", FEN, "--depth", "2", "--algorithms", "minimax"], "minimax"),
    "alphabeta": (["ladder", "--fen", FEN, "--depth", "3", "--algorithms", "alphabeta"], "alphabeta"),
    "mtdf": (["ladder", "--fen", FEN, "--depth", "3", "--algorithms", "mtdf"], "zero-window passes"),
    "engine": (["ladder", "--fen", FEN, "--depth", "5", "--algorithms", "engine"], "engine"),
    "mcts": (["mcts", "--fen", FEN, "--policy", "eval", "--iterations", "2000"], "MCTS plays"),
    "horizon": (["horizon", "--fen", "R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", "--depth", "3"], "with quiescence"),
    "kriegspiel": (["kriegspiel", "--max-moves", "8"], "Result: "),
}


def textbook_trace() -> Trace:
    trace = Trace("jitfish teach tree")
    alphabeta_tree(TEXTBOOK_TREE, trace=trace)
    return trace


def test_the_page_embeds_exactly_the_traces_json():
    trace = Trace("jitfish teach tree --chance")
    star1_tree(CHANCE_TREE, CHANCE_BOUNDS, trace)
    trace.summary = {"leaves visited": 8}
    assert page_trace(trace_page(trace)) == json.loads(json.dumps(trace.as_dict()))


def test_text_that_would_end_the_script_block_is_escaped_and_reads_back():
    trace = textbook_trace()
    trace.title = "</script><script>alert(1)</script>"
    trace.events[0]["label"] = "</script>"
    page = trace_page(trace)
    assert page.count("</script>") == 3  # the two JSON blocks and the script, nothing from the trace
    assert page_trace(page)["events"][0]["label"] == "</script>"
    assert "<title>&lt;/script&gt;" in page


def test_the_page_fetches_nothing_and_carries_its_script_and_styles():
    page = trace_page(textbook_trace())
    assert set(re.findall(r"https?://[^\s\"'<>]+", page)) <= {SVG_NAMESPACE}  # an XML namespace, not a fetch
    assert not re.search(r"\b(src|href)\s*=", page)
    assert not re.search(r"\bfetch\(|XMLHttpRequest|import\(|@import|url\(", page)
    assert "<style>" in page and "<script>" in page


def test_a_position_trees_page_carries_python_chess_pieces_and_a_tree_of_numbers_none(tmp_path):
    from jitfish.teach.toytree import tree_from_position

    trace = Trace("jitfish teach tree --fen")
    alphabeta_tree(tree_from_position(FEN, 2, 2), trace=trace)
    pieces = re.search(r'id="pieces-data">(.*?)</script>', trace_page(trace), re.S).group(1)
    assert sorted(json.loads(pieces)) == sorted("PNBRQKpnbrqk")
    pieces = re.search(r'id="pieces-data">(.*?)</script>', trace_page(textbook_trace()), re.S).group(1)
    assert json.loads(pieces) == {}


@pytest.mark.usefixtures("teaching_kernels")
@pytest.mark.parametrize("name", COMMANDS)
def test_teach_html_writes_the_page_of_the_search_it_reports(tmp_path, name):
    options, printed = COMMANDS[name]
    page = tmp_path / f"{name}.html"
    result = run_jitfish("teach", *options, "--html", str(page))
    assert result.returncode == 0, result.stderr
    assert printed in result.stdout and f"Step-by-step page written to {page}" in result.stdout
    data = page_trace(page.read_text())
    assert data["command"].startswith(f"jitfish teach {options[0]}")
    for option in options:
        if option.startswith("--"):
            assert option in data["command"]
    assert data["command"] in page.read_text() or json.dumps(data["command"])[1:-1] in page.read_text()
    summary, counts = data["summary"], data["counts"]
    if name == "mcts":
        iterations = [e for e in data["events"] if e["kind"] == "iteration"]
        assert len(iterations) == summary["iterations"] == 2000
        most = max(e["backed"][1][0] for e in iterations if e["path"])
        assert most == next(value for label, value in summary.items() if label.startswith("visits of"))
        return
    if name == "kriegspiel":
        said = [e for e in data["events"] if e["kind"] == "announcement"]
        tried = [e for e in data["events"] if e["kind"] == "illegal"]
        assert (len(said), len(tried)) == (summary["plies"], summary["illegal attempts"])
        assert f"after {summary['plies']} plies" in result.stdout
        return
    if name == "horizon":
        roots = [e["value"] for e in data["events"] if e["kind"] == "value" and e["path"] == []]
        assert roots == [summary["value without quiescence"], summary["value with quiescence"]]
        assert counts["searches"] == 2
        return
    if options[0] == "ladder":  # the report's row at --depth, as printed
        rows = [line.replace(",", "").split() for line in result.stdout.splitlines()]
        row = [words for words in rows if words[:1] == [options[-1]]][-1]  # the deepest depth's
        assert int(row[1]) == summary["nodes visited"]
    if name == "engine":  # its iterations as it reports them, the last the report's row
        lines = [e for e in data["events"] if e["kind"] == "line"]
        assert counts["engine_nodes"] == lines[-1]["nodes"] == summary["nodes visited"]
        assert lines[-1]["depth"] == 5 and lines[-1]["value"] == summary["value"] and counts["nodes"] == 0
        return
    assert counts["leaves"] == summary["leaves visited"]
    assert counts["nodes"] == summary["nodes visited"]
    if "leaves pruned" in summary:
        assert counts["spared_leaves"] == summary["leaves pruned"]
        assert counts["leaves"] + counts["spared_leaves"] == summary["leaves in the tree"]
    if options[0] == "ladder":
        assert int(row[2]) == counts["leaves"]
    if name == "mtdf":
        assert counts["passes"] == summary["MTD(f) passes"] > 0


@pytest.mark.usefixtures("teaching_kernels")
def test_teach_ladder_and_mcts_html_trace_one_search(tmp_path):
    result = run_jitfish("teach", "ladder", "--depth", "2", "--html", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "--html traces one rung on one position" in result.stderr
    result = run_jitfish("teach", "mcts", "--fen", FEN, "--html", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "--html traces one search: give --fen and --policy" in result.stderr
    result = run_jitfish("teach", "kriegspiel", "--games", "2", "--html", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "--html replays one game" in result.stderr
    result = run_jitfish("teach", "horizon", "--html", str(tmp_path / "x.html"))
    assert result.returncode == 2 and "--html traces the searches of one position: give --fen" in result.stderr
    assert not (tmp_path / "x.html").exists()


def largest_trace() -> Trace:
    """A trace filled to the cap: alpha-beta on a tree too large for it, stopped when the trace is full."""
    rng = random.Random(7)

    def tree(depth):
        return rng.randint(-99, 99) if depth == 0 else [tree(depth - 1) for _ in range(5)]

    trace = Trace("largest", cap=DEFAULT_CAP)
    with pytest.raises(TraceFull):
        alphabeta_tree(tree(7), trace=trace)
    assert len(trace) == DEFAULT_CAP
    return trace


# The browser: Debian's chromium through its chromedriver, driven by selenium.
browser_needs = [
    needs_program("chromium"),
    needs_program("chromedriver"),
    pytest.mark.skipif(not installed("selenium"), reason="needs selenium, not installed: pip install selenium"),
]


@pytest.fixture(scope="module")
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    from tests.extras import program_path

    options = Options()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(argument)
    options.binary_location = program_path("chromium")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(program_path("chromedriver")), options=options)
    yield driver
    driver.quit()


def press(driver, key: str) -> dict:
    from selenium.webdriver.common.by import By

    driver.find_element(By.TAG_NAME, "body").send_keys(key)
    return driver.execute_script("return window.jitfishReplay.state()")


def errors(driver) -> list:
    return [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def in_browser(test):
    for mark in browser_needs:
        test = mark(test)
    return test


@pytest.mark.usefixtures("teaching_kernels")
@pytest.mark.parametrize("name", COMMANDS)
@in_browser
def test_in_a_browser_the_page_replays_to_the_reports_counts_and_back(tmp_path, browser, name):
    from selenium.webdriver.common.keys import Keys

    options, _ = COMMANDS[name]
    page = tmp_path / f"{name}.html"
    assert run_jitfish("teach", *options, "--html", str(page)).returncode == 0
    data = page_trace(page.read_text())
    browser.get(page.as_uri())
    start = browser.execute_script("return window.jitfishReplay.state()")
    assert start["position"] == 0 and start["total"] == len(data["events"])
    assert press(browser, Keys.ARROW_RIGHT)["position"] == 1
    end = press(browser, Keys.END)
    assert end["position"] == len(data["events"])
    summary = data["summary"]
    if name == "kriegspiel":
        assert (end["counts"]["plies"], end["counts"]["illegal"]) == (summary["plies"], summary["illegal attempts"])
        assert press(browser, Keys.HOME)["position"] == 0 and errors(browser) == []
        return
    if name == "horizon":
        assert end["counts"]["nodes"] == data["counts"]["nodes"] and end["counts"]["searches"] == 2
        assert press(browser, Keys.HOME)["position"] == 0 and errors(browser) == []
        return
    if name == "engine":
        assert end["counts"]["engine_nodes"] == summary["nodes visited"] and end["counts"]["nodes"] == 0
        assert end["counts"]["lines"] == data["counts"]["lines"] > 0
        assert press(browser, Keys.HOME)["position"] == 0 and errors(browser) == []
        return
    if name == "mcts":
        assert end["counts"]["iterations"] == summary["iterations"]
        assert max(end["root"]) == next(value for label, value in summary.items() if label.startswith("visits of"))
        assert press(browser, Keys.HOME)["position"] == 0 and errors(browser) == []
        return
    assert end["counts"]["nodes"] == summary["nodes visited"]
    assert end["counts"]["leaves"] == summary["leaves visited"]
    assert end["counts"]["spared_leaves"] == summary.get("leaves pruned", 0)
    assert end["counts"]["passes"] == summary.get("MTD(f) passes", 0)
    assert press(browser, Keys.ARROW_LEFT)["position"] == len(data["events"]) - 1
    back = press(browser, Keys.HOME)
    assert back["position"] == 0 and back["counts"]["nodes"] == 0
    assert errors(browser) == []


@in_browser
def test_in_a_browser_the_largest_page_the_cap_allows_opens_and_steps_in_under_2_s(tmp_path, browser):
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "largest.html"
    write_page(largest_trace(), page)
    started = time.perf_counter()
    browser.get(page.as_uri())
    assert press(browser, Keys.ARROW_RIGHT)["position"] == 1
    assert press(browser, Keys.END)["position"] == DEFAULT_CAP
    assert press(browser, Keys.ARROW_LEFT)["position"] == DEFAULT_CAP - 1
    assert time.perf_counter() - started < 2.0
    assert errors(browser) == []


def test_in_a_notebook_a_traced_result_shows_its_page_and_an_untraced_one_its_text():
    import html

    from jitfish.teach.multiplayer import THREE_PLAYER_TREE, players_tree

    trace = Trace("alphabeta_tree(TEXTBOOK_TREE)")
    result = alphabeta_tree(TEXTBOOK_TREE, trace=trace)
    shown = result._repr_html_()
    srcdoc = re.fullmatch(r'<iframe srcdoc="(.*?)" sandbox="allow-scripts" style="[^"]*"></iframe>', shown, re.S)
    assert srcdoc is not None and html.unescape(srcdoc.group(1)) == trace_page(trace)
    assert trace._repr_html_() == shown
    assert alphabeta_tree(TEXTBOOK_TREE)._repr_html_() is None
    players = Trace("players_tree")
    assert players_tree(THREE_PLAYER_TREE, 3, players)._repr_html_() == players._repr_html_()
    assert players_tree(THREE_PLAYER_TREE, 3)._repr_html_() is None


@pytest.mark.usefixtures("uct_kernels")
def test_in_a_notebook_a_traced_ladder_or_mcts_report_shows_its_page():
    from jitfish.teach.ladder import ladder
    from jitfish.teach.mcts import mcts

    trace = Trace("ladder")
    assert ladder(FEN, 2, ["mtdf"], trace=trace)._repr_html_() == trace._repr_html_()
    assert ladder(FEN, 2, ["mtdf"])._repr_html_() is None
    trace = Trace("mcts")
    assert mcts(FEN, 200, "eval", alphabeta=False, trace=trace)._repr_html_() == trace._repr_html_()
    assert mcts(FEN, 200, "eval", alphabeta=False)._repr_html_() is None


@pytest.mark.usefixtures("teaching_kernels")
@in_browser
def test_in_a_browser_a_chess_page_near_the_cap_opens_and_steps_in_under_2_s(tmp_path, browser):
    from selenium.webdriver.common.keys import Keys

    from jitfish.teach.ladder import ladder

    trace = Trace("ordering to depth 4")
    ladder(FEN, 4, ["ordering"], trace=trace)
    page = tmp_path / "ordering.html"
    write_page(trace, page)
    started = time.perf_counter()
    browser.get(page.as_uri())
    assert press(browser, Keys.ARROW_RIGHT)["position"] == 1
    end = press(browser, Keys.END)
    assert end["position"] == len(trace) > DEFAULT_CAP * 0.9 and end["counts"]["nodes"] == trace.counts()["nodes"]
    assert press(browser, Keys.HOME)["position"] == 0
    assert time.perf_counter() - started < 2.0
    assert errors(browser) == []


@in_browser
def test_in_a_browser_uct_on_the_blackboard_tree_ends_with_its_visits(tmp_path, browser):
    from selenium.webdriver.common.keys import Keys

    from jitfish.teach.mcts import uct_tree

    trace = Trace("uct_tree(TEXTBOOK_TREE, 300)")
    result = uct_tree(TEXTBOOK_TREE, 300, trace=trace)
    page = tmp_path / "uct.html"
    write_page(trace, page)
    browser.get(page.as_uri())
    end = press(browser, Keys.END)
    assert end["counts"]["iterations"] == 300 and end["counts"]["tree_nodes"] == 13
    assert end["root"] == result.visits[-1]
    assert press(browser, Keys.HOME)["position"] == 0 and errors(browser) == []
