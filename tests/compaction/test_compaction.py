"""Compaction: token counts, the trigger, the cut point, what is summarized and kept
(D13 in docs/decisions.md: two compactions in a row lose nothing), and the summarizer's requests.
pi's compaction tests are here in our form."""

import threading
from dataclasses import replace

import pytest

from helpers import FIXTURES, call, text
from miniagent import providers
from miniagent.compaction.compaction import (NO_PRIOR_HISTORY, SPLIT_TURN_HEADER, compact,
                                             find_cut_point, nothing_to_compact_message,
                                             prepare_compaction)
from miniagent.compaction.estimate import (CompactionSettings, context_tokens,
                                           estimate_context_tokens, estimate_tokens,
                                           is_context_overflow, last_usable_usage, should_compact)
from miniagent.errors import CompactionError
from miniagent.http.errors import http_error_message
from miniagent.core.messages import (assistant_message, image_block, text_of, tool_result_message,
                                     user_message)
from miniagent.models.usage import estimate_tokens_of
from miniagent.providers.builder import estimate_input_tokens
from miniagent.core.scripted import parse_script, scripted_model
from miniagent.compaction.summarize import SYSTEM_PROMPT, TURN_PREFIX_PROMPT, UPDATE_PROMPT

BASE_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


# --- Building branches of plain entry dicts ----------------------------------------------------

class Branch:
    """A root -> leaf list of entries, each a second after the one before."""

    def __init__(self):
        self.entries = []

    def _add(self, kind, **fields):
        seconds = len(self.entries)
        entry = {"type": kind, "id": f"e{seconds}",
                 "parentId": self.entries[-1]["id"] if self.entries else None,
                 "timestamp": f"2026-01-01T00:{seconds // 60:02d}:{seconds % 60:02d}.000Z", **fields}
        self.entries.append(entry)
        return entry

    def message(self, message):
        message["timestamp"] = BASE_MS + 1000 * len(self.entries)
        return self._add("message", message=message)

    def turn(self, n, tool="read", request_chars=400, result="ok"):
        """One turn, every part marked with n: a user request, a tool call on file{n}.py,
        its result, and an answer."""
        self.message(user_message(f"task {n} " + "x" * request_chars))
        self.message(reply(call(tool, path=f"file{n}.py", content="new") if tool != "read"
                           else call(tool, path=f"file{n}.py")))
        self.message(tool_result_message(f"c{n}", tool, [text(f"result {n} {result}")]))
        self.message(reply(text(f"done {n}")))

    def compaction(self, result):
        return self._add("compaction", summary=result.summary,
                         firstKeptEntryId=result.first_kept_entry_id,
                         tokensBefore=result.tokens_before, details=result.details,
                         fromHook=False)


def reply(*blocks, stop="stop", usage=None):
    message = assistant_message("scripted", "scripted", "scripted", list(blocks), stop_reason=stop)
    message["usage"].update(usage or {})
    return message


def summarizer(*summaries, reasoning=False, context_window=128_000):
    """A scripted model answering with these summaries in turn, and the requests it got."""
    model = replace(scripted_model(parse_script([{"content": [text(s)]} for s in summaries])),
                    reasoning=reasoning, context_window=context_window)
    requests = []

    def stream_fn(model, context, options):
        requests.append({"system": context["systemPrompt"], "messages": context["messages"],
                         "tools": context["tools"], "text": text_of(context["messages"][0]),
                         "thinking": options.thinking, "max_tokens": options.max_tokens})
        return providers.stream(model, context, options)

    return model, stream_fn, requests


# --- Counting tokens and the trigger ------------------------------------------------------------

def test_context_tokens_prefer_the_total_and_otherwise_add_the_four_counts():
    assert context_tokens({"input": 1000, "output": 500, "cacheRead": 200, "cacheWrite": 100}) == 1800
    assert context_tokens({"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                           "totalTokens": 900}) == 900
    assert context_tokens({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}) == 0


def test_estimates_count_characters_over_four_per_kind():
    assert estimate_tokens(user_message("x" * 10)) == 3
    assistant = reply(text("Reading it."), call("read", path="a.py"))
    assert estimate_tokens(assistant) == 8  # (11 + 4 + len('{"path":"a.py"}')) / 4, rounded up
    image = {"type": "image", "data": "AA==", "mimeType": "image/png"}
    assert estimate_tokens(tool_result_message("c", "read", [text("abcd"), image])) == 1201
    assert estimate_tokens({"role": "bashExecution", "command": "ls", "output": "a.py\n"}) == 2
    assert estimate_tokens({"role": "compactionSummary", "summary": "s" * 40}) == 10
    assert estimate_tokens({"role": "somethingElse", "content": "x" * 40}) == 0


def test_the_last_usable_usage_skips_failed_replies():
    used = reply(text("a"), usage={"input": 50, "totalTokens": 50})
    aborted = reply(text("b"), stop="aborted", usage={"totalTokens": 99})
    assert last_usable_usage([user_message("q"), used, aborted])["totalTokens"] == 50
    assert last_usable_usage([user_message("q"), aborted]) is None
    assert last_usable_usage([]) is None


def test_context_estimate_is_the_reported_usage_plus_estimates_after_it():
    messages = [user_message("q" * 400), reply(text("a"), usage={"totalTokens": 1000}),
                user_message("x" * 40)]
    assert estimate_context_tokens(messages) == 1010
    assert estimate_context_tokens([user_message("x" * 40)]) == 10  # no usage: all estimates


def test_a_reply_kept_by_a_compaction_no_longer_measures_the_context():
    kept = reply(text("a"), usage={"totalTokens": 610_000})
    kept["timestamp"] = BASE_MS
    summary = {"role": "compactionSummary", "summary": "s" * 400, "tokensBefore": 610_000,
               "timestamp": BASE_MS + 5000}
    assert last_usable_usage([summary, kept]) is None
    assert estimate_context_tokens([summary, kept]) == 100 + 1


def test_the_trigger_is_the_window_minus_the_reserve():
    settings = CompactionSettings(reserve_tokens=10_000)
    assert should_compact(95_000, 100_000, settings)
    assert not should_compact(89_000, 100_000, settings)
    assert not should_compact(95_000, 100_000, CompactionSettings(enabled=False, reserve_tokens=10_000))
    # a 20,000-token window: the reserve is 5,000, so a turn that used 17,000 compacts
    assert should_compact(17_000, 20_000, CompactionSettings())


def test_reserve_and_kept_tail_scale_with_small_windows_unless_set():
    defaults = CompactionSettings()
    assert defaults.for_window(4096) == (1024, 2048)
    assert defaults.for_window(32_768) == (8192, 16_384)
    assert defaults.for_window(200_000) == (16_384, 20_000)
    assert CompactionSettings(reserve_tokens=500, keep_recent_tokens=100).for_window(4096) == (500, 100)


# --- Context overflow ----------------------------------------------------------------------------

def failed(error_message):
    return reply(stop="error") | {"errorMessage": error_message}


@pytest.mark.parametrize("error_message", [
    # OpenAI
    "400 This model's maximum context length is 128000 tokens. However, your messages "
    "resulted in 130412 tokens. Please reduce the length of the messages. (context_length_exceeded)",
    # Anthropic
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too '
    'long: 213462 tokens > 200000 maximum"}}',
    # Ollama
    "400 prompt too long; exceeded max context length by 1203 tokens",
    # vLLM
    "400 This model's maximum context length is 4096 tokens. However, you requested 5120 "
    "tokens (4096 in the messages, 1024 in the completion).",
    # Groq
    "400 Please reduce the length of the messages or completion. (context_length_exceeded)",
    # OpenRouter
    "400 This endpoint's maximum context length is 131072 tokens. However, you requested "
    "about 140000 tokens.",
    # LM Studio
    "400 The number of tokens to keep from the initial prompt is greater than the context length",
    # Cerebras
    "413 status code (no body)",
])
def test_each_servers_overflow_text_is_recognised(error_message):
    assert is_context_overflow(failed(error_message))


def test_llama_cpps_real_overflow_body_is_recognised():
    body = (FIXTURES / "llama-server" / "capture-error-context.txt").read_text()
    assert is_context_overflow(failed(http_error_message(400, body)))


def test_rate_limits_and_other_errors_are_not_overflow():
    assert not is_context_overflow(failed("429 Rate limit reached for tokens per min (TPM)"))
    assert not is_context_overflow(failed("500 Internal Server Error"))
    assert not is_context_overflow(reply(text("fine"), usage={"input": 100}), context_window=200)


def test_a_silent_overflow_is_a_normal_stop_whose_input_exceeds_the_window():
    truncated_quietly = reply(text("..."), usage={"input": 150_000, "cacheRead": 60_000})
    assert is_context_overflow(truncated_quietly, context_window=200_000)
    assert not is_context_overflow(truncated_quietly)  # without a window: cannot tell


# --- The cut point ---------------------------------------------------------------------------------

@pytest.mark.ex_cut_point
def test_the_cut_lands_on_a_user_message_and_keeps_about_the_budget():
    branch = Branch()
    for n in range(1, 5):
        branch.turn(n)  # about 118 tokens each, 102 of them in the user's request
    cut = find_cut_point(branch.entries, 0, len(branch.entries), 150)
    assert (cut.first_kept_index, cut.is_split_turn, cut.turn_start_index) == (8, False, None)
    assert branch.entries[8]["message"]["role"] == "user"


@pytest.mark.ex_cut_point
def test_a_single_entry_or_a_huge_budget_keeps_everything():
    one = Branch()
    one.message(reply(text("hello")))
    assert find_cut_point(one.entries, 0, 1, 1000).first_kept_index == 0
    branch = Branch()
    branch.turn(1)
    branch.turn(2)
    assert find_cut_point(branch.entries, 0, 8, 1_000_000).first_kept_index == 0


@pytest.mark.ex_cut_point
def test_a_cut_inside_a_turn_is_a_split_turn_and_never_separates_a_call_from_its_result():
    branch = Branch()
    branch.message(user_message("big task"))
    branch.message(reply(call("read", path="a.py")))
    branch.message(tool_result_message("c1", "read", [text("a" * 4000)]))
    branch.message(reply(call("read", path="b.py")))
    branch.message(tool_result_message("c2", "read", [text("b" * 4000)]))
    branch.message(reply(text("done")))
    cut = find_cut_point(branch.entries, 0, 6, 1200)
    assert (cut.first_kept_index, cut.is_split_turn, cut.turn_start_index) == (3, True, 0)


@pytest.mark.ex_cut_point
def test_a_huge_last_tool_result_keeps_its_call_with_it():
    branch = Branch()
    branch.message(user_message("earlier"))
    branch.message(reply(text("ok")))
    branch.message(user_message("read it"))
    branch.message(reply(call("read", path="big.log")))
    branch.message(tool_result_message("c1", "read", [text("z" * 40_000)]))
    cut = find_cut_point(branch.entries, 0, 5, 100)
    assert (cut.first_kept_index, cut.is_split_turn, cut.turn_start_index) == (3, True, 2)


@pytest.mark.ex_cut_point
def test_settings_entries_before_the_cut_go_with_the_kept_part_and_do_not_split_it():
    branch = Branch()
    branch.turn(1)
    branch._add("model_change", provider="p", modelId="m2")
    branch.turn(2)
    cut = find_cut_point(branch.entries, 0, len(branch.entries), 100)
    assert branch.entries[cut.first_kept_index]["type"] == "model_change"
    assert not cut.is_split_turn


# --- Preparation and summarizing -----------------------------------------------------------------

SMALL = CompactionSettings(keep_recent_tokens=150)


def test_nothing_to_compact_means_no_preparation_and_no_model_call():
    branch = Branch()
    branch.turn(1)
    assert prepare_compaction(branch.entries, SMALL, 128_000) is None
    assert prepare_compaction([], SMALL, 128_000) is None
    assert "Nothing to compact" in nothing_to_compact_message(branch.entries)


def test_right_after_a_compaction_there_is_nothing_to_compact():
    branch = Branch()
    for n in range(1, 5):
        branch.turn(n)
    model, stream_fn, requests = summarizer("## Goal\nFirst")
    branch.compaction(compact(prepare_compaction(branch.entries, SMALL, 20_000), model, stream_fn))
    assert prepare_compaction(branch.entries, SMALL, 20_000) is None
    assert nothing_to_compact_message(branch.entries).startswith("Already compacted")
    assert len(requests) == 1


def marker_home(marker, requests, kept_messages):
    """Where a message's marker went: the number of the summary request that held it,
    or "kept"."""
    places = [i for i, r in enumerate(requests, start=1) if marker in r["text"]]
    if any(marker in text_of(m) or marker in str(m.get("content")) for m in kept_messages):
        places.append("kept")
    return places


def test_two_compactions_in_a_row_summarize_or_keep_every_message():
    branch = Branch()
    branch.turn(1)
    branch.turn(2)
    branch.turn(3, tool="write")
    branch.turn(4)
    model, stream_fn, requests = summarizer("## Goal\nFirst summary", "## Goal\nSecond summary")

    first_prep = prepare_compaction(branch.entries, SMALL, 20_000)
    first = compact(first_prep, model, stream_fn)
    assert first.first_kept_entry_id == "e8"  # turn 3's request
    assert first.details == {"readFiles": ["file1.py", "file2.py"], "modifiedFiles": []}
    assert first.summary == ("## Goal\nFirst summary\n\n<read-files>\nfile1.py\nfile2.py\n"
                             "</read-files>")
    branch.compaction(first)
    branch.turn(5, tool="edit")
    branch.turn(6)

    second = compact(prepare_compaction(branch.entries, SMALL, 20_000), model, stream_fn)
    kept_from = next(i for i, e in enumerate(branch.entries) if e["id"] == second.first_kept_entry_id)
    kept = [e["message"] for e in branch.entries[kept_from:] if e["type"] == "message"]
    homes = {n: marker_home(f"task {n} ", requests, kept) for n in range(1, 7)}
    # turns 3 and 4 were kept by the first compaction; the second one summarizes them
    # (pi would drop them: they sit before its previous compaction entry)
    assert homes == {1: [1], 2: [1], 3: [2], 4: [2], 5: ["kept"], 6: ["kept"]}
    for n in (3, 4):
        assert f"result {n} ok" in requests[1]["text"] and f"done {n}" in requests[1]["text"]

    update = requests[1]["text"]
    assert update.startswith("<conversation>\n[User]: task 3 ")
    assert "<previous-summary>\n## Goal\nFirst summary\n</previous-summary>" in update
    assert UPDATE_PROMPT in update and "<read-files>" not in update  # lists travel in details
    assert second.details == {"readFiles": ["file1.py", "file2.py", "file4.py"],
                              "modifiedFiles": ["file3.py"]}
    assert second.summary.endswith("<read-files>\nfile1.py\nfile2.py\nfile4.py\n</read-files>"
                                   "\n\n<modified-files>\nfile3.py\n</modified-files>")


def test_the_summarizer_gets_one_user_message_no_tools_and_its_own_system_prompt():
    branch = Branch()
    for n in range(1, 5):
        branch.turn(n)
    model, stream_fn, requests = summarizer("## Goal\nS")
    compact(prepare_compaction(branch.entries, SMALL, 20_000), model, stream_fn,
            custom_instructions="the database schema")
    [request] = requests
    assert request["system"] == SYSTEM_PROMPT and request["tools"] == []
    assert [m["role"] for m in request["messages"]] == ["user"]
    assert request["text"].endswith("Pay particular attention to: the database schema")
    assert request["max_tokens"] == int(0.8 * 5000)  # 20,000-token window: reserve 5,000
    assert "[Assistant tool calls]: read(path=\"file1.py\")" in request["text"]


def test_summaries_think_hard_only_on_reasoning_models():
    for reasoning, level in ((True, "high"), (False, "off")):
        branch = Branch()
        for n in range(1, 5):
            branch.turn(n)
        model, stream_fn, requests = summarizer("## Goal\nS", reasoning=reasoning)
        compact(prepare_compaction(branch.entries, SMALL, 20_000), model, stream_fn)
        assert requests[0]["thinking"] == level


def test_tokens_before_is_what_the_context_held():
    branch = Branch()
    branch.turn(1)
    branch.message(user_message("q " + "y" * 400))
    branch.message(reply(text("a"), usage={"totalTokens": 7000}))
    branch.message(user_message("z" * 40))
    prep = prepare_compaction(branch.entries, CompactionSettings(keep_recent_tokens=20), 20_000)
    assert prep.tokens_before == 7000 + 10


def answering(reply_for):
    """A stream function whose reply text is reply_for(request text); it records the
    requests. Safe to call from two threads at once."""
    requests = []
    lock = threading.Lock()

    def stream_fn(model, context, options):
        asked = text_of(context["messages"][0])
        with lock:
            requests.append({"text": asked, "thinking": options.thinking,
                             "max_tokens": options.max_tokens})
        message = reply(text(reply_for(asked)))
        message["usage"].update(input=len(asked), output=7)
        message["usage"]["cost"]["total"] = 0.25
        yield {"type": "done", "reason": "stop", "message": message}

    return stream_fn, requests


def test_a_split_turn_summarizes_history_and_the_turns_start_separately():
    branch = Branch()
    branch.message(user_message("earlier question"))
    branch.message(reply(text("earlier answer")))
    branch.message(user_message("big task"))
    branch.message(reply(call("read", path="a.py")))
    branch.message(tool_result_message("c1", "read", [text("a" * 4000)]))
    branch.message(reply(call("edit", path="b.py")))
    branch.message(tool_result_message("c2", "edit", [text("b" * 4000)]))
    branch.message(reply(text("done")))
    prep = prepare_compaction(branch.entries, CompactionSettings(keep_recent_tokens=1200), 20_000)
    assert prep.is_split_turn and prep.first_kept_entry_id == "e5"
    model = replace(scripted_model(parse_script([])), reasoning=True)
    stream_fn, requests = answering(lambda asked: "PREFIX" if TURN_PREFIX_PROMPT in asked else "HISTORY")
    result = compact(prep, model, stream_fn)
    assert result.summary == ("HISTORY" + SPLIT_TURN_HEADER + "PREFIX" +
                              "\n\n<read-files>\na.py\n</read-files>")
    by_kind = {("prefix" if TURN_PREFIX_PROMPT in r["text"] else "history"): r for r in requests}
    assert "earlier question" in by_kind["history"]["text"] and "big task" not in by_kind["history"]["text"]
    assert "big task" in by_kind["prefix"]["text"] and "earlier" not in by_kind["prefix"]["text"]
    assert (by_kind["prefix"]["thinking"], by_kind["prefix"]["max_tokens"]) == ("off", 2500)
    assert by_kind["history"]["thinking"] == "high"
    asked = sum(len(r["text"]) for r in requests)  # both calls' usage, summed, kept with it
    usage = result.usage
    assert (usage["input"], usage["output"], usage["cost"]["total"]) == (asked, 14, 0.5)


def test_a_split_turn_with_nothing_before_it_makes_one_call():
    branch = Branch()
    branch.message(user_message("big task"))
    branch.message(reply(call("read", path="a.py")))
    branch.message(tool_result_message("c1", "read", [text("a" * 4000)]))
    branch.message(reply(call("read", path="b.py")))
    branch.message(tool_result_message("c2", "read", [text("b" * 4000)]))
    prep = prepare_compaction(branch.entries, CompactionSettings(keep_recent_tokens=1000), 20_000)
    stream_fn, requests = answering(lambda asked: "PREFIX")
    result = compact(prep, scripted_model(parse_script([])), stream_fn)
    assert len(requests) == 1 and result.summary.startswith(NO_PRIOR_HISTORY + SPLIT_TURN_HEADER)


def test_a_conversation_larger_than_the_window_loses_its_oldest_part_with_a_note():
    branch = Branch()
    for n in range(1, 41):
        branch.turn(n, request_chars=400)
    stream_fn, requests = answering(lambda asked: "S")
    window = 4096
    prep = prepare_compaction(branch.entries, CompactionSettings(keep_recent_tokens=200), window)
    compact(prep, scripted_model(parse_script([])), stream_fn)
    asked = requests[0]["text"]
    assert asked.startswith("<conversation>\n[Note: the oldest ")
    assert "task 1 " not in asked and "task 38 " in asked  # turns 39, 40 are kept
    # by the one estimate every size uses (4 characters a token), input and reply fit
    assert estimate_tokens_of(len(SYSTEM_PROMPT) + len(asked)) + requests[0]["max_tokens"] <= window


def test_a_failed_or_cancelled_summary_is_a_one_line_error():
    branch = Branch()
    for n in range(1, 5):
        branch.turn(n)
    prep = prepare_compaction(branch.entries, SMALL, 20_000)
    model = scripted_model(parse_script([{"content": [], "errorMessage": "503 Service\nUnavailable"}]))
    with pytest.raises(CompactionError) as error:
        compact(prep, model, providers.stream)
    assert str(error.value) == "Summarising the conversation failed: 503 Service Unavailable"
    assert not error.value.aborted
    stop = threading.Event()
    stop.set()
    with pytest.raises(CompactionError) as cancelled:
        compact(prep, scripted_model(parse_script([{"content": [text("S")]}])), providers.stream,
                abort=stop)
    assert cancelled.value.aborted and str(cancelled.value) == "Compaction cancelled"


def test_a_second_compaction_may_cut_before_the_first_ones_entry():
    from miniagent.session.rebuild import build_session_context
    branch = Branch()
    for n in range(1, 5):
        branch.turn(n)
    model, stream_fn, requests = summarizer("## Goal\nFirst", "## Goal\nSecond")
    branch.compaction(compact(prepare_compaction(branch.entries, SMALL, 20_000), model, stream_fn))
    branch.turn(5, request_chars=0)  # a small turn: the budget reaches back past the entry
    prep = prepare_compaction(branch.entries, CompactionSettings(keep_recent_tokens=110), 20_000)
    second = compact(prep, model, stream_fn)
    assert second.first_kept_entry_id == "e12"  # turn 4, before the first compaction entry
    branch.compaction(second)
    context = build_session_context(branch.entries).messages
    assert [m["role"] for m in context].count("compactionSummary") == 1  # the first is gone
    assert context[0]["summary"].startswith("## Goal\nSecond")
    assert [text_of(m)[:6] for m in context if m["role"] == "user"] == ["task 4", "task 5"]
    assert "task 3 " in requests[1]["text"] and "task 4 " not in requests[1]["text"]


def test_compaction_and_request_sizing_guess_the_same_size():
    """One rule (messages.estimate_tokens_of): a screenshot read by a tool costs the same
    1,200 tokens whether compaction or the request's output cap is counting."""
    shot = tool_result_message("c1", "read", [{"type": "text", "text": "x" * 10},
                                              image_block("AAAA", "image/png")])
    assert estimate_tokens(shot) == estimate_input_tokens({"messages": [shot]}) == 3 + 1200
