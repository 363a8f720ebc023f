"""Extensions' ctx.ui in the REPL (extension_ui.py): the lines the live area shows for
statuses and widgets, and a question's answer read back as confirm and select read it."""

import threading

from miniagent.modes.interactive.extension_ui import WIDGET_LINES, ExtensionArea, ReplUI
from miniagent.tui.style import Style

DIM, RESET = "\x1b[2m", "\x1b[0m"


def test_statuses_share_one_dim_line_in_the_order_set_and_none_clears_one():
    area = ExtensionArea(Style(True))
    assert area.render(40) == []
    area.set_status("runs", "run 2\nof this session")
    area.set_status("lint", "ok")
    assert area.render(40) == [f"{DIM}runs: run 2 of this session · lint: ok{RESET}"]
    area.set_status("runs", None)
    assert area.render(40) == [f"{DIM}lint: ok{RESET}"]
    area.set_status("runs", "again")
    assert area.render(12) == [f"{DIM}lint: ok · r{RESET}"]  # cut to the width


def test_a_widget_shows_a_few_plain_lines_and_none_removes_it():
    area = ExtensionArea(Style(False))
    area.set_widget("todo", ["3 open", "red \x1b[31m"] + ["more"] * 10)
    area.set_status("k", "v")
    lines = area.render(40)
    assert lines[:3] == ["k: v", "┆ 3 open", "┆ red \u241b[31m"]  # no escape reaches the tty
    assert len(lines) == 1 + WIDGET_LINES
    area.set_widget("todo", None)
    assert area.render(40) == ["k: v"]


class FakeScreen:
    live_area = False


class FakeRepl:
    """What ReplUI uses of the REPL: its answers scripted, the way each was asked kept."""

    def __init__(self, answer):
        self.screen, self.stopping, self.answer, self.asked = FakeScreen(), False, answer, []

    def note(self, text):
        self.asked.append(("note", text))

    def ask(self, question):  # the main thread's question (in the editor)
        self.asked.append(("editor", question))
        return self.answer

    def ask_confirmation(self, question):  # the agent's thread's (PendingAnswer)
        self.asked.append(("pending", question))
        return self.answer or ""


def on_worker(function):
    result = []
    worker = threading.Thread(target=lambda: result.append(function()))
    worker.start()
    worker.join()
    return result[0]


def test_confirm_asks_in_the_editor_on_the_main_thread_and_through_the_handoff_on_the_worker():
    repl = FakeRepl("y")
    ui = ReplUI(repl)
    assert ui.has_ui and ui.confirm("Move?", "the branch is left") is True
    assert on_worker(lambda: ui.confirm("Move?", "again")) is True
    assert [how for how, _ in repl.asked] == ["editor", "pending"]
    assert repl.asked[0][1] == "Move?\nthe branch is left [y/N] "
    repl.answer = None  # Esc, Ctrl-C or the end of input
    assert ui.confirm("Move?", "x") is False


def test_select_takes_a_number_or_an_option_and_anything_else_is_none():
    repl = FakeRepl("2")
    ui = ReplUI(repl)
    assert ui.select("Which?", ["alpha", "beta"]) == "beta"
    assert "  1. alpha\n  2. beta\n" in repl.asked[0][1]
    for answer, chosen in (("beta", "beta"), ("3", None), ("", None), (None, None)):
        repl.answer = answer
        assert ui.select("Which?", ["alpha", "beta"]) == chosen


def test_after_a_stop_signal_nothing_is_asked_and_the_answer_is_no():
    repl = FakeRepl("y")
    repl.stopping = True
    assert ReplUI(repl).confirm("Move?", "x") is False and repl.asked == []


def test_without_a_live_area_a_status_is_a_note():
    repl = FakeRepl("y")
    ReplUI(repl).set_status("runs", "run 2")
    assert repl.asked == [("note", "miniagent: runs: run 2")]


def test_without_a_live_area_a_widget_is_a_block_of_notes_when_it_changes():
    repl = FakeRepl("y")
    ui = ReplUI(repl)
    ui.set_widget("todo", ["todos: 0 of 1 completed", "[>] a"])
    ui.set_widget("todo", ["todos: 0 of 1 completed", "[>] a"])
    assert repl.asked == [("note", "miniagent: todo:"), ("note", "  todos: 0 of 1 completed"),
                          ("note", "  [>] a")]
