"""pi 1.6's session files through the command line: distinct ids in `sessions`, each one
usable with stats, export, script and --session; what the model gets after a
context_edit; usage entries counted."""

import json
import os
import shutil

import pytest

from fake_server import FakeServer
from helpers import FIXTURES, answer, run_cli, write_script
from miniagent.session.store import session_dir_for

PI16 = FIXTURES / "pi-run" / "pi-1.6.0"
DROP_ID = "01a23412-7a49-75bd-ab6a-a438c7743e50"   # drop-result: a context_edit, a usage entry
PRINT_ID = "01a23412-1227-75bd-9f18-c07e8cf5d902"  # print: one tool call


@pytest.fixture
def project(tmp_path, private_home):
    """A project whose session folder holds two of pi 1.6's sessions, made within the
    same minute (their ids share the first 8 digits)."""
    cwd = tmp_path / "proj"
    cwd.mkdir()
    folder = session_dir_for(str(cwd))
    os.makedirs(folder)
    for name, session_id in (("drop-result", DROP_ID), ("print", PRINT_ID)):
        shutil.copy(PI16 / f"{name}.session.jsonl",
                    os.path.join(folder, f"2026-12-02T00-05-29-257Z_{session_id}.jsonl"))
    return cwd


def test_sessions_shows_distinct_ids_each_usable_by_every_command(project, tmp_path):
    listing = run_cli("sessions", cwd=str(project))
    assert listing.returncode == 0, listing.stderr
    shown = sorted(line.split()[0] for line in listing.stdout.splitlines()
                   if not line.startswith(" "))
    assert shown == ["01a23412-1", "01a23412-7"]
    stats = run_cli("stats", "01a23412-7", "--json", cwd=str(project))
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["files"][0]["path"].endswith(DROP_ID + ".jsonl")
    page = run_cli("export", "01a23412-1", "-o", str(tmp_path / "out.html"), cwd=str(project))
    assert page.returncode == 0 and (tmp_path / "out.html").is_file(), page.stderr
    script = run_cli("script", "01a23412-1", "-o", str(tmp_path / "s.json"), cwd=str(project))
    assert script.returncode == 0 and (tmp_path / "s.json").is_file(), script.stderr
    resumed = run_cli("--script", write_script(tmp_path, [answer("resumed")]),
                      "--session", "01a23412-1", "-p", "again", cwd=str(project))
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stderr


def test_an_ambiguous_prefix_is_one_line_saying_how_many_matched(project):
    for command in (["stats", "01a23412"], ["export", "01a234"], ["-p", "x", "--session", "01a2"]):
        result = run_cli(*command, cwd=str(project))
        assert result.returncode == 1
        assert result.stderr.count("\n") == 1 and "matches 2 sessions" in result.stderr


def pi_requests(name):
    with open(PI16 / f"{name}.requests.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["body"] for line in f]


def test_a_dropped_tool_result_reaches_the_model_as_pi_sends_it_on_resume(project, tmp_path):
    # pi 1.6 wrote this session with an extension (drop.ts) whose context_edit dropped
    # the tool result, then resumed it itself with the prompt "again": its last request
    # is what pi sent for the file up to there. The file goes on with pi's answer, so
    # our "again" comes after that answer.
    pi_resumed = pi_requests("drop-result")[-1]["messages"]
    pi_sent = pi_resumed + [{"role": "assistant", "content": "Second answer."}, pi_resumed[-1]]
    with FakeServer([answer("Second answer.")]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "fake-model",
                         "--session", DROP_ID[:13], "-p", "again", cwd=str(project))
        assert result.returncode == 0, result.stderr
        sent = srv.requests[0]["body"]["messages"]
    assert sent[0]["role"] == "system" and pi_sent[0]["role"] == "system"
    assert "inside pi" not in sent[0]["content"]  # our own prompt, not the file's record
    assert [m for m in sent if m["role"] == "system"] == [sent[0]]
    assert sent[1:] == pi_sent[1:]
    assert {"role": "tool", "content": "No result provided",
            "tool_call_id": "call_fake_0"} in sent
    assert "secret-output\\n" not in json.dumps(sent)  # the command's output, left out
    # our reply is recorded with the fields pi 1.6 writes on its own
    with open(os.path.join(session_dir_for(str(project)),
                           f"2026-12-02T00-05-29-257Z_{DROP_ID}.jsonl"), encoding="utf-8") as f:
        ours = [json.loads(line) for line in f][-1]["message"]
    assert ours["role"] == "assistant" and ours["content"][0]["text"] == "Second answer."
    assert ours["thinkingLevel"] == "off" and ours["responseId"] == "chatcmpl-fake"


def test_stats_counts_pi_16_usage_entries_and_never_sends_them(project):
    stats = run_cli("stats", DROP_ID[:13], "--json", cwd=str(project))
    figures = json.loads(stats.stdout)["files"][0]
    assert figures["usageEntries"] == 1 and figures["assistantTurns"] == 3
    row = figures["models"]["local/fake-model"]
    assert row["turns"] == 3 and row["cacheRead"] == 5000  # the cache_warm entry's tokens
    assert row["input"] == 100 + 150 + 200
    text = run_cli("stats", DROP_ID[:13], cwd=str(project)).stdout
    assert "usage entries    1" in text and "user prompts     2" in text


def test_resuming_pi_16s_session_records_our_prompt_as_a_patch_once(project, tmp_path):
    path = os.path.join(session_dir_for(str(project)),
                        f"2026-12-02T00-05-29-257Z_{PRINT_ID}.jsonl")
    for reply in ("one", "two"):
        result = run_cli("--script", write_script(tmp_path, [answer(reply)]),
                         "--session", PRINT_ID, "-p", "again", cwd=str(project))
        assert result.returncode == 0, result.stderr
    with open(path, encoding="utf-8") as f:
        systems = [entry["message"] for entry in map(json.loads, f)
                   if entry["type"] == "message" and entry["message"]["role"] == "system"]
    assert len(systems) == 2  # pi's full entry, then our one patch (the second run: none)
    patch = systems[1]
    assert patch["sections"]["docs"] is None  # pi's section we do not have
    assert patch["sections"]["cwd"] == f"<cwd>\n{project}\n</cwd>"
    assert "miniagent" in patch["sections"]["preamble"]
    removed = sorted(tool["name"] for tool in patch["toolsRemoved"])
    assert removed == ["bash", "edit", "read", "write"]
    assert [tool["name"] for tool in patch["toolsAdded"]] == ["read", "bash", "edit", "write"]


def test_a_malformed_context_edit_is_skipped_with_one_warning_and_nothing_else_lost(project):
    path = os.path.join(session_dir_for(str(project)),
                        f"2026-12-02T00-05-29-257Z_{DROP_ID}.jsonl")
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines = [line.replace('"replacement":null', '"replacement":5') for line in lines]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    with FakeServer([answer("ok")]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "fake-model",
                         "--session", DROP_ID, "-p", "again", cwd=str(project))
        sent = srv.requests[0]["body"]["messages"]
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "replacement" in line]
    assert len(warnings) == 1 and "must be an object or null" in warnings[0]
    # the edit is gone, so the result it dropped is sent again; every other entry stays
    assert {"role": "tool", "content": "secret-output\n", "tool_call_id": "call_fake_0"} in sent
    assert [m["role"] for m in sent].count("user") == 3


def test_pi_16s_compacted_session_resumes_from_its_summary_without_its_checkpoint(project):
    copy = os.path.join(session_dir_for(str(project)), "compacted.jsonl")
    shutil.copy(PI16 / "compact.session.jsonl", copy)
    pi_after = pi_requests("compact")[-1]["messages"]  # pi's request after its compaction
    with FakeServer([answer("ok")]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "fake-model",
                         "--session", copy, "-p", "next", cwd=str(project))
        sent = srv.requests[0]["body"]["messages"]
    assert result.returncode == 0, result.stderr
    assert [m["role"] for m in sent].count("system") == 1
    assert "inside pi" not in sent[0]["content"]
    assert "## Goal\nRun echo." in sent[1]["content"][0]["text"]  # the summary, in our words
    # what follows the summary is what pi sent, then pi's answer and our prompt
    ours = [{"role": "assistant", "content": "After compaction."},
            {"role": "user", "content": [{"type": "text", "text": "next"}]}]
    assert sent[2:] == pi_after[2:] + ours
