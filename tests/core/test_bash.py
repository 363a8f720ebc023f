"""core/bash.py, the plain bash: output, exit statuses, timeouts, aborts, the tail."""

import threading

import pytest

from miniagent.core.bash import create_bash_tool
from miniagent.core.tools import ToolContext, ToolError


def bash(cwd, command, abort=None, **args):
    ctx = ToolContext(cwd=str(cwd), abort=abort or threading.Event())
    result = create_bash_tool().execute("c1", {"command": command, **args}, ctx)
    return result.content[0]["text"]


def test_output_comes_back(tmp_path):
    assert bash(tmp_path, "echo hi; echo err >&2") == "hi\nerr\n"


def test_no_output_says_so(tmp_path):
    assert bash(tmp_path, "true") == "(no output)"


def test_a_failing_command_is_an_error_with_its_output(tmp_path):
    with pytest.raises(ToolError) as info:
        bash(tmp_path, "echo x; exit 3")
    assert str(info.value) == "x\n\n\nCommand exited with code 3"


def test_a_timeout_stops_the_command_and_what_it_started(tmp_path):
    with pytest.raises(ToolError, match="Command timed out after 0.5 seconds"):
        bash(tmp_path, "sleep 60 & sleep 60", timeout=0.5)


def test_an_abort_stops_the_command(tmp_path):
    abort = threading.Event()
    threading.Timer(0.3, abort.set).start()
    with pytest.raises(ToolError, match="Command aborted$"):
        bash(tmp_path, "sleep 60", abort=abort)


def test_long_output_keeps_its_end_and_saves_the_whole(tmp_path):
    text = bash(tmp_path, "seq 5000")
    assert text.startswith("3002\n") and "5000\n" in text
    notice = text.rsplit("\n", 1)[-1]
    assert notice.startswith("[Showing lines 3002-5001 of 5001. Full output: ")
    with open(notice.split("Full output: ")[1].rstrip("]")) as f:
        assert f.read().startswith("1\n2\n")
