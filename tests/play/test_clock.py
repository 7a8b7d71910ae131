"""The clocks with an injected time source: only the side to move's runs, the increment after a move, the
flag, and ``--tc``'s text."""

from __future__ import annotations

import pytest

from jitfish.play.clock import Clock, TimeControl, format_seconds, parse_time_control


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_only_the_side_to_move_runs_and_a_move_adds_the_increment():
    time = FakeTime()
    clock = Clock(TimeControl(60, 2), time)
    clock.start(True)
    time.now += 5
    assert clock.left(True) == 55 and clock.left(False) == 60
    assert clock.press() == 5
    assert clock.left(True) == 57
    clock.start(False)
    time.now += 10
    assert clock.left(True) == 57 and clock.left(False) == 50
    assert clock.milliseconds(False) == 50_000


def test_the_flag_falls_and_no_increment_comes_after_it():
    time = FakeTime()
    clock = Clock(TimeControl(3, 5), time)
    clock.start(False)
    time.now += 3.5
    assert clock.flagged(False) and not clock.flagged(True)
    clock.press()
    assert clock.left(False) == -0.5
    assert clock.milliseconds(False) == 1


@pytest.mark.parametrize(
    "text, base, increment", [("5+3", 300, 3), ("0.5+0", 30, 0), ("10", 600, 0), (" 3 + 2 ", 180, 2)]
)
def test_time_controls_are_minutes_and_seconds(text, base, increment):
    control = parse_time_control(text)
    assert (control.base, control.increment) == (base, increment)


@pytest.mark.parametrize("text", ["", "5+", "+3", "five", "0+3", "5+3+1", "-1+2"])
def test_a_bad_time_control_is_refused(text):
    with pytest.raises(ValueError):
        parse_time_control(text)


def test_the_pgn_tag_and_the_clock_text():
    assert TimeControl(300, 3).pgn() == "300+3" and str(TimeControl(300, 3)) == "5+3"
    assert [format_seconds(s) for s in (7.44, 20, 298.9, 3723, -1)] == ["0:07.4", "0:20", "4:58", "1:02:03", "0:00.0"]
