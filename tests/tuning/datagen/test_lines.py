"""The ``FEN | score | result`` line format."""

from __future__ import annotations

import pytest

from tuning.datagen.lines import format_line, parse_line, read_data, write_data

FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"


def test_a_line_round_trips():
    line = format_line(FEN, -37, 0.5)
    assert line == f"{FEN} | -37 | 0.5"
    assert parse_line(line + "\n") == (FEN, -37, 0.5)


def test_other_tools_spacing_and_pgn_results_are_read():
    assert parse_line(f"{FEN}|12|1-0") == (FEN, 12, 1.0)
    assert parse_line(f"{FEN} | -3 | 1/2-1/2") == (FEN, -3, 0.5)
    assert parse_line(f"{FEN} |0| 0-1", check_position=False) == (FEN, 0, 0.0)


def test_a_bad_line_is_named_by_file_and_number(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text(f"{format_line(FEN, 1, 1.0)}\n\n{FEN} | 1 | 2.0\n")
    with pytest.raises(ValueError, match="d.txt:3: result"):
        list(read_data(path))


@pytest.mark.parametrize(
    "line, problem",
    [
        (f"{FEN} | 12", "expected"),
        (f"{FEN} | 12 | 1.0 | 3", "expected"),
        ("8/8/8/8/8/8/8/8 w - - 0 1 | 12 | 1.0", "bad FEN"),
        (f"{FEN} | 12.5 | 1.0", "score"),
        (f"{FEN} | 12 | 1", "result"),
        (f"{FEN} | 12 | 0.7", "result"),
    ],
)
def test_a_malformed_line_is_rejected_with_a_reason(line, problem):
    with pytest.raises(ValueError, match=problem):
        parse_line(line)


def test_a_result_outside_the_three_is_refused():
    with pytest.raises(ValueError, match="result"):
        format_line(FEN, 0, 0.25)


def test_data_written_is_read_back(tmp_path):
    lines = [format_line(FEN, 5, 1.0), format_line(FEN, -5, 0.0)]
    write_data(tmp_path / "d.gz", lines)
    assert list(read_data(tmp_path / "d.gz")) == [(FEN, 5, 1.0), (FEN, -5, 0.0)]
    assert [p.name for p in tmp_path.iterdir()] == ["d.gz"]  # no temporary left behind
