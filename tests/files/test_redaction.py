"""The secrets registry: every form of a key and every 12-character run of its secret
(what follows its public prefix); the structure of a session entry left alone."""

import json
import time
from urllib.parse import quote

import pytest

from miniagent.modes import output

from miniagent.files import redaction
from miniagent.files.redaction import REDACTED, add_secret, redact, redact_json

KEY = "sk-ant-api03-Zx8/Qw7+Tr4=Lm2Vb8Nc5Hj1Kp9"
SECRET = KEY[len("sk-ant-api03-"):]


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    add_secret(KEY)


def test_every_form_of_the_key_and_every_run_of_its_secret_is_redacted():
    quoted = "sk-ant-api03-Zx8%2FQw7%2BTr4%3DLm2Vb8Nc5Hj1Kp9"
    lower_hex = quoted.replace("%2F", "%2f").replace("%2B", "%2b").replace("%3D", "%3d")
    for leak in (KEY, quoted, lower_hex, json.dumps(KEY)[1:-1], SECRET, SECRET[:12],
                 SECRET[5:25], quoted[16:30], f" {KEY} "):
        assert redact(f"401 key {leak} rejected") in (f"401 key {REDACTED} rejected",
                                                      f"401 key  {REDACTED}  rejected"), leak
    eleven = f"key ...{SECRET[:11]}... (11 characters of it are not the key)"
    assert redact(eleven) == eleven


def test_a_public_prefix_alone_is_not_the_secret():
    add_secret("sk-proj-Hq3Vb9Xk2Lw8Rt5Zn1Pc7Md4")
    code = "if key.startswith(('sk-proj-', 'sk-ant-api03-', 'sk-')): send(key)"
    assert redact(code) == code
    # the prefix and a few characters more are still not 12 of the secret
    assert redact("sk-proj-Hq3Vb9Xk2Lw expired") == "sk-proj-Hq3Vb9Xk2Lw expired"
    assert redact("sk-proj-Hq3Vb9Xk2Lw8 expired") == f"sk-proj-{REDACTED} expired"


def test_the_longest_public_prefix_is_the_one_taken_off():
    assert redaction.secret_of("sk-ant-admin01-abc") == "abc"
    assert redaction.secret_of(" gsk_abc\n") == "abc"
    assert redaction.secret_of("ABCDEFGHIJKLMNOP") == "ABCDEFGHIJKLMNOP"  # no prefix: all secret


def test_a_key_whose_secret_is_short_is_redacted_whole_only():
    add_secret("sk-proj-k3y9short")  # 9 characters after the prefix
    assert redact("bad key sk-proj-k3y9short") == f"bad key {REDACTED}"
    assert redact("id k3y9short ok") == "id k3y9short ok"


def test_short_placeholders_are_not_secrets():
    add_secret("ollama")
    add_secret("lm-studio")
    assert redact("run ollama serve or lm-studio") == "run ollama serve or lm-studio"
    assert redact("token abcd rejected", "abcd") == f"token {REDACTED} rejected"  # the call's own


def test_a_key_that_contains_compaction_leaves_entry_types_alone(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    add_secret("sk-miniagent-compaction-7c1e")
    entry = {"type": "compaction", "id": "c1", "parentId": "m1", "summary": "done",
             "firstKeptEntryId": "m1", "tokensBefore": 9,
             "details": {"readFiles": ["miniagent-compaction-7c1e.txt"]}}
    assert redact_json(entry) == {**entry, "details": {"readFiles": [f"{REDACTED}.txt"]}}


def test_a_key_sharing_a_run_with_the_cwd_leaves_the_structure_alone(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    add_secret("sk-proj-widget-factory-lab-Hq3Vb9Xk")
    cwd = "/home/ada/widget-factory-lab"
    header = {"type": "session", "version": 3, "id": "0f8e", "timestamp": "2026-01-01T00:00:00Z",
              "cwd": cwd, "parentSession": f"/h/sessions/--home-ada-widget-factory-lab--/a.jsonl"}
    assert redact_json(header) == header
    system = {"role": "system", "content": "", "sections": {"cwd": f"<cwd>\n{cwd}\n</cwd>"}}
    assert redact_json(system) == system
    # Text from outside is redacted wherever the run lands, a path in it too.
    result = {"role": "toolResult", "toolCallId": "call-widget-factory-lab", "toolName": "bash",
              "content": [{"type": "text", "text": f"{cwd}/a.py"}], "isError": False}
    assert redact_json(result)["content"] == [{"type": "text", "text": f"/home/ada/{REDACTED}/a.py"}]
    assert redact_json(result)["toolCallId"] == "call-widget-factory-lab"


def test_sk_proj_in_a_file_the_agent_read_is_kept_and_the_secret_is_not():
    add_secret("sk-proj-Hq3Vb9Xk2Lw8Rt5Zn1Pc7Md4")
    text = "OPENAI_PREFIX = 'sk-proj-'\nleaked = 'Lw8Rt5Zn1Pc7'\n"
    entry = {"type": "message", "id": "r1", "parentId": "a1", "timestamp": "t",
             "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                         "content": [{"type": "text", "text": text}], "isError": False}}
    [block] = redact_json(entry)["message"]["content"]
    assert block["text"] == f"OPENAI_PREFIX = 'sk-proj-'\nleaked = '{REDACTED}'\n"


def test_inside_free_form_objects_every_string_is_redacted_whatever_its_name():
    call = {"type": "toolCall", "id": "c1", "name": "mcp__vault__store",
            "arguments": {"id": SECRET, "type": KEY, "nested": {"model": SECRET[2:20]}}}
    assert redact_json(call) == {**call, "arguments": {
        "id": REDACTED, "type": REDACTED, "nested": {"model": REDACTED}}}
    custom = {"type": "custom", "customType": "notes", "data": {"timestamp": SECRET}}
    assert redact_json(custom)["data"] == {"timestamp": REDACTED}


def test_message_text_and_errors_are_redacted():
    message = {"role": "assistant", "stopReason": "error", "errorMessage": f"401 {quote(KEY, safe='')}",
               "content": [{"type": "thinking", "thinking": f"the key is {SECRET}"}]}
    assert redact_json(message) == {**message, "errorMessage": f"401 {REDACTED}",
                                    "content": [{"type": "thinking",
                                                 "thinking": f"the key is {REDACTED}"}]}


def test_redact_json_leaves_a_valid_line_whatever_the_key_holds(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    odd = 'ab\\cd"ef-0123456789'
    add_secret(odd)
    entry = {"output": "pre " + odd[1:13] + " post", "list": [odd, 3]}
    line = json.dumps(redact_json(entry))
    assert json.loads(line) == {"output": f"pre {REDACTED} post", "list": [REDACTED, 3]}


def test_stderr_is_redacted_once_wrapped(monkeypatch, capsys):
    monkeypatch.setattr("sys.stderr", output.sys.stderr)
    output.redact_stderr()
    output.say(f"miniagent: 401 {KEY[13:40]}")
    output.say("miniagent: a key starts sk-ant-api03-")
    assert capsys.readouterr().err == (f"miniagent: 401 {REDACTED}\n"
                                       "miniagent: a key starts sk-ant-api03-\n")


def test_a_one_megabyte_line_is_redacted_in_well_under_a_second():
    line = ("x" * 99 + " ") * 10_000 + KEY[4:30]
    started = time.monotonic()
    assert redact(line).endswith(REDACTED)
    assert time.monotonic() - started < 2  # linear: about 0.1 s here
