"""--confirm: the user sees each bash/edit/write call and may refuse it; a refusal reaches the model."""

import io
import os
import select
import threading

from helpers import call, make_agent, text
from miniagent.modes.confirm import (ConfirmGate, always_allowed_text, compose_before_hooks, describe_for_confirmation,
                               no_terminal_available, terminal_asker)
from miniagent.tools import create_tools


def tool_texts(agent):
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "toolResult"]


def run_bash(gate, tmp_path, *commands):
    agent = make_agent([{"content": [call("bash", command=c) for c in commands]},
                        {"content": [text("done")]}], create_tools(["bash"]), cwd=str(tmp_path))
    agent.before_tool_call = gate
    agent.prompt("go")
    return agent


class Answers:
    """An ask function that replies from a list and keeps the questions."""

    def __init__(self, *replies):
        self.replies, self.questions = list(replies), []

    def __call__(self, question):
        self.questions.append(question)
        return self.replies.pop(0)


def test_no_blocks_the_call_and_the_model_reads_the_refusal(tmp_path):
    answers = Answers("n\n")
    agent = run_bash(ConfirmGate(answers), tmp_path, "touch ran")
    assert not (tmp_path / "ran").exists()
    assert answers.questions == ["bash wants to run:\n  touch ran\nRun it? [y]es, [n]o, [a]lways: "]
    result = [m for m in agent.messages if m["role"] == "toolResult"][0]
    assert result["isError"] is True
    assert result["content"][0]["text"] == ("The user refused this bash call, so it did not run. "
                                            "Ask the user how to go on, or try another way.")


def test_yes_runs_it_and_always_stops_asking(tmp_path):
    answers = Answers("y", "A")
    gate = ConfirmGate(answers)
    run_bash(gate, tmp_path, "touch one")
    run_bash(gate, tmp_path, "touch two")
    run_bash(gate, tmp_path, "touch three")
    assert len(answers.questions) == 2  # "a" answered the second and every later call
    assert all((tmp_path / name).exists() for name in ("one", "two", "three"))


def test_always_is_for_one_tool_and_reset_asks_again(tmp_path):
    answers = Answers("a", "n", "y")
    gate = ConfirmGate(answers)
    agent = make_agent([{"content": [call("write", path="a.txt", content="hi\n")]},
                        {"content": [call("write", path="b.txt", content="ho\n")]},
                        {"content": [call("bash", command="touch ran")]},
                        {"content": [text("done")]}], create_tools(["write", "bash"]),
                       cwd=str(tmp_path))
    agent.before_tool_call = gate
    agent.prompt("go")
    assert [q.split(" ")[0] for q in answers.questions] == ["write", "bash"]  # b.txt unasked
    assert (tmp_path / "b.txt").exists() and not (tmp_path / "ran").exists()
    assert always_allowed_text(gate) == "always allowed: write"
    assert gate.reset_always() == ["write"] and always_allowed_text(gate) == ""
    run_bash(gate, tmp_path, "touch ran")  # asked again: "y"
    assert len(answers.questions) == 3 and (tmp_path / "ran").exists()


def test_end_of_input_empty_or_anything_else_means_no(tmp_path):
    def end_of_input(question):
        raise EOFError

    for ask in (Answers(""), Answers("  \n"), Answers("maybe"), end_of_input):
        run_bash(ConfirmGate(ask), tmp_path, "touch ran")
        assert not (tmp_path / "ran").exists()


def test_tools_that_are_not_gated_run_unasked(tmp_path):
    (tmp_path / "a.txt").write_text("hello\n")
    answers = Answers()
    agent = make_agent([{"content": [call("read", path="a.txt")]}, {"content": [text("ok")]}],
                       create_tools(["read"]), cwd=str(tmp_path))
    agent.before_tool_call = ConfirmGate(answers)
    agent.prompt("go")
    assert answers.questions == [] and "hello" in tool_texts(agent)[0]


def test_parallel_calls_are_asked_one_at_a_time(tmp_path):
    first_asked, second_asked = threading.Event(), threading.Event()
    overlapped = []

    def ask(question):
        if first_asked.is_set():
            second_asked.set()
            return "y"
        first_asked.set()
        # Give the other call a (generous) chance to reach ask() while this one is open.
        overlapped.append(second_asked.wait(0.3))
        return "y"

    agent = run_bash(ConfirmGate(ask), tmp_path, "touch one", "touch two")
    assert overlapped == [False] and second_asked.is_set()
    assert (tmp_path / "one").exists() and (tmp_path / "two").exists()
    assert len(tool_texts(agent)) == 2


def test_what_the_question_shows_for_each_tool():
    assert describe_for_confirmation("bash", {"command": "cd src &&\nmake"}) == \
        "bash wants to run:\n  cd src &&\n  make"
    content = "".join(f"line {i}\n" for i in range(1, 26))
    shown = describe_for_confirmation("write", {"path": "notes.txt", "content": content})
    assert shown.startswith(f"write wants to write notes.txt ({len(content)} bytes, 25 lines):\n"
                            "  line 1\n  line 2\n")
    assert shown.endswith("  line 20\n  ... (5 more lines)")
    edit = describe_for_confirmation("edit", {"path": "app.py", "edits": [
        {"oldText": "a = 1\nb = 2\n", "newText": "a = 1\nb = 3\n"}]})
    assert edit.startswith("edit wants to change app.py:\n")
    assert edit.endswith("\n   1 a = 1\n  -2 b = 2\n  +2 b = 3")


def test_a_control_character_in_the_command_is_shown_not_obeyed():
    answers = Answers("n")
    ConfirmGate(answers)({"toolCall": {"name": "bash"}, "args": {"command": "echo \x1b[2J"}})
    assert "\x1b" not in answers.questions[0] and "\u241b[2J" in answers.questions[0]


def test_extensions_run_first_and_the_question_shows_the_final_arguments(tmp_path):
    answers = Answers("y")

    def rewrite(event):
        return {"arguments": {"command": "touch safer"}}

    run_bash(compose_before_hooks(rewrite, ConfirmGate(answers)), tmp_path, "touch ran")
    assert "touch safer" in answers.questions[0]
    assert (tmp_path / "safer").exists() and not (tmp_path / "ran").exists()


def test_a_call_an_extension_blocks_is_never_asked_about(tmp_path):
    answers = Answers()
    agent = run_bash(compose_before_hooks(lambda e: {"block": True, "reason": "Nope."},
                                          ConfirmGate(answers)), tmp_path, "touch ran")
    assert answers.questions == [] and tool_texts(agent) == ["Nope."]
    assert compose_before_hooks(None, None) is None


def test_a_gate_that_breaks_blocks_the_call(tmp_path):
    def broken_terminal(question):
        raise RuntimeError("terminal gone")

    reported = []
    run_bash(compose_before_hooks(None, ConfirmGate(broken_terminal), reported.append),
             tmp_path, "touch ran")
    assert not (tmp_path / "ran").exists()
    assert reported == ["--confirm: before_tool_call failed, so the call was blocked: "
                        "RuntimeError: terminal gone"]


def read_until(fd, wanted, timeout=60.0):
    """What the terminal showed, read until `wanted` appears: a pty passes output on
    asynchronously, so one read may return only part of it."""
    shown = b""
    while wanted not in shown and select.select([fd], [], [], timeout)[0]:
        shown += os.read(fd, 1000)
    return shown


def test_terminal_asker_uses_the_tty_when_stdin_is_a_pipe():
    controller, device = os.openpty()
    try:
        os.write(controller, b"y\n")
        ask = terminal_asker(stdin=io.StringIO("piped prompt"), tty_path=os.ttyname(device))
        assert ask("Run it? ") == "y\n"
        assert b"Run it? " in read_until(controller, b"Run it? ")
    finally:
        os.close(controller)
        os.close(device)


def test_no_terminal_at_all_is_detected(tmp_path):
    assert no_terminal_available(stdin=io.StringIO(""), tty_path=str(tmp_path / "no-tty"))
    controller, device = os.openpty()
    try:
        assert not no_terminal_available(stdin=io.StringIO(""), tty_path=os.ttyname(device))
    finally:
        os.close(controller)
        os.close(device)
