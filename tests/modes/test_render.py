"""What the print and JSON views show: folded results, the footer, the notices (the
terminal's run view: interactive/test_view.py)."""

import io

from miniagent.core.provider import Model
from miniagent.modes.render import Notices, StepPrinter, cost_text, fold_result, footer_text


def start(call_id, command):
    return {"type": "tool_execution_start", "toolCallId": call_id, "toolName": "bash",
            "args": {"command": command}}


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
    assert footer_text(None, 0, priced) == "usage unknown · context unknown of 200k"
    assert cost_text(1.5, priced) == "$1.50"


def test_cost_is_free_for_a_registry_model_without_prices_and_unknown_otherwise(
        tmp_path, monkeypatch):
    monkeypatch.setenv("MINIAGENT_HOME", str(tmp_path))
    assert cost_text(0.0, Model("qwen2.5-coder:7b", "ollama", "openai-completions")) == "$0.00"
    assert cost_text(0.0, Model("my-local-model", "ollama", "openai-completions")) == (
        "cost unknown")


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
