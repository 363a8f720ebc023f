"""The status line: a spinner that turns with the clock, what runs, for how long."""

import re

from miniagent.tui.spinner import SPINNER, elapsed_text, spinner_frame, status_line
from miniagent.tui.style import Style
from miniagent.tui.width import text_width


def test_the_spinner_turns_ten_frames_a_second():
    assert [spinner_frame(10 + n / 10 + 0.05) for n in range(11)] == list(SPINNER + SPINNER[0])
    assert spinner_frame(3.01) == spinner_frame(3.09)


def test_elapsed_time_is_seconds_then_minutes_and_seconds():
    assert [elapsed_text(s) for s in (0, 3.9, 59.99, 60, 65, 3600 + 5)] == [
        "0s", "3s", "59s", "1m00s", "1m05s", "60m05s"]


def test_the_status_line_shows_what_runs_and_for_how_long():
    assert status_line("running $ pytest -q", 10.0, 13.25, 80, Style(False)) == (
        "⠹ running $ pytest -q · 3s")
    assert status_line("waiting", 0.0, 65.0, 80, Style(True)) == "\x1b[36m⠋\x1b[0m waiting · 1m05s"
    assert status_line("waiting", 0.0, 65.0, 80, Style(True), colour_spinner=False) == (
        "⠋ waiting · 1m05s")


def test_a_long_description_is_cut_and_the_time_stays():
    line = status_line("running $ " + "x" * 200, 0.0, 7.0, 40, Style(True))
    assert re.sub(r"\x1b\[[0-9;]*m", "", line) == "⠋ running $ " + "x" * 21 + "… · 7s"  # 39 columns
    for width in range(2, 60):
        assert text_width(status_line("running $ make all", 0.0, 7.0, width, Style(True))) <= width - 1


def test_a_command_of_several_lines_is_one_row():
    assert status_line("running $ cat <<EOF\nhi\nEOF", 0.0, 2.0, 80, Style(False)) == (
        "⠋ running $ cat <<EOF … · 2s")
