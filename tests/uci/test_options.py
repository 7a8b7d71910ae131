"""The option table: ``uci`` lines, parsing and checking of ``setoption`` values."""

from __future__ import annotations

import pytest

from jitfish.uci.options import Option, OptionError, OptionTable, parse_setoption


def test_uci_lines_follow_the_protocol():
    table = OptionTable()
    lines = [option.uci_line() for option in table]
    assert "option name Threads type spin default 1 min 1 max 64" in lines
    assert "option name Clear Hash type button" in lines
    assert "option name Ponder type check default false" in lines
    assert "option name BookFile type string default <empty>" in lines
    assert Option("Style", "combo", "Normal", choices=("Solid", "Normal")).uci_line() == \
        "option name Style type combo default Normal var Solid var Normal"


@pytest.mark.parametrize("tokens, expected", [
    ("name Hash value 64", ("Hash", "64")),
    ("name Move Overhead value 100", ("Move Overhead", "100")),
    ("name Clear Hash", ("Clear Hash", None)),
    ("name BookFile value /tmp/my book.bin", ("BookFile", "/tmp/my book.bin")),
    ("name BookFile value", ("BookFile", "")),
])
def test_setoption_names_and_values_with_spaces(tokens, expected):
    assert parse_setoption(tokens.split()) == expected


@pytest.mark.parametrize("tokens", ["", "value 3", "name", "name value 3"])
def test_setoption_without_a_name(tokens):
    with pytest.raises(OptionError):
        parse_setoption(tokens.split())


def test_values_are_checked_and_bad_ones_leave_the_old_value():
    table = OptionTable()
    table.set("hash", "128")
    assert table.value("Hash") == 128
    for name, text in [("Hash", "0"), ("Hash", "32769"), ("Hash", "lots"), ("Hash", None)]:
        with pytest.raises(OptionError):
            table.set(name, text)
        assert table.value("Hash") == 128
    table.set("UCI_Chess960", "TRUE")
    assert table.value("uci_chess960") is True
    with pytest.raises(OptionError):
        table.set("UCI_Chess960", "yes")
    with pytest.raises(OptionError, match="unknown option"):
        table.set("Contempt", "10")
    table.set("BookFile", "<empty>")
    assert table.value("BookFile") == ""
    table.set("Clear Hash", None)


def test_every_option_has_a_setter_and_a_valid_default():
    for option in OptionTable():
        assert option.setter is not None
        if option.type == "spin":
            assert option.min <= option.default <= option.max
