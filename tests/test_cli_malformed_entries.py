"""Wrong-typed session entries (issue 17 item 8): each is skipped with one warning naming
FILE:LINE, its place in the tree kept, and the session still resumes, exports and
counts. Unknown entry types and unknown fields are kept without a word."""

import copy
import json

import pytest

from miniagent.session.tree import Session
from helpers import run_cli, write_script

STAMP = "2026-03-15T10:20:30.123Z"
USAGE = {"input": 5, "output": 2, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 7,
         "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}

# One well-formed entry of every known type (and message role); a case below breaks one
# field of one of them.
GOOD = {
    "user": {"type": "message", "message": {
        "role": "user", "content": [{"type": "text", "text": "look"}], "timestamp": 1}},
    "assistant": {"type": "message", "message": {
        "role": "assistant", "api": "openai-completions", "provider": "scripted",
        "model": "scripted", "stopReason": "toolUse", "timestamp": 2, "usage": USAGE,
        "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "s"},
                    {"type": "text", "text": "reading"},
                    {"type": "toolCall", "id": "c1", "name": "read",
                     "arguments": {"path": "a.py"}}]}},
    "toolResult": {"type": "message", "message": {
        "role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False,
        "content": [{"type": "text", "text": "print(1)"},
                    {"type": "image", "data": "aGk=", "mimeType": "image/png"}],
        "timestamp": 3}},
    "bashExecution": {"type": "message", "message": {
        "role": "bashExecution", "command": "ls", "output": "a.py", "exitCode": 0,
        "cancelled": False, "truncated": False, "timestamp": 4}},
    "model_change": {"type": "model_change", "provider": "scripted", "modelId": "scripted"},
    "thinking_level_change": {"type": "thinking_level_change", "thinkingLevel": "off"},
    "compaction": {"type": "compaction", "summary": "earlier work", "firstKeptEntryId": "aaaa0003",
                   "tokensBefore": 100, "fromHook": False},
    "branch_summary": {"type": "branch_summary", "fromId": "aaaa0003", "summary": "tried A"},
    "custom": {"type": "custom", "customType": "ext", "data": {"n": 1}},
    "custom_message": {"type": "custom_message", "customType": "ext", "content": "note",
                       "display": True},
    "label": {"type": "label", "targetId": "aaaa0003", "label": "checkpoint"},
    "session_info": {"type": "session_info", "name": "my session"},
}

# (the good entry, the path of the field to break, its wrong value)
CASES = [
    ("user", ["message"], "hi"),                                   # string for an object
    ("user", ["message"], ["role", "user"]),                       # list as message
    ("user", ["message", "role"], 5),
    ("user", ["message", "content"], 42),                          # number as content
    ("user", ["message", "content"], ["hi"]),                      # blocks not objects
    ("user", ["message", "content", 0, "text"], 5),
    ("user", ["timestamp"], 5),
    ("assistant", ["message", "content"], "reading"),
    ("assistant", ["message", "usage"], "lots"),                   # string as usage
    ("assistant", ["message", "usage", "input"], "12"),
    ("assistant", ["message", "usage", "cost"], {"total": "free"}),
    ("assistant", ["message", "stopReason"], 1),
    ("assistant", ["message", "model"], ["m"]),
    ("assistant", ["message", "content", 0, "thinking"], {}),
    ("assistant", ["message", "content", 2, "arguments"], '{"path": "a.py"}'),  # text args
    ("assistant", ["message", "content", 2, "name"], 7),
    ("assistant", ["message", "content", 1], None),
    ("toolResult", ["message", "content"], 5),
    ("toolResult", ["message", "isError"], "no"),
    ("toolResult", ["message", "toolCallId"], 9),
    ("toolResult", ["message", "content", 1, "data"], 1),
    ("bashExecution", ["message", "command"], ["ls"]),
    ("bashExecution", ["message", "exitCode"], "0"),
    ("model_change", ["provider"], 5),
    ("model_change", ["modelId"], {"id": "m"}),
    ("thinking_level_change", ["thinkingLevel"], 3),
    ("compaction", ["summary"], 5),
    ("compaction", ["tokensBefore"], "many"),
    ("compaction", ["firstKeptEntryId"], 3),
    ("branch_summary", ["summary"], ["tried A"]),
    ("branch_summary", ["fromId"], 1),
    ("custom", ["customType"], 1),
    ("custom_message", ["content"], 5),
    ("custom_message", ["display"], "yes"),
    ("label", ["targetId"], 5),
    ("label", ["label"], 3),
    ("session_info", ["name"], 5),
]


def entry(kind, entry_id, parent_id, **changes):
    made = dict(copy.deepcopy(GOOD[kind]), id=entry_id, parentId=parent_id, timestamp=STAMP)
    made.update(changes)
    return made


def write_session(path, middle):
    """header, user, assistant, MIDDLE (line 4), user, assistant: MIDDLE's children stay
    on the branch only if its place in the tree survives."""
    answer = copy.deepcopy(GOOD["assistant"])
    answer["message"].update(stopReason="stop", content=[{"type": "text", "text": "done"}])
    lines = [{"type": "session", "version": 3, "id": "sess-1", "timestamp": STAMP, "cwd": "/p"},
             entry("user", "aaaa0001", None),
             dict(answer, id="aaaa0002", parentId="aaaa0001", timestamp=STAMP),
             middle,
             entry("user", "aaaa0004", "aaaa0003"),
             dict(answer, id="aaaa0005", parentId="aaaa0004", timestamp=STAMP)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def broken(kind, field_path, value):
    made = entry(kind, "aaaa0003", "aaaa0002")
    target = made
    for key in field_path[:-1]:
        target = target[key]
    target[field_path[-1]] = value
    return made


@pytest.mark.parametrize("kind, field_path, value", CASES,
                         ids=[f"{kind}-{'.'.join(map(str, path))}" for kind, path, _ in CASES])
def test_a_wrong_typed_entry_is_skipped_with_one_warning_and_the_session_goes_on(
        tmp_path, kind, field_path, value):
    path = tmp_path / "shared.jsonl"
    write_session(path, broken(kind, field_path, value))
    before = path.read_bytes()
    warning = f"miniagent: warning: {path}:4: skipped a malformed entry ("
    resumed = run_cli("--script", write_script(tmp_path, [{"content": [
        {"type": "text", "text": "resumed"}]}]), "--session", str(path), "-p", "hi",
        cwd=str(tmp_path))
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "resumed\n"
    [line] = [line for line in resumed.stderr.splitlines() if "warning" in line]
    assert line.startswith(warning), line
    assert path.read_bytes().startswith(before)  # appended to, never rewritten
    session = Session.open(str(path))
    texts = [e["message"]["content"][0]["text"] for e in session.get_branch()
             if e["type"] == "message" and e["message"]["role"] != "system"]
    assert texts == ["look", "done", "look", "done", "hi", "resumed"]  # the branch is whole
    exported = run_cli("export", str(path), "-o", str(tmp_path / "page.html"), cwd=str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr.startswith(f"miniagent export: {path}:4: skipped a malformed entry")
    stats = run_cli("stats", str(path), "--json", cwd=str(tmp_path))
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)


def test_unknown_entry_types_and_fields_are_kept_without_a_warning(tmp_path):
    path = tmp_path / "newer.jsonl"
    newer = entry("user", "aaaa0003", "aaaa0002", glitter=3)
    newer["message"]["sparkle"] = {"any": "thing"}
    write_session(path, newer)
    with open(path, "a") as file:
        file.write(json.dumps({"type": "sparkles", "id": "aaaa0006", "parentId": "aaaa0005",
                               "timestamp": STAMP, "glitter": [1, 2]}) + "\n")
    session = Session.open(str(path))
    assert session.warnings == []
    assert [e["type"] for e in session.entries][-1] == "sparkles"
    assert session.get_entry("aaaa0003")["glitter"] == 3
    resumed = run_cli("--script", write_script(tmp_path, [{"content": [
        {"type": "text", "text": "fine"}]}]), "--session", str(path), "-p", "hi",
        cwd=str(tmp_path))
    assert resumed.returncode == 0 and resumed.stdout == "fine\n", resumed.stderr
    assert "warning" not in resumed.stderr
    assert run_cli("export", str(path), "-o", str(tmp_path / "p.html")).returncode == 0
    assert run_cli("stats", str(path)).returncode == 0


def test_every_good_entry_loads_without_a_warning(tmp_path):
    for kind in GOOD:
        path = tmp_path / f"{kind}.jsonl"
        write_session(path, entry(kind, "aaaa0003", "aaaa0002"))
        assert Session.open(str(path)).warnings == [], kind
