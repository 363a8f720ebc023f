"""What the views show: folded results, the footer, and the live view's screen."""

import io

from pty_driver import screen_of

from miniagent.modes.interactive.liveview import LiveView
from miniagent.models.registry import Model
from miniagent.modes.render import Notices, StepPrinter, cost_text, fold_result, footer_text
from miniagent.modes.terminal import Screen


class FakeTerminal(io.StringIO):
    """An in-memory stream that says it is a terminal."""

    def isatty(self):
        return True


def view_on(env, out=None):
    out = out if out is not None else FakeTerminal()
    return LiveView(Screen(out, env=env)), out


def delta(kind, text=""):
    return {"type": "message_update", "assistantMessageEvent": {"type": kind, "delta": text}}


def reply(stop_reason="stop", error="", output=5, total=1000):
    usage = {"input": 10, "output": output, "cacheRead": 3, "cacheWrite": 0,
             "totalTokens": total, "cost": {"total": 0.0}}
    return {"type": "message_end", "message": {"role": "assistant", "content": [],
                                               "stopReason": stop_reason,
                                               "errorMessage": error, "usage": usage}}


def start(call_id, command):
    return {"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash",
            "args": {"command": command}}


def end(call_id, command, output, is_error=False):
    return {"type": "tool_execution_end", "toolCallId": call_id, "toolName": "bash",
            "args": {"command": command}, "isError": is_error,
            "result": {"content": [{"type": "text", "text": output}]}}


def update(call_id, output):
    return {"type": "tool_execution_update", "toolCallId": call_id, "toolName": "bash",
            "partialResult": {"content": [{"type": "text", "text": output}]}}


def test_fold_keeps_five_lines_and_counts_the_rest_an_error_keeps_its_end():
    sixty = "\n".join(str(n) for n in range(1, 61))
    assert fold_result(sixty, False) == ["1", "2", "3", "4", "5", "… 55 more lines"]
    assert fold_result(sixty, True) == ["… 55 lines before", "56", "57", "58", "59", "60"]
    assert fold_result("a\n\n\nb\n", False) == ["a", "b"]
    assert fold_result("", False) == ["(no output)"]


def test_the_footer_shows_tokens_cost_and_context():
    priced = Model("m", "p", "openai-completions", context_window=200_000,
                   cost={"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 0})
    usage = {"input": 1200, "output": 80, "cacheRead": 1024, "cost": 0.0042}
    assert footer_text(usage, 4000, priced) == (
        "1,200 in · 80 out · 1,024 cached · $0.0042 · context 2% of 200k")
    assert cost_text(1.5, priced) == "$1.50"


def test_cost_is_free_for_a_registry_model_without_prices_and_unknown_otherwise(
        tmp_path, monkeypatch):
    monkeypatch.setenv("MINIAGENT_HOME", str(tmp_path))
    assert cost_text(0.0, Model("qwen2.5-coder:7b", "ollama", "openai-completions")) == "$0.00"
    assert cost_text(0.0, Model("my-local-model", "ollama", "openai-completions")) == (
        "cost unknown")


def test_text_streams_once_thinking_is_dim_and_control_codes_are_shown_not_sent():
    view, out = view_on({"TERM": "xterm"})
    for event in [{"type": "agent_start"}, delta("thinking_delta", "hmm"),
                  delta("thinking_end"), delta("text_delta", "Hello \x1b]0;owned\x07"),
                  delta("text_delta", "world"), delta("text_end"), reply()]:
        view(event)
    view.show_footer(Model("m", "scripted", "scripted"))
    view.close()
    assert "\x1b[2mhmm\x1b[0m" in out.getvalue()
    assert "\x1b]0" not in out.getvalue()
    assert screen_of(out.getvalue()) == [
        "hmm", "Hello \u241b]0;owned\u2407world",
        "10 in · 5 out · 3 cached · $0.00 · context 1% of 128k", ""]


def test_parallel_calls_print_each_result_under_its_call_and_the_live_window_goes():
    view, out = view_on({"TERM": "xterm"})
    view(start("a", "sleep 1; echo A"))
    view(start("b", "seq 1 60"))
    view(update("b", "\n".join(str(n) for n in range(1, 40))))
    assert screen_of(out.getvalue())[-5:] == ["    35", "    36", "    37", "    38", "    39"]
    view(end("a", "sleep 1; echo A", "A"))
    view(end("b", "seq 1 60", "Traceback\nboom\nexit 1", is_error=True))
    view({"type": "agent_end", "messages": []})
    view.close()
    assert screen_of(out.getvalue()) == [
        "  $ sleep 1; echo A", "    A", "  $ seq 1 60", "    ! Traceback", "    ! boom",
        "    ! exit 1", ""]

    plain, out = view_on({"TERM": "xterm", "NO_COLOR": "1"})  # the same, as plain text
    plain(start("a", "sleep 1; echo A"))
    plain(update("a", "A"))
    plain(end("a", "sleep 1; echo A", "A"))
    plain.close()
    assert "\x1b" not in out.getvalue() and "    A" in out.getvalue()


def test_no_codes_at_all_on_a_dumb_terminal_or_into_a_pipe():
    for env, out in (({"TERM": "dumb"}, FakeTerminal()), ({"TERM": "xterm"}, io.StringIO())):
        view, out = view_on(env, out)
        for event in [{"type": "agent_start"}, delta("text_delta", "Looking."),
                      delta("text_end"), start("a", "ls"), update("a", "x"),
                      end("a", "ls", "x"), reply("error", "503 overloaded"),
                      {"type": "agent_end", "messages": []}]:
            view(event)
        view.show_footer(Model("m", "scripted", "scripted"))
        view.close()
        assert out.getvalue().startswith("Looking.\n  $ ls\n    x\nerror: 503 overloaded\n")


def test_a_retry_notice_counts_the_retries_of_three_on_one_line():
    notices = Notices()
    assert notices({"type": "auto_retry_start", "attempt": 2, "maxAttempts": 3,
                    "delayMs": 4000, "errorMessage": "503 Slow\ndown"}) == (
        "retrying in 4 s (2 of 3): 503 Slow down")
    assert notices({"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3,
                    "delayMs": 1734, "errorMessage": "x" * 300}) == (
        "retrying in 1.7 s (1 of 3): " + "x" * 197 + "...")
    assert notices({"type": "auto_retry_end", "success": False, "attempt": 3,
                    "finalError": "503 overloaded"}) is None  # the front end says it, once
    assert notices({"type": "agent_start"}) is None


def test_the_terminal_shows_each_failure_once_the_retried_ones_in_their_notices():
    view, out = view_on({"TERM": "dumb"}, FakeTerminal())
    for retry in (1, 2, 3):
        view(reply("error", "500 boom"))
        view({"type": "agent_end", "messages": []})
        view({"type": "auto_retry_start", "attempt": retry, "maxAttempts": 3,
              "delayMs": 1000 * 2 ** retry, "errorMessage": "500 boom"})
    view(reply("error", "500 boom"))
    view({"type": "agent_end", "messages": []})
    view({"type": "auto_retry_end", "success": False, "attempt": 3, "finalError": "500 boom"})
    view.show_footer(Model("m", "scripted", "scripted"))
    view.close()
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["retrying in 2 s (1 of 3): 500 boom", "retrying in 4 s (2 of 3): 500 boom",
                         "retrying in 8 s (3 of 3): 500 boom", "error: 500 boom"]
    assert sum("500 boom" in line for line in lines) == 4


def test_automatic_compaction_is_one_line_when_it_starts_and_one_when_it_ends():
    notices = Notices()
    assert notices({"type": "compaction_start", "reason": "threshold"}) == (
        "compacting the conversation: the context is nearly full")
    assert notices({"type": "compaction_end", "aborted": False, "willRetry": False,
                    "result": {"tokensBefore": 41200}}) == (
        "compacted: 41,200 tokens of older conversation are now a summary")
    assert notices({"type": "compaction_end", "result": None, "aborted": False,
                    "errorMessage": "Auto-compaction failed: no reply"}) == (
        "Auto-compaction failed: no reply")


def test_print_mode_shows_the_notices_even_without_the_steps():
    out = io.StringIO()
    printer = StepPrinter(out, show_steps=False)
    for event in [{"type": "agent_start"}, start("a", "ls"),
                  {"type": "auto_retry_start", "delayMs": 500, "errorMessage": "503 busy",
                   "attempt": 1, "maxAttempts": 3},
                  {"type": "compaction_start", "reason": "overflow"}]:
        printer(event)
    assert out.getvalue() == (
        "  retrying in 0.5 s (1 of 3): 503 busy\n"
        "  compacting the conversation: the last request did not fit the model's window\n")


def test_a_question_keeps_the_live_area_away_until_it_is_answered():
    view, out = view_on({"TERM": "xterm"})
    view(start("a", "make"))
    view.ask("bash wants to run:\n  make\nRun it? [y]es, [n]o, [a]lways: ")
    view(update("a", "building"))  # the live window would draw here; it must not
    assert screen_of(out.getvalue()) == ["bash wants to run:", "  make",
                                         "Run it? [y]es, [n]o, [a]lways: "]
    out.write("y\n")  # the terminal echoes the answer and its Enter
    view.answered(line_ended=True)
    view(end("a", "make", "built"))
    view.close()
    assert screen_of(out.getvalue())[2:] == ["Run it? [y]es, [n]o, [a]lways: y", "  $ make",
                                             "    built", ""]
