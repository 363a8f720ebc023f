"""Start-up that does not pay for what it does not use (issue 7, item 7).

`--version`, `--help` and `--list-models` answer without a model call, so they must not
load the HTTP library: requests and urllib3 alone cost more than the rest of the
start-up. Each command runs in a fresh interpreter with `-X importtime`, which lists
every module imported on stderr ("import time: self | cumulative | name").
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
HTTP_LIBRARIES = ("requests", "urllib3")


def imported_modules(args, home):
    """Run `python -X importtime ARGS` in the checkout; (exit status, module names)."""
    env = {**os.environ, "MINIAGENT_HOME": str(home), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=60)
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return done.returncode, names


def http_modules(names):
    return sorted(name for name in names if name.split(".")[0] in HTTP_LIBRARIES)


@pytest.mark.parametrize("flag", ["--version", "--help", "--list-models"])
def test_commands_that_call_no_model_import_no_http_library(flag, tmp_path):
    status, names = imported_modules(["-m", "miniagent", flag], tmp_path)
    assert status == 0 and "miniagent" in names  # it ran, and importtime listed it
    assert http_modules(names) == []


def test_the_check_sees_requests_when_it_is_imported(tmp_path):
    # The assertion above could pass for a wrong reason (the list not parsed): here the
    # same reading must find requests where it is imported.
    status, names = imported_modules(["-c", "import miniagent.http.transport"], tmp_path)
    assert status == 0 and "requests" in http_modules(names)


def test_the_scripted_model_and_the_core_load_no_http_library(tmp_path):
    modules = "miniagent.agent, miniagent.models.registry, miniagent.models.choose, miniagent.providers.scripted"
    status, names = imported_modules(["-c", f"import {modules}"], tmp_path)
    assert status == 0 and "miniagent.providers.scripted" in names
    assert http_modules(names) == []


RUN_ONE_TURN = """
from miniagent.models.registry import Model
from miniagent.providers import StreamOptions, stream
from miniagent.providers.scripted import parse_script, scripted_model
model = {model}
events = list(stream(model, {{"messages": []}}, StreamOptions()))
assert events[-1]["type"] in ("done", "error")
"""


@pytest.mark.parametrize("model,loaded,not_loaded", [
    ('scripted_model(parse_script([{"content": [{"type": "text", "text": "hi"}]}]))',
     "miniagent.providers.scripted", ["openai", "anthropic"]),
    # a URL that cannot be sent: the call fails at once, with no retry waits
    ('Model("m", "local", "openai-completions", "htp://127.0.0.1:1/v1")',
     "miniagent.providers.openai", ["anthropic"]),
])
def test_a_call_imports_only_the_provider_it_uses(model, loaded, not_loaded, tmp_path):
    status, names = imported_modules(["-c", RUN_ONE_TURN.format(model=model)], tmp_path)
    assert status == 0 and loaded in names
    assert [name for name in not_loaded if f"miniagent.providers.{name}" in names] == []
