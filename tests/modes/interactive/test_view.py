"""The terminal's run view (view.py): events in, lines out. What goes to the scrollback
once (`take_commits`) and what the live area shows (`live`), with and without colour."""

import io
import time

from miniagent.core.messages import assistant_message
from miniagent.core.provider import Model
from miniagent.modes.interactive.linemode import LineScreen
from miniagent.modes.interactive.view import RunView
from miniagent.tui.style import Style

BOLD, DIM, RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


def delta(kind, text=""):
    return {"type": "message_update", "assistantMessageEvent": {"type": kind, "delta": text}}


def reply(stop_reason="stop", error="", output=5, total=1000):
    usage = {"input": 10, "output": output, "cacheRead": 3, "cacheWrite": 0,
             "totalTokens": total, "cost": {"total": 0.0}}
    return {"type": "message_end", "message": {"role": "assistant", "content": [],
                                               "stopReason": stop_reason,
                                               "errorMessage": error, "usage": usage}}


def start(call_id, command, tool="bash"):
    return {"type": "tool_execution_start", "toolCallId": call_id, "toolName": tool,
            "args": {"command": command}}


def end(call_id, args, output, is_error=False, tool="bash", details=None):
    return {"type": "tool_execution_end", "toolCallId": call_id, "toolName": tool,
            "args": args, "isError": is_error,
            "result": {"content": [{"type": "text", "text": output}], "details": details}}


def update(call_id, output):
    return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": "bash",
            "partialResult": {"content": [{"type": "text", "text": output}]}}


def test_an_answer_is_markdown_committed_block_by_block_and_the_open_block_stays_live():
    view = RunView(Style(True))
    view({"type": "agent_start"})
    assert "waiting for the model" in view.live(0)[0]
    view(delta("text_delta", "The answer is **5**.\n\nWith `co**de**` and"))
    assert view.take_commits() == [f"The answer is {BOLD}5{RESET}.", ""]
    assert view.live(0)[:-1] == ["With \x1b[36mco**de**\x1b[0m and"]  # the block is open
    view(delta("text_delta", " more.\n\n```py\nx  =  1\n\n"))
    assert view.take_commits() == ["With \x1b[36mco**de**\x1b[0m and more.", ""]
    view(delta("text_end"))
    view(reply())
    lines = view.take_commits()
    assert "  x  =  1" in lines and view.live(0)[:-1] == []  # code lines intact


def test_a_long_list_goes_to_the_scrollback_item_by_item_not_at_its_end():
    # Only a blank line let a block go up once, so a list 3,000 items long stayed live,
    # and parsed again at every line, until the answer ended.
    view = RunView(Style(False))
    view.rows = 5
    view(delta("text_delta", "Steps:\n"))
    for number in range(3000):
        view(delta("text_delta", "  " * (number % 5) + f"- step {number}\n"))
    lines = view.take_commits()
    assert lines[0] == "Steps:" and lines[-1] == "      • step 2998" and len(lines) == 3000
    assert view.live(0) == ["        • step 2999"]


def test_thinking_is_dim_line_by_line_and_control_codes_are_shown_not_sent():
    view = RunView(Style(True))
    view(delta("thinking_delta", "let me\nthink"))
    assert view.take_commits() == [f"{DIM}let me{RESET}"]
    assert view.live(0) == [f"{DIM}think{RESET}"]
    view(delta("thinking_end"))
    view(delta("text_delta", "Hello \x1b]0;owned\x07world"))
    view(delta("text_end"))
    lines = view.take_commits()
    assert lines[0] == f"{DIM}think{RESET}" and "\u241b]0;owned\u2407world" in lines[1]
    assert all("\x1b]" not in line for line in lines)


def test_parallel_calls_show_live_then_each_result_under_its_call_in_order():
    view = RunView(Style(False))
    view(start("a", "sleep 1; echo A"))
    view(start("b", "seq 1 60"))
    view(update("b", "\n".join(str(n) for n in range(1, 40))))
    live = view.live(view._running_since + 3)
    assert live[0][1:] == " running $ sleep 1; echo A, $ seq 1 60 · 3s"  # after the spinner
    assert live[1:] == ["    35", "    36", "    37", "    38", "    39"]
    view(end("a", {"command": "sleep 1; echo A"}, "A"))
    view(end("b", {"command": "seq 1 60"}, "Traceback\nboom\nexit 1", is_error=True))
    view({"type": "agent_end", "messages": []})
    assert view.take_commits() == ["  $ sleep 1; echo A", "    A", "  $ seq 1 60",
                                   "    ! Traceback", "    ! boom", "    ! exit 1"]
    assert view.live(4.0) == []


def test_an_edit_shows_its_diff_folded_with_a_count_and_ctrl_o_has_it_whole():
    diff = "\n".join([" 1 keep"] + [f"-{n} old {n}" for n in range(2, 20)] +
                     [f"+{n} new {n}" for n in range(2, 20)])
    view = RunView(Style(True), expandable=True)
    view(end("e", {"path": "app.py"}, "Successfully replaced 1 block of text in app.py.",
             tool="edit", details={"diff": diff}))
    assert view.take_commits() == []  # live until a line comes after it
    view.note("next")
    lines = view.take_commits()[:-1]
    assert lines[0] == f"{BOLD}  edit app.py{RESET}"
    assert "    \x1b[31m-2 \x1b[0m\x1b[31;7mold\x1b[0m\x1b[31m 2\x1b[0m" in lines  # "old" marked
    assert len(lines) == 1 + 20 + 1
    assert "… 17 more lines (Ctrl+O shows them)" in lines[-1]
    assert len(view.folded) == 1 + 37 and "    \x1b[32m+19 \x1b[0m\x1b[32;7mnew\x1b[0m\x1b[32m 19\x1b[0m" in view.folded


def test_a_commands_output_keeps_its_last_lines_a_files_its_first():
    view = RunView(Style(False))
    output = "\n".join(f"line {n}" for n in range(1, 61))
    view(end("b", {"command": "pytest"}, output))
    view(end("r", {"path": "app.py"}, output, tool="read"))
    assert view.take_commits() == [
        "  $ pytest", "    … 55 lines before", "    line 56", "    line 57", "    line 58",
        "    line 59", "    line 60",
        "  read app.py", "    line 1", "    line 2", "    line 3", "    line 4", "    line 5",
        "    … 55 more lines"]


def test_the_last_call_stays_live_opens_in_place_and_goes_up_where_it_was():
    view = RunView(Style(False), expandable=True)
    view.note("before")
    view(end("b", {"command": "seq 1 60"}, "\n".join(str(n) for n in range(1, 61))))
    assert view.take_commits() == ["before"]
    assert view.live(0)[:2] == ["  $ seq 1 60", "    … 55 lines before (Ctrl+O shows them)"]
    assert view.open_last_call()  # Ctrl+O: the whole result, in the live area
    assert view.live(0) == ["  $ seq 1 60"] + [f"    {n}" for n in range(1, 61)]
    view.open_last_call()  # again: folded again
    assert len(view.live(0)) == 7 and view.open_last_call()
    view({"type": "turn_start"})  # the spinner goes under it; nothing is committed yet
    assert view.take_commits() == [] and "waiting for the model" in view.live(0)[-1]
    view.note("after")
    assert view.take_commits() == ["  $ seq 1 60"] + [f"    {n}" for n in range(1, 61)] + [
        "after"]  # as it was shown: opened
    assert not view.open_last_call()  # in the scrollback now: the REPL prints it below
    assert view.folded[-1] == "    60"


def test_a_write_shows_the_files_first_lines_and_the_users_own_command_fifty():
    view = RunView(Style(False))
    content = "\n".join(f"line {n}" for n in range(1, 9))
    view(end("w", {"path": "notes.md", "content": content}, "Wrote 50 bytes", tool="write"))
    assert view.take_commits() == ["  write notes.md", "    line 1", "    line 2",
                                   "    line 3", "    line 4", "    line 5",
                                   "    … 3 more lines"]  # no key named without one
    output = "\n".join(str(n) for n in range(1, 61))
    view(end("user-shell", {"command": "seq 60"}, output))
    lines = view.take_commits()
    assert lines[1] == "    … 10 lines before" and lines[2:] == [
        f"    {n}" for n in range(11, 61)]


def test_each_failure_is_shown_once_the_retried_ones_in_their_notices():
    view = RunView(Style(False))
    for retry in (1, 2, 3):
        view(reply("error", "500 boom"))
        view({"type": "agent_end", "messages": []})
        view({"type": "auto_retry_start", "attempt": retry, "maxAttempts": 3,
              "delayMs": 1000 * 2 ** retry, "errorMessage": "500 boom"})
    view(reply("error", "500 boom"))
    view({"type": "agent_end", "messages": []})
    view.show_footer(Model("m", "scripted", "scripted"))
    assert view.take_commits() == [
        "retrying in 2 s (1 of 3): 500 boom", "retrying in 4 s (2 of 3): 500 boom",
        "retrying in 8 s (3 of 3): 500 boom", "error: 500 boom",
        "40 in · 20 out · 12 cached · $0.00 · context 1% of 128k"]


def test_a_first_reply_stopped_before_its_counts_leaves_the_usage_unknown_not_zero():
    # llama.cpp sends usage in its last chunk only: a reply aborted before it has zeros.
    view = RunView(Style(False))
    stopped = reply("aborted")
    stopped["message"]["usage"] = assistant_message("openai-completions", "p", "tiny")["usage"]
    view(stopped)
    view.show_footer(Model("tiny", "openai-compatible", "openai-completions",
                           context_window=8192))
    assert view.take_commits()[-1] == "usage unknown · context unknown of 8k"
    view(reply())  # the next prompt's reply says its counts again
    view.show_footer(Model("tiny", "scripted", "scripted", context_window=8192))
    assert view.take_commits()[-1] == "10 in · 5 out · 3 cached · $0.00 · context 12% of 8k"


def test_the_line_modes_progress_line_comes_every_five_seconds_of_a_command():
    view = RunView(Style(False))
    view(start("a", "sleep 8"))
    began = view._running_since
    assert view.progress(began + 1) is None  # a short command needs no line
    assert view.progress(began + 5) == "running $ sleep 8: 5s"
    assert view.progress(began + 7) is None
    assert view.progress(began + 10.2) == "running $ sleep 8: 10s"
    assert view.busy()


def test_the_line_mode_prints_finished_lines_once_and_a_progress_line_when_due(monkeypatch):
    out = io.StringIO()
    screen = LineScreen(out)
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])  # the view's and the screen's
    screen.view(delta("text_delta", "Looking **now**."))
    screen.view(delta("text_end"))  # printed at once, from the agent's thread
    screen.view(start("a", "sleep 8"))
    clock[0] += 6
    screen.changed()
    assert out.getvalue() == "Looking now.\n  running $ sleep 8: 6s\n"


def status_of(view, now):
    """The live part's last line without its spinner frame: the status line."""
    return view.live(now)[-1][2:]


def test_a_working_line_stays_from_the_runs_start_to_its_footer():
    view = RunView(Style(False))
    view({"type": "agent_start"})
    began = view._working.since
    view(delta("text_delta", "Streaming a long para"))
    assert view.live(began + 12)[0] == "Streaming a long para"
    assert status_of(view, began + 12) == "working · 12s" and view.busy()
    view(start("a", "make"))
    assert status_of(view, began + 13).startswith("running $ make")
    view(end("a", {"command": "make"}, "ok"))
    view({"type": "turn_start"})  # the next turn: the model again
    view(delta("text_delta", "Done"))
    assert status_of(view, began + 20) == "working · 20s"  # the run's clock, not the turn's
    view({"type": "agent_end", "messages": []})
    assert status_of(view, began + 21) == "working · 21s"  # until the REPL's footer
    view.show_footer(Model("m", "scripted", "scripted"))
    assert view.live(began + 22) == []
    assert not view.busy()


def test_a_retry_wait_counts_down_and_a_stop_during_it_says_so():
    view = RunView(Style(False))
    view({"type": "agent_start"})
    view(reply("error", "503 busy"))
    view({"type": "agent_end", "messages": []})
    view({"type": "auto_retry_start", "attempt": 2, "maxAttempts": 3, "delayMs": 4000,
          "errorMessage": "503 busy"})
    at = view._working.retry_at - 4
    assert status_of(view, at + 0.5) == "retrying in 4s (2 of 3)"
    assert status_of(view, at + 3.2) == "retrying in 1s (2 of 3)"
    view({"type": "auto_retry_end", "success": False, "attempt": 2,
          "finalError": "Retry cancelled"})
    assert view.take_commits() == ["retrying in 4 s (2 of 3): 503 busy",
                                   "(stopped before the retry)"]


def test_a_question_stills_the_status_line_and_restarts_the_clock_of_what_runs():
    view = RunView(Style(False))
    view({"type": "agent_start"})
    view(start("a", "touch x"))
    view.hold(True)  # --confirm asks: nothing runs until the answer
    assert view.live(time.monotonic() + 14) == [] and not view.busy()
    assert view.progress(time.monotonic() + 14) is None  # the line mode says nothing
    view.hold(False)
    assert status_of(view, time.monotonic()) == "running $ touch x · 0s"


def test_the_line_mode_says_working_while_a_long_answer_streams(monkeypatch):
    out = io.StringIO()
    screen = LineScreen(out)
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    screen.view({"type": "agent_start"})
    screen.view(delta("text_delta", "One long paragraph that has no end yet"))
    for _ in range(3):
        clock[0] += 5
        screen.changed()
    assert out.getvalue() == "  working: 5s\n  working: 10s\n  working: 15s\n"
