"""The secrets registry: every form of a key and every 8-character run of it."""

import json
import time

import pytest

from miniagent.modes import output

from miniagent.files import redaction
from miniagent.files.redaction import REDACTED, add_secret, redact, redact_json

KEY = "sk-ant-api03-Zx8/Qw7+Tr4=Lm2Vb8Nc5Hj1Kp9"


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    add_secret(KEY)


def test_every_form_and_every_run_of_the_key_is_redacted():
    quoted = "sk-ant-api03-Zx8%2FQw7%2BTr4%3DLm2Vb8Nc5Hj1Kp9"
    lower_hex = quoted.replace("%2F", "%2f").replace("%2B", "%2b").replace("%3D", "%3d")
    for leak in (KEY, quoted, lower_hex,
                 json.dumps(KEY)[1:-1], KEY[13:21], KEY[5:30], f" {KEY} "):
        assert redact(f"401 key {leak} rejected") in (f"401 key {REDACTED} rejected",
                                                      f"401 key  {REDACTED}  rejected")
    seven = f"key {KEY[:7]}... (7 characters of it are not the key)"
    assert redact(seven) == seven


def test_short_placeholders_are_not_secrets():
    add_secret("ollama")
    add_secret("lm-studio")
    assert redact("run ollama serve or lm-studio") == "run ollama serve or lm-studio"
    assert redact("token abcd rejected", "abcd") == f"token {REDACTED} rejected"  # the call's own


def test_redact_json_leaves_a_valid_line_whatever_the_key_holds(monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())
    odd = 'ab\\cd"ef-0123456789'
    add_secret(odd)
    entry = {"output": "pre " + odd[1:12] + " post", odd: [odd, 3]}
    line = json.dumps(redact_json(entry))
    assert json.loads(line) == {"output": f"pre {REDACTED} post", REDACTED: [REDACTED, 3]}


def test_stderr_is_redacted_once_wrapped(monkeypatch, capsys):
    monkeypatch.setattr("sys.stderr", output.sys.stderr)
    output.redact_stderr()
    output.say(f"miniagent: 401 {KEY[3:40]}")
    assert capsys.readouterr().err == f"miniagent: 401 {REDACTED}\n"


def test_a_one_megabyte_line_is_redacted_in_well_under_a_second():
    line = ("x" * 99 + " ") * 10_000 + KEY[4:30]
    started = time.monotonic()
    assert redact(line).endswith(REDACTED)
    assert time.monotonic() - started < 2  # linear: about 0.1 s here
