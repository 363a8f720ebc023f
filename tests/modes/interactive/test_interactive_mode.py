"""The REPL, driven as a person drives it: `python -m miniagent` in a pseudo-terminal,
against the scripted model or the local test server (tests/fake_server.py), looked at
as a person sees it: the screen (tests/vt_screen.py), scrollback included."""

import json
import re
import signal
import socket

import pytest
from contextlib import contextmanager

from fake_server import FakeServer, status
from pty_driver import Terminal
from helpers import call, text, wait_gone, write_script


CTRL_C, CTRL_D, ESC, TAB = "\x03", "\x04", "\x1b", "\t"
READY = "/help for commands"  # the greeting: the editor is live under it
HELD_COMMAND = "while [ ! -e go ]; do sleep 0.02; done"  # runs until the test makes `go`
HELD_CALL = call("bash", command=HELD_COMMAND)


@contextmanager
def repl(tmp_path, *args, env=None):
    """The REPL in a terminal, in tmp_path, with its own MINIAGENT_HOME."""
    full_env = {"MINIAGENT_HOME": str(tmp_path / "home"), **(env or {})}
    with Terminal(list(args), env=full_env, cwd=str(tmp_path)) as term:
        yield term


def scripted(tmp_path, turns):
    return ["--provider", "scripted", "--script", write_script(tmp_path, turns)]


def served(server):
    return ["--base-url", server.base_url + "/v1", "--model", "fake-model"]


def request_texts(request):
    """Every text the request sent as user content, in order."""
    texts = []
    for message in request["body"]["messages"]:
        content = message.get("content")
        if message["role"] == "user":
            texts += [content] if isinstance(content, str) else [
                part.get("text", "") for part in content]
    return texts


SLOW_COMMAND = "sleep 30 & printf 'p%s %s q\\n' $$ $!; echo started; wait"


def shown_pids(term):
    """The shell's and the child's pids, as SLOW_COMMAND shows them in the live window."""
    return [int(pid) for pid in re.findall(r"p(\d+) (\d+) q\n", term.expect_screen(" q\n"))[-1]]


def rows_in_order(vt, first, second):
    """Are both rows in the transcript, `first` above `second`?"""
    rows = vt.transcript().split("\n")
    return first in rows and second in rows and rows.index(first) < rows.index(second)


def editor_line_of(vt):
    """The input editor's row: the last one on screen that starts with the prompt."""
    return next((line for line in reversed(vt.lines()) if line.startswith(">")), None)


def picker_rows(vt):
    """The picker's rows on screen: those under its filter line, above its counts."""
    rows = vt.lines()
    start = next(i for i, row in enumerate(rows) if row.startswith("filter:")) + 1
    end = next(i for i, row in enumerate(rows) if "Esc cancels" in row)
    return rows[start:end]


def picker_open(vt, filtered=""):
    """Is the picker on screen, its filter reading `filtered`?"""
    rows = [row.rstrip() for row in vt.lines()]  # the cursor's row keeps its spaces
    return f"filter: {filtered}".rstrip() in rows and any("Esc cancels" in row for row in rows)


def test_the_first_token_is_on_screen_before_the_last_is_sent_and_a_footer_follows(tmp_path):
    turn = {"content": [text("Hello from the first piece, and then the rest.")],
            "fault": {"hold_after_pieces": 2}}  # the role chunk and "Hello fr"
    with FakeServer([turn]) as server, repl(tmp_path, *served(server), "say hi") as term:
        term.expect_screen("Hello fr")  # the prompt from the command line runs first
        assert "the rest" not in term.vt.transcript()
        server.go_on.set()
        footer = term.expect_screen("cost unknown")
        assert "5 out" in footer and re.search(r"context \d+% of 128k", footer)
        assert sum("Hello from the first piece" in line for line in term.screen()) == 1
        assert term.vt.unknown == []
        term.send(CTRL_D)
        assert term.wait() == 0
        assert term.screen()[-2].startswith("10 in · 5 out")  # the editor goes at the end
        assert term.screen()[-1].startswith("Continue this session: miniagent --session ")


def test_a_prompt_from_the_command_line_is_shown_as_typed_and_kept_in_the_history(tmp_path):
    turns = [{"content": [text("Fixed it.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns), "fix the test") as term:
        term.expect_screen("Fixed it.")
        term.expect_screen("context ")
        assert rows_in_order(term.vt, "> fix the test", "Fixed it.")  # above its answer
        assert term.vt.is_bold("> fix the test")  # as a typed prompt is
        term.send("\x1b[A")  # Up on the empty editor: the newest history entry
        term.wait_screen(lambda vt: editor_line_of(vt) == "> fix the test")
        term.ctrl_c()  # clears the editor
        term.wait_screen(lambda vt: editor_line_of(vt) == "> ")
        term.send(CTRL_D)
        assert term.wait() == 0
    assert (tmp_path / "home" / "history.jsonl").read_text() == '"fix the test"\n'


def test_a_server_always_answering_500_shows_one_counter_and_the_error_once(tmp_path):
    with FakeServer([status(500, body="boom")] * 6) as server, \
            repl(tmp_path, *served(server), "hi",
                 env={"MINIAGENT_RETRY_BASE_DELAY": "0.001"}) as term:
        term.expect_screen("error: 500 boom")
        term.expect_screen("context ")
        shown = [line.strip() for line in term.screen() if "500 boom" in line]
        assert [line.split(" s ", 1)[-1] for line in shown] == [
            "(1 of 3): 500 boom", "(2 of 3): 500 boom", "(3 of 3): 500 boom", "error: 500 boom"]
        assert len(server.requests) == 4
        term.send(CTRL_D)
        assert term.wait() == 0


def test_alt_enter_queues_a_follow_up_and_followup_at_the_prompt_just_sends(tmp_path):
    turns = [{"content": [HELD_CALL]},
             {"content": [text("Done first.")]}, {"content": [text("Then the docs.")]},
             {"content": [text("Later.")]}]
    with FakeServer(turns) as server, repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("fix it\r")
        term.expect_screen("running $ while")
        term.send("update the docs\x1b\r")  # Alt+Enter: when the agent is done
        term.wait_screen(lambda vt: "  ↳ follow-up: update the docs" in vt.lines())
        term.send("\x1b[A")  # Up on an empty editor: the queued message back, to edit
        term.wait_screen(lambda vt: editor_line_of(vt) == "> update the docs" and
                         not any("queued" in line for line in vt.lines()))
        term.send("\x1b\r")  # and queued again
        term.wait_screen(lambda vt: "  ↳ follow-up: update the docs" in vt.lines())
        (tmp_path / "go").write_text("")
        term.expect_screen("Then the docs.")
        assert request_texts(server.requests[1])[-1] != "update the docs"  # not steering
        assert request_texts(server.requests[2])[-1] == "update the docs"
        term.send("/followup later\r")  # at the prompt there is nothing to wait for
        term.expect_screen("Later.")
        term.send("/quit\r")
        assert term.wait() == 0


def test_confirm_questions_are_answered_in_the_editor_and_always_is_for_one_tool(tmp_path):
    turns = [{"content": [call("write", path="a.txt", content="one\n")]},
             {"content": [call("write", path="b.txt", content="two\n")]},
             {"content": [call("bash", command="echo ran > ran.txt")]},
             {"content": [text("Done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns), "--confirm") as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("Run it? [y]es, [n]o, [a]lways")
        term.send("a\r")  # always, for write
        term.expect_screen("bash wants to run:")  # the second write was not asked about
        term.send("\r")  # Enter alone: no
        term.expect_screen("Done.")
        footer = term.expect_screen("context ")
        assert "always allowed: write" in footer
        term.send(CTRL_D)
        assert term.wait() == 0
    assert (tmp_path / "b.txt").exists() and not (tmp_path / "ran.txt").exists()
    assert (tmp_path / "home" / "history.jsonl").read_text() == '"go"\n'  # no answers


def test_typing_during_a_reply_and_a_command_stays_in_the_editor_and_steers(tmp_path):
    reply_text = "The reply streams on while you type, and stays whole."
    turns = [{"content": [text(reply_text)], "fault": {"hold_after_pieces": 2}},
             {"content": [HELD_CALL]},
             {"content": [text("Steered.")]}]
    with FakeServer(turns) as server, repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("start\r")
        term.expect_screen("The repl")  # the role chunk and 8 characters, then held
        term.send("abc")  # typed while the reply streams
        term.wait_screen(lambda vt: editor_line_of(vt) == "> abc")
        term.send("\r")  # Enter while the agent works: a steering message
        term.wait_screen(lambda vt: "  ↳ steering: abc" in vt.lines())
        server.go_on.set()
        term.expect_screen("running $ while")  # the model got "abc" after its reply
        term.send("typed during the command")
        term.wait_screen(lambda vt: editor_line_of(vt) == "> typed during the command")
        term.send("\r")
        term.wait_screen(lambda vt: "  ↳ steering: typed during the command" in vt.lines())
        (tmp_path / "go").write_text("")
        term.expect_screen("Steered.")
        term.expect_screen("context ")
        screen = term.screen()
        assert reply_text in screen  # the reply on screen is the scripted text, whole
        assert screen.index("> abc") > screen.index(reply_text)  # where the model got it
        assert "> typed during the command" in screen
        assert request_texts(server.requests[1])[-1] == "abc"
        assert request_texts(server.requests[2])[-1] == "typed during the command"
        # the editor is empty once the run's last frame is drawn (the footer may come first)
        term.wait_screen(lambda vt: editor_line_of(vt) == "> ")
        term.send(CTRL_D)
        assert term.wait() == 0


def test_esc_stops_a_streaming_turn_within_a_second_and_the_repl_stays(tmp_path):
    turn = {"content": [text("Hello from a stream that never ends")],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([turn, {"content": [text("Again.")]}]) as server, \
            repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("hi\r")
        term.expect_screen("Hello fr")
        term.send(ESC)
        term.expect_screen("(stopped)", timeout=5)  # the stream would hold for ever
        assert server.hung_up.wait(5)  # the stream was closed, not left open
        term.send("once more\r")
        term.expect_screen("Again.")
        term.expect_screen("context ")  # the run is over
        term.send(CTRL_D)
        assert term.wait() == 0


def test_ctrl_c_mid_stream_aborts_at_once_keeps_the_session_and_gives_back_queued_lines(
        tmp_path):
    turn = {"content": [text("Hello from a stream that never ends")],
            "fault": {"hold_after_pieces": 2}}
    with FakeServer([turn]) as server, repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("hi\r")
        term.expect_screen("Hello fr")
        term.send("and then tidy up\r")
        term.expect_screen("↳ steering: and then tidy up")
        term.ctrl_c()  # once the REPL waits for a key (see pty_driver.Terminal.ctrl_c)
        term.expect_screen("(stopped)", timeout=5)
        term.expect_screen("1 queued message(s) put back in the input")
        term.wait_screen(lambda vt: rows_in_order(vt, "> hi", "Hello fr"))  # not mid-paint
        term.wait_screen(lambda vt: "> and then tidy up" in vt.lines())  # to send or edit
        assert server.hung_up.wait(5)  # the stream was closed, not left open
        session = next((tmp_path / "home" / "sessions").rglob("*.jsonl")).read_text()
        assert re.search(r'"stopReason": ?"aborted"', session)
        assert len(server.requests) == 1  # nothing is sent until the user types again
        term.ctrl_c()  # clears the typed line; this one does not arm quitting
        term.wait_screen(lambda vt: editor_line_of(vt) == "> ")
        term.ctrl_c()  # at an empty prompt: how to quit ...
        term.expect_screen("Ctrl-C again to quit")
        term.ctrl_c()  # ... and quitting
        assert term.wait() == 0


def test_ctrl_c_during_bash_kills_its_whole_process_group(tmp_path):
    turns = [{"content": [call("bash", command=SLOW_COMMAND)]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("start\r")
        pids = shown_pids(term)
        term.ctrl_c()  # once the REPL waits for a key (see pty_driver.Terminal.ctrl_c)
        term.send(CTRL_C)  # more Ctrl-Cs before the prompt is back do not quit
        term.expect_screen("Command aborted")
        term.expect_screen("context ")
        assert all(wait_gone(pid) for pid in pids)
        term.send(CTRL_D)
        assert term.wait() == 0


def test_commands_prompts_attachments_completion_and_history(tmp_path):
    (tmp_path / "hello.py").write_text("print('hi')\n")
    (tmp_path / "notes.txt").write_text("a note\n")
    turns = [{"content": [text(f"answer {n}")]} for n in range(1, 7)]
    with FakeServer(turns) as server, repl(tmp_path, *served(server)) as term:
        term.expect_screen(READY)
        term.send("/frobnicate\r")
        term.expect_screen("unknown command /frobnicate: /help lists the commands")
        term.send("/etc/hosts is wrong\r")
        term.expect_screen("answer 1")
        term.send("//help\r")
        term.expect_screen("answer 2")
        term.expect_screen("context ")  # the run is over: a command is taken, not refused
        term.send("/model other-model\r")
        term.expect_screen("not in the registry")
        term.send("explain @hello.py and @missing.txt\r")
        term.expect_screen("@missing.txt is not attached: File not found")
        term.expect_screen("answer 3")
        term.send("first\\\r")  # a backslash before Enter continues the input
        term.send("second\r")
        term.expect_screen("answer 4")
        term.send("\x1b[200~pasted one\npasted two\x1b[201~\r")  # a bracketed paste
        term.expect_screen("answer 5")
        term.send("/he" + TAB)  # Tab completes a command ...
        term.wait_screen(lambda vt: editor_line_of(vt) == "> /help")
        term.send("\x15read @no" + TAB)  # ... and a path
        term.wait_screen(lambda vt: editor_line_of(vt) == "> read @notes.txt")
        term.send("\r")
        term.expect_screen("answer 6")
        term.send("\x1b[A")  # Up: the last input again, from the history
        term.wait_screen(lambda vt: editor_line_of(vt) == "> read @notes.txt")
        term.send("\x15/thinking high\r")
        term.expect_screen("does not reason")
        term.send("/tools\r")
        term.expect_screen("bash")
        term.send("/quit\r")
        assert term.wait() == 0
    sent = [request_texts(request)[-1] for request in server.requests]
    assert sent[:2] == ["/etc/hosts is wrong", "/help"]
    assert sent[2].startswith(f'<file name="{tmp_path / "hello.py"}">\nprint(\'hi\')\n</file>')
    assert sent[2].endswith("explain @hello.py and @missing.txt")
    assert sent[3:5] == ["first\nsecond", "pasted one\npasted two"]
    assert sent[5].endswith("read @notes.txt") and "a note" in sent[5]
    assert [request["body"]["model"] for request in server.requests] == [
        "fake-model", "fake-model"] + ["other-model"] * 4
    history = (tmp_path / "home" / "history.jsonl").read_text()
    assert '"/etc/hosts is wrong"' in history and '"first\\nsecond"' in history


def test_an_edit_shows_its_diff_and_an_answer_its_markdown(tmp_path):
    (tmp_path / "app.py").write_text("x = old_value\n")
    answer = ("The fix is **done**: see `a**b**c`.\n\n```python\nif  x:\n    y = 1\n```\n"
              "\n- one\n- two")
    turns = [{"content": [call("edit", path="app.py",
                               edits=[{"oldText": "old_value", "newText": "new_value"}])]},
             {"content": [text(answer)]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("fix it\r")
        term.expect_screen("context ")
        screen = term.screen()
        assert "    -1 x = old_value" in screen and "    +1 x = new_value" in screen
        assert "The fix is done: see a**b**c." in screen  # ** kept only inside code
        assert term.vt.is_bold("done") and not term.vt.is_bold("see")
        assert "  if  x:" in screen and "      y = 1" in screen  # code lines intact
        assert "• one" in screen and "• two" in screen
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_markdown_table_is_drawn_aligned_and_boxed_wide_characters_counted(tmp_path):
    answer = "Sizes:\n\n| name | size |\n|---|--:|\n| 日本語 | 3 |\n| **b** | 12 |\n\nDone."
    with repl(tmp_path, *scripted(tmp_path, [{"content": [text(answer)]}])) as term:
        term.expect_screen(READY)
        term.send("sizes?\r")
        term.expect_screen("context ")
        screen = term.screen()
        start = screen.index("┌────────┬──────┐")
        assert screen[start:start + 6] == [
            "┌────────┬──────┐", "│ name   │ size │", "├────────┼──────┤",
            "│ 日本語 │    3 │", "│ b      │   12 │", "└────────┴──────┘"]
        assert term.vt.is_bold("name") and "| name" not in "\n".join(screen)
        term.send(CTRL_D)
        assert term.wait() == 0


def marked_words(vt, row_text):
    """The inverse (marked) characters of the newest row that reads `row_text`, as words."""
    for cells in reversed(vt.history + vt.grid):
        if "".join(cell.char for cell in cells).rstrip() == row_text:
            return "".join(cell.char if cell.pen.inverse else " " for cell in cells).split()
    raise LookupError(f"{row_text!r} is not on the screen")


def test_an_edit_marks_the_changed_words_inside_its_changed_lines(tmp_path):
    (tmp_path / "app.py").write_text("total = price * count\n")
    edit = call("edit", path="app.py", edits=[{"oldText": "price", "newText": "cost"}])
    turns = [{"content": [edit]}, {"content": [text("Renamed.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("rename it\r")
        term.expect_screen("context ")
        assert marked_words(term.vt, "    -1 total = price * count") == ["price"]
        assert marked_words(term.vt, "    +1 total = cost * count") == ["cost"]
        term.send(CTRL_D)
        assert term.wait() == 0


def test_parallel_calls_each_show_their_own_folded_result(tmp_path):
    turns = [{"content": [{"type": "thinking", "thinking": "Two things at once."},
                          call("bash", command="sleep 0.3; echo from-the-first"),
                          call("bash", command="seq 1 60")]},
             {"content": [text("Both done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("Both done.")
        term.expect_screen("context ")
        screen = term.screen()
        start = screen.index("  $ sleep 0.3; echo from-the-first")
        assert screen[start + 1] == "    from-the-first"
        assert screen[start + 2:start + 9] == [  # a command's output: its end
            "  $ seq 1 60", "    … 55 lines before (Ctrl+O shows them)", "    56", "    57",
            "    58", "    59", "    60"]
        assert not term.vt.is_bold("Two things") and term.vt.is_bold("$ seq 1 60")
        term.send("\x0f")  # Ctrl+O: in the scrollback, the folded result is printed whole
        term.expect_screen("    1")
        term.send(CTRL_D)
        assert term.wait() == 0


def test_a_long_output_shows_its_end_and_ctrl_o_opens_it_in_place_while_it_is_live(tmp_path):
    turns = [{"content": [call("bash", command="seq 1 12")]}, {"content": [HELD_CALL]},
             {"content": [text("Counted.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("count\r")
        term.wait_screen(lambda vt: "    … 7 lines before (Ctrl+O shows them)" in vt.lines()
                         and any("running $ while" in line for line in vt.lines()))
        assert "    12" in term.vt.lines() and "    7" not in term.vt.lines()  # its end
        term.send("\x0f")  # Ctrl+O while the result is still live: opened where it is
        term.wait_screen(lambda vt: "    1" in vt.lines()
                         and "    … 7 lines before (Ctrl+O shows them)" not in vt.lines())
        (tmp_path / "go").write_text("")
        term.expect_screen("Counted.")
        term.expect_screen("context ")
        rows = term.vt.transcript().split("\n")
        start = rows.index("  $ seq 1 12")
        assert rows[start + 1:start + 14] == [f"    {n}" for n in range(1, 13)] + [
            "  $ " + HELD_COMMAND]  # once, in place, before what came next
        assert not any("lines before" in row for row in rows)
        term.send(CTRL_D)
        assert term.wait() == 0


def test_no_colour_keeps_the_live_area_and_a_dumb_terminal_gets_plain_lines(tmp_path):
    waiting = HELD_COMMAND + "; echo out"
    turns = [{"content": [text("Looking."), call("bash", command=waiting)]},
             {"content": [text("Done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns), env={"NO_COLOR": "1"}) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.wait_screen(lambda vt: any(" running $ while [ ! -e go ]" in line
                                        for line in vt.lines()))  # the status line stays
        (tmp_path / "go").write_text("")
        term.expect_screen("Done.")
        term.expect_screen("context ")  # the run is over: Ctrl-D now quits
        term.send(CTRL_D)
        assert term.wait() == 0
        assert not re.search(r"\x1b\[[0-9;]*m", term.text)  # no colour; cursor codes kept
    with repl(tmp_path, *scripted(tmp_path, turns), env={"TERM": "dumb"}) as term:
        term.expect("> ")
        term.send("go\r")
        term.expect("Looking.")  # printed once finished; the command runs now
        term.send("and the docs\r")  # steering: no queue is drawn, a line says it
        term.expect("↳ steering: and the docs")
        (tmp_path / "go").write_text("")
        term.expect("Done.")
        term.expect("> ")
        term.send(CTRL_D)
        assert term.wait() == 0
        assert "\x1b" not in term.text  # no colour, no cursor codes, no paste marks


def test_the_demo_plays_in_the_repl_and_leaves_it_open(tmp_path):
    with repl(tmp_path, "--demo") as term:
        term.expect_screen("Hello, world!")
        term.expect_screen("context ")
        term.send("what now?\r")
        term.expect_screen("This is miniagent's demo")
        term.expect_screen("context ")  # the run is over
        term.send(CTRL_D)
        assert term.wait() == 0


def test_the_input_area_is_whole_after_a_resize(tmp_path):
    turns = [{"content": [HELD_CALL]},
             {"content": [text("Done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("running $ while")
        term.send("a line typed before the window shrinks")
        term.wait_screen(lambda vt: "> a line typed before the window shrinks" in vt.lines())
        term.resize(30, 20)
        # the rule, for 30 columns, in a whole frame (one larger than a read of the pty)
        term.wait_screen(lambda vt: "─" * 29 in vt.lines() and not vt.in_frame)
        rows = term.visible()
        editor = [row for row in rows[rows.index("─" * 29) + 1:] if row]
        assert editor == ["> a line typed before the wi", "  ndow shrinks"]  # wrapped
        live = rows[rows.index("─" * 29) - 1:]  # the status line, the rule, the editor
        assert rows.count("─" * 29) == 1 and all(len(row) <= 29 for row in live)
        assert live[0].startswith(tuple("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")) and " running $ while" in live[0]
        (tmp_path / "go").write_text("")
        term.expect_screen("Done.")
        term.expect_screen("context")  # the run is over (the footer wraps at 30 columns)
        term.send("\x15" + CTRL_D)
        assert term.wait() == 0


def test_sigterm_ends_the_repl_with_143_and_nothing_left_running(tmp_path):
    turns = [{"content": [call("bash", command=SLOW_COMMAND)]}]
    with repl(tmp_path, *scripted(tmp_path, turns), "start") as term:
        pids = shown_pids(term)
        term.process.send_signal(signal.SIGTERM)
        term.process.send_signal(signal.SIGTERM)  # a second one must not skip the cleanup
        assert term.wait() == 143
        assert all(wait_gone(pid) for pid in pids)


def small_window(home, server, window=400):
    """A provider for the test server with a small window, so that a short conversation
    has something to compact."""
    home.mkdir(exist_ok=True)
    (home / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": server.base_url + "/v1", "api": "openai-completions",
        "models": [{"id": "fake-model", "contextWindow": window, "maxTokens": 100}]}}}))
    return ["--provider", "fake"]


def test_session_commands_and_a_shell_command_in_a_terminal(tmp_path):
    turns = [{"content": [text("Answer one.")]}, {"content": [text("Answer two.")]},
             {"content": [text("## Goal\nKeep the facts.")]}]
    home = tmp_path / "home"
    with FakeServer(turns) as server, repl(tmp_path, *small_window(home, server)) as term:
        # The prompt and tools alone exceed 400 tokens: one line says so; the REPL stays open
        term.expect("tool definitions take about ")
        term.expect("more than this model's 400-token window: try --tools read, --no-tools")
        term.expect_screen(READY)
        term.send("alpha " * 40 + "\r")
        term.expect_screen("Answer one.")
        term.send("bravo " * 200 + "\r")
        term.expect_screen("Answer two.")
        term.expect_screen("context ")  # the run is over: a command is taken, not refused
        term.send("/session\r")
        term.expect_screen("cost ")
        path = next((home / "sessions").rglob("*.jsonl"))
        term.send("/compact\r")
        term.expect_screen("compacted: ")
        term.send("/tree\r")
        term.wait_screen(picker_open)  # picked from a list here; on TERM=dumb printed
        tree = "\n".join(picker_rows(term.vt))
        bravo_id = re.search(r"([0-9a-f]{8})  user: bravo", tree).group(1)
        assert "[compaction]" in tree and "← here" in tree
        term.send(ESC)
        term.wait_screen(lambda vt: editor_line_of(vt) == "> " and not picker_open(vt))
        term.send(f"/tree {bravo_id}\r")  # an id given: no list
        term.expect_screen("summarise the branch you leave? [y/N]")
        term.send("\r")
        term.expect_screen("its text is in the input line")
        term.wait_screen(lambda vt: (editor_line_of(vt) or "").startswith("> bravo bravo"))
        term.send("\x15")  # Ctrl-U: clear the line
        term.send("/export notes.md\r")
        term.expect_screen(f"wrote {tmp_path / 'notes.md'}")
        term.send("!echo from-the-shell\r")
        term.expect_screen("$ echo from-the-shell")
        term.expect_screen("    from-the-shell")
        term.send(CTRL_D)
        assert term.wait() == 0
    branch = (tmp_path / "notes.md").read_text()  # the branch moved back to: before bravo
    assert "Answer one." in branch and "bravo" not in branch
    recorded = [json.loads(line) for line in open(path)]
    assert [e["message"]["role"] for e in recorded if e["type"] == "message"][-1] == (
        "bashExecution")
    with FakeServer([]) as server, repl(tmp_path, *small_window(home, server), "-c") as term:
        # -c: the session again, its last exchange shown as a reminder
        term.expect_screen("> alpha alpha")
        term.expect_screen("Answer one.")
        term.send("/quit\r")
        assert term.wait() == 0


def test_resume_and_tree_pick_in_a_list_filtered_by_typing_moved_with_arrows(tmp_path):
    turns = [{"content": [text("About certificates.")]}, {"content": [text("About tabs.")]},
             {"content": [text("Tabs, then.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        for prompt, answer in (("the x509 certificate error", "About certificates."),
                               ("tabs or spaces", "About tabs.")):
            term.send(prompt + "\r")
            term.expect_screen(answer)
            term.expect_screen("context ")
            term.send("/new\r")
            term.expect_screen("new session")
        term.send("/resume\r")
        term.wait_screen(picker_open)
        rows = picker_rows(term.vt)
        assert len(rows) == 2 and rows[0].startswith("> ") and rows[0].endswith("tabs or spaces")
        term.send(ESC)  # cancelled: the editor is back, nothing resumed
        term.wait_screen(lambda vt: editor_line_of(vt) == "> " and not picker_open(vt))
        term.send("/resume\r")
        term.wait_screen(picker_open)
        term.send("X509")  # typing filters, in any case
        term.wait_screen(lambda vt: picker_open(vt, "X509") and len(picker_rows(vt)) == 1)
        assert picker_rows(term.vt)[0].endswith("the x509 certificate error")
        term.send("\r")
        term.expect_screen("Resume which session? just now the x509 certificate error")
        term.send("tabs, then?\r")
        term.expect_screen("Tabs, then.")
        term.expect_screen("context ")
        term.send("/tree\r")
        term.wait_screen(picker_open)  # the entry the session is at is selected
        assert picker_rows(term.vt)[-1].startswith("> ") and "← here" in picker_rows(term.vt)[-1]
        term.send("\x1b[A\x1b[A\x1b[A")  # Up three times: past the answers to the prompt
        term.wait_screen(lambda vt: any(row.startswith("> ") and "user: the x509" in row
                                        for row in picker_rows(vt)))
        term.send("\r")
        term.expect_screen("summarise the branch you leave? [y/N]")
        term.send("\r")
        term.expect_screen("its text is in the input line")
        term.wait_screen(lambda vt: editor_line_of(vt) == "> the x509 certificate error")
        term.send("\x15" + CTRL_D)
        assert term.wait() == 0


def test_model_picks_from_the_usable_models_first_and_marks_the_others(tmp_path):
    with socket.socket() as sock:  # Ollama's address: a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{sock.getsockname()[1]}"
    env = {"GROQ_API_KEY": "k", "OLLAMA_HOST": nobody}
    with FakeServer([]) as server, repl(tmp_path, *served(server), env=env) as term:
        term.expect_screen(READY)
        term.send("/model\r")
        term.wait_screen(picker_open)
        rows = picker_rows(term.vt)
        assert rows[0].startswith("> openai-compatible/fake-model ") and rows[0].endswith(
            "(current)")
        first_lacking = next(i for i, row in enumerate(rows) if "no key: set" in row)
        assert all(row.split()[0].startswith("groq/") for row in rows[1:first_lacking])
        term.send("sonnet")
        term.wait_screen(lambda vt: picker_open(vt, "sonnet") and picker_rows(vt))
        assert all(row.endswith("no key: set ANTHROPIC_API_KEY") for row in picker_rows(term.vt)
                   if "anthropic/" in row.split()[1])
        term.send(ESC)
        term.wait_screen(lambda vt: editor_line_of(vt) == "> " and not picker_open(vt))
        term.send("/model\r")
        term.wait_screen(picker_open)
        term.send("8b-instant\r")
        term.expect_screen("model: groq/llama-3.1-8b-instant")
        term.send(CTRL_D)
        assert term.wait() == 0


def test_ctrl_c_at_the_start_up_trust_question_quits_with_130_and_records_nothing(tmp_path):
    (tmp_path / ".miniagent" / "skills").mkdir(parents=True)
    with FakeServer([{"content": [text("never asked")]}]) as server, \
            repl(tmp_path, *served(server)) as term:
        term.expect_screen("[y/N]")
        term.ctrl_c()  # once the question waits for a key (see pty_driver.Terminal.ctrl_c)
        assert term.wait() == 130
        assert READY not in term.vt.transcript()  # the REPL never opened
        assert "─" * 99 not in term.screen()  # the question's editor is wiped, not left
    assert server.requests == []
    assert not (tmp_path / "home" / "trust.json").exists()


def test_ctrl_d_while_the_agent_works_quits_once_it_is_done(tmp_path):
    turns = [{"content": [HELD_CALL]},
             {"content": [text("Finished.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("go\r")
        term.expect_screen("running $ while")
        term.send(CTRL_D)
        term.expect_screen("quitting when the agent is done")
        (tmp_path / "go").write_text("")
        assert term.wait() == 0
        assert "Finished." in term.screen()  # the run was not cut short


def fault_server_home(tmp_path):
    """A miniagent home whose mcp.json names the scripted fault server (tests/mcp/)."""
    import sys
    from pathlib import Path
    home = tmp_path / "home"
    home.mkdir()
    fault = str(Path(__file__).parents[2] / "mcp" / "fault_server.py")
    (home / "mcp.json").write_text(json.dumps({"mcpServers": {"fault": {
        "command": sys.executable, "args": [fault, "normal"],
        "env": {"FAULT_PID_FILE": str(tmp_path / "pids")}}}}))
    return tmp_path / "pids"


@pytest.mark.parametrize("leave", ["ctrl-d", "sigterm"])
def test_mcp_tools_in_the_repl_and_no_server_left_when_it_ends(tmp_path, leave):
    pid_file = fault_server_home(tmp_path)
    turns = [{"content": [call("mcp__fault__echo", text="from the server")]},
             {"content": [text("Echoed.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns)) as term:
        term.expect_screen(READY)
        term.send("echo it\r")
        term.expect_screen("Echoed.")
        term.expect_screen("context ")  # the run's footer: the prompt takes commands again
        assert any(line.strip() == "from the server" for line in term.screen())
        term.send("/mcp\r")
        term.expect_screen("tools: echo, add")
        if leave == "ctrl-d":
            term.send(CTRL_D)
            assert term.wait() == 0
        else:
            term.process.send_signal(signal.SIGTERM)
            assert term.wait() == 143
    assert any(line.startswith("fault  connected  stdio") for line in term.screen())
    pids = [int(pid) for pid in pid_file.read_text().split()]
    assert pids and all(wait_gone(pid) for pid in pids)


UI_EXTENSION = '''
from pathlib import Path


def setup(api):
    def start(event):
        api.ctx.ui.set_status("lint", "2 warnings")
        api.ctx.ui.set_widget("todo", ["todo: 3 open", "next: docs"])

    def pick(argument):
        return f"picked {api.ctx.ui.select('Which colour?', ['red', 'green'])}"

    def gate(event):
        if not api.ctx.ui.confirm("Allow bash?", event["args"]["command"]):
            return {"block": True, "reason": "the user said no"}

    def shutdown(event):
        with open(Path(api.cwd) / "shutdown.log", "a") as log:
            log.write(event["reason"] + "\\n")

    api.on("session_start", start)
    api.register_command("pick", pick, "pick a colour")
    api.before_tool_call(gate)
    api.on("session_shutdown", shutdown)
'''


def ui_extension(tmp_path):
    (tmp_path / "ui_ext.py").write_text(UI_EXTENSION)
    return ["-e", str(tmp_path / "ui_ext.py")]


def test_an_extensions_status_widget_and_questions_in_the_repl(tmp_path):
    turns = [{"content": [call("bash", command="echo ran > ran.txt")]},
             {"content": [call("bash", command="echo no > no.txt")]},
             {"content": [text("Done.")]}]
    with repl(tmp_path, *scripted(tmp_path, turns), *ui_extension(tmp_path)) as term:
        term.expect_screen(READY)
        term.wait_screen(lambda vt: rows_in_order(vt, "lint: 2 warnings", "┆ todo: 3 open"))
        rows = term.visible()
        rule = next(row for row in rows if row.startswith("─"))
        assert rows.index("┆ next: docs") < rows.index(rule)  # above the input
        term.send("/pick\r")  # a command's question: on the main thread, in the editor
        term.expect_screen("2. green")
        term.send("2\r")
        term.expect_screen("picked green")
        term.send("go\r")  # a tool hook's question: on the agent's thread
        term.expect_screen("Allow bash?")
        term.send("y\r")
        term.expect_screen("echo no > no.txt [y/N]")
        term.send("\r")  # Enter alone: no
        term.expect_screen("Done.")
        term.send(CTRL_D)
        assert term.wait() == 0
    assert (tmp_path / "ran.txt").exists() and not (tmp_path / "no.txt").exists()
    assert (tmp_path / "shutdown.log").read_text() == "quit\n"


def test_sigterm_tells_extensions_session_shutdown_once(tmp_path):
    with repl(tmp_path, *scripted(tmp_path, []), *ui_extension(tmp_path)) as term:
        term.expect_screen("lint: 2 warnings")
        term.process.send_signal(signal.SIGTERM)
        assert term.wait() == 143
    assert (tmp_path / "shutdown.log").read_text() == "quit\n"
