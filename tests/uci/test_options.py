"""The option table: ``uci`` lines, parsing and checking of ``setoption`` values, one typed store of values."""

from __future__ import annotations

import dataclasses

import pytest

from jitfish.engine.engine import Engine
from jitfish.engine.options import OPTIONS, OptionSpec, Settings, search_param_options
from jitfish.uci.options import OptionError, OptionTable, parse_setoption, uci_line


def test_uci_lines_follow_the_protocol():
    lines = [uci_line(spec) for spec in OptionTable()]
    assert "option name Threads type spin default 1 min 1 max 64" in lines
    assert "option name Clear Hash type button" in lines
    assert "option name Ponder type check default false" in lines
    assert "option name BookFile type string default <empty>" in lines
    assert (
        uci_line(OptionSpec("Style", "combo", None, "Normal", choices=("Solid", "Normal")))
        == "option name Style type combo default Normal var Solid var Normal"
    )


@pytest.mark.parametrize(
    "tokens, expected",
    [
        ("name Hash value 64", ("Hash", "64")),
        ("name Move Overhead value 100", ("Move Overhead", "100")),
        ("name Clear Hash", ("Clear Hash", None)),
        ("name BookFile value /tmp/my book.bin", ("BookFile", "/tmp/my book.bin")),
        ("name BookFile value", ("BookFile", "")),
    ],
)
def test_setoption_names_and_values_with_spaces(tokens, expected):
    assert parse_setoption(tokens.split()) == expected


@pytest.mark.parametrize("tokens", ["", "value 3", "name", "name value 3"])
def test_setoption_without_a_name(tokens):
    with pytest.raises(OptionError):
        parse_setoption(tokens.split())


def test_values_are_checked_and_typed():
    table = OptionTable()
    assert table.parse("hash", "128")[1] == 128
    for name, text in [("Hash", "0"), ("Hash", "32769"), ("Hash", "lots"), ("Hash", None)]:
        with pytest.raises(OptionError):
            table.parse(name, text)
    assert table.parse("UCI_Chess960", "TRUE") == (table.parse("uci_chess960", "true")[0], True)
    with pytest.raises(OptionError):
        table.parse("UCI_Chess960", "yes")
    with pytest.raises(OptionError, match="unknown option"):
        table.parse("Contempt", "10")
    assert table.parse("BookFile", "<empty>")[1] == ""
    assert table.parse("Clear Hash", None)[1] is None


def test_each_option_has_a_setting_or_an_action_and_a_valid_default():
    """Every value lives in ``Settings`` (each field is one option's); a field-less option is a button or a
    ``--tune`` search parameter, and has an action."""
    keys = [spec.key for spec in OPTIONS if spec.key is not None]
    assert sorted(keys) == sorted(field.name for field in dataclasses.fields(Settings))
    for spec in OPTIONS:
        assert spec.key is not None or spec.type == "button", spec.name
        if spec.key is not None:
            assert spec.default == getattr(Settings(), spec.key)
        if spec.type == "spin":
            assert spec.min <= spec.default <= spec.max


def test_the_engine_binds_its_actions_to_options_it_declares():
    """The engine's actions name real options (a misspelt name would be an action never called), every
    button and search parameter has one, and each acts on the engine it was bound to."""
    engine = Engine()
    names = {spec.name for spec in (*OPTIONS, *search_param_options())}
    assert set(engine._actions) <= names
    assert {spec.name for spec in OPTIONS if spec.key is None} <= set(engine._actions)
    assert {spec.name for spec in search_param_options()} <= set(engine._actions)
    engine.set_option("Hash", 2)
    assert engine.settings.hash_mb == 2 and engine.searcher._tt.nbytes <= 2 << 20 < 2 * engine.searcher._tt.nbytes
    engine.set_option("Threads", 3)
    assert len(engine.searcher.workers) == 3
    engine.set_option("UCI_Chess960", True)
    assert engine.game.board.chess960
    engine.set_option("Use NNUE", False)
    assert engine.searcher.network is None
    engine.set_option("Use NNUE", True)
    assert engine.searcher.network is engine.network
    field = search_param_options()[0]
    engine.set_option(field.name, field.max)
    assert engine.searcher.params[0] == field.max
    with pytest.raises(OSError):
        engine.set_option("BookFile", "/nonexistent/book.bin")
    assert engine.settings.book_file == ""
