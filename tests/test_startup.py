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


def test_version_loads_nothing_of_ours_but_the_front_door(tmp_path):
    # launch.py answers before cli.py (argparse, the flags) is imported
    status, names = imported_modules(["-m", "miniagent", "--version"], tmp_path)
    assert status == 0
    assert sorted(name for name in names if name.startswith("miniagent")) == [
        "miniagent", "miniagent.launch"]  # __main__ is run, not imported
    assert "argparse" not in names


def test_the_check_sees_requests_when_it_is_imported(tmp_path):
    # The assertion above could pass for a wrong reason (the list not parsed): here the
    # same reading must find requests where it is imported.
    status, names = imported_modules(["-c", "import miniagent.http.transport"], tmp_path)
    assert status == 0 and "requests" in http_modules(names)


def test_the_scripted_model_and_the_core_load_no_http_library(tmp_path):
    modules = "miniagent.core.agent, miniagent.models.registry, miniagent.models.choose, miniagent.core.scripted"
    status, names = imported_modules(["-c", f"import {modules}"], tmp_path)
    assert status == 0 and "miniagent.core.scripted" in names
    assert http_modules(names) == []


RUN_ONE_TURN = """
from miniagent.core.provider import Model
from miniagent.core.provider import StreamOptions
from miniagent.providers import stream
from miniagent.core.scripted import parse_script, scripted_model
model = {model}
events = list(stream(model, {{"messages": []}}, StreamOptions()))
assert events[-1]["type"] in ("done", "error")
"""


@pytest.mark.parametrize("model,loaded,not_loaded", [
    ('scripted_model(parse_script([{"content": [{"type": "text", "text": "hi"}]}]))',
     "miniagent.core.scripted", ["openai", "anthropic"]),
    # a URL that cannot be sent: the call fails at once, with no retry waits
    ('Model("m", "local", "openai-completions", "htp://127.0.0.1:1/v1")',
     "miniagent.providers.openai", ["anthropic"]),
])
def test_a_call_imports_only_the_provider_it_uses(model, loaded, not_loaded, tmp_path):
    status, names = imported_modules(["-c", RUN_ONE_TURN.format(model=model)], tmp_path)
    assert status == 0 and loaded in names
    assert [name for name in not_loaded if f"miniagent.providers.{name}" in names] == []


# --- The start-up budget of a print run (issue 22) -----------------------------------------
#
# What a one-turn `-p` run against a local OpenAI-compatible server may load: the spine,
# the one provider, the session writer and what the project actually has. Everything
# else (the other provider, compaction's summarizer, skills, MCP, search, export, rpc,
# the terminal UI past its colours, the other tools) loads only when a run uses it.
PRINT_RUN_BUDGET = {
    # the entry point and the assembly of a run
    "miniagent", "miniagent.launch", "miniagent.cli", "miniagent.assemble", "miniagent.errors",
    # the core: the loop, its agent and events, the messages
    "miniagent.core", "miniagent.core.agent", "miniagent.core.loop", "miniagent.core.toolcalls",
    "miniagent.core.events", "miniagent.core.messages", "miniagent.core.provider",
    "miniagent.core.tools", "miniagent.agent", "miniagent.core.read", "miniagent.core.bash",
    "miniagent.core.edit", "miniagent.core.write",
    # the harness around it: retries, limits, the session records, the worker thread
    "miniagent.harness", "miniagent.harness.harness", "miniagent.harness.lifecycle",
    "miniagent.harness.limits", "miniagent.harness.moves", "miniagent.harness.records",
    "miniagent.harness.reply_retry", "miniagent.harness.worker",
    "miniagent.harness.extension_hooks",
    # when to compact (not how: compaction.compaction loads when one is due)
    "miniagent.compaction", "miniagent.compaction.estimate", "miniagent.compaction.overhead",
    # the session writer (and the reader a resumed session needs)
    "miniagent.session", "miniagent.session.check", "miniagent.session.convert",
    "miniagent.session.file", "miniagent.session.ids", "miniagent.session.migrate",
    "miniagent.session.rebuild", "miniagent.session.store", "miniagent.session.system_entry",
    "miniagent.session.tree",
    # the one provider, its stream assembly and hardening, and HTTP
    "miniagent.providers", "miniagent.providers.openai", "miniagent.providers.builder",
    "miniagent.core.assembly", "miniagent.core.openai",
    "miniagent.providers.compat", "miniagent.providers.guard", "miniagent.providers.history",
    "miniagent.providers.jsonpartial", "miniagent.providers.verdict", "miniagent.http",
    "miniagent.http.classify",
    "miniagent.http.errors", "miniagent.core.sse", "miniagent.http.transport",
    # choosing the model (and asking an unknown local one for its window, remembered)
    "miniagent.models", "miniagent.models.choose", "miniagent.models.registry",
    "miniagent.models.usage", "miniagent.files.text",  # what left core/messages.py
    "miniagent.models.served", "miniagent.models.thinking", "miniagent.models.values",
    "miniagent.models.window", "miniagent.models.window_cache", "miniagent.files.atomic",
    # the project: trust, settings, the prompt, the extensions' registry and the UI the
    # front end gives them (empty: no extension here, so their loader is not loaded)
    "miniagent.project", "miniagent.project.resources", "miniagent.project.settings",
    "miniagent.project.system_prompt", "miniagent.project.trust", "miniagent.project.wrappers",
    "miniagent.project.extensions", "miniagent.project.extension_context",
    # the bundled extensions on by default, and their loader
    "miniagent.extensions", "miniagent.project.extension_loader", "miniagent.extensions.plan",
    "miniagent.extensions.checkpoints", "miniagent.extensions.checkpoints.store",
    # the sandbox's policy and what the tools ask it (the kernel's part loads when it confines)
    "miniagent.sandbox", "miniagent.sandbox.confine",
    # the four default tools and their hardening
    "miniagent.tools", "miniagent.tools.read", "miniagent.tools.bash", "miniagent.tools.edit",
    "miniagent.tools.write", "miniagent.tools.hardening", "miniagent.tools.hardening.binary",
    "miniagent.core.coerce", "miniagent.tools.hardening.diff",
    "miniagent.tools.hardening.edit_args", "miniagent.tools.hardening.fuzzy",
    "miniagent.tools.hardening.lines", "miniagent.tools.hardening.paths",
    "miniagent.tools.hardening.process", "miniagent.tools.hardening.reaper",
    "miniagent.tools.hardening.truncate",
    # print mode: its output, the prompt's @files, --confirm's hook chain, the colours
    "miniagent.modes", "miniagent.modes.print_mode", "miniagent.modes.render",
    "miniagent.modes.output", "miniagent.modes.terminal", "miniagent.modes.attach",
    "miniagent.modes.confirm", "miniagent.files", "miniagent.files.home",
    "miniagent.files.redaction", "miniagent.files.safeopen", "miniagent.tui", "miniagent.tui.style",
}

# The child runs miniagent as its console script does, then names every module it loaded.
LOADED_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("FROZEN", gc.get_freeze_count(), "LOADED", *sorted(sys.modules),
                              file=sys.stderr))
from miniagent.cli import main
sys.exit(main())
"""


def a_print_run(tmp_path, home) -> str:
    """Run one `-p` turn in a child as a user would; what it said on stderr at exit."""
    from fake_server import FakeServer
    from helpers import answer
    with FakeServer([answer("hi")]) as srv:
        env = {**os.environ, "MINIAGENT_HOME": str(home), "PYTHONPATH": str(REPO)}
        done = subprocess.run([sys.executable, "-c", LOADED_AT_EXIT, "--base-url",
                               srv.base_url + "/v1", "--model", "fake-model", "-p", "hi"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "hi", done.stderr
    return done.stderr


def modules_of_a_print_run(tmp_path, home, ours=True):
    """The modules a print run loaded: ours (miniagent's), or every one (ours=False)."""
    names = set(a_print_run(tmp_path, home).split("LOADED", 1)[1].split())
    return {name for name in names if name.split(".")[0] == "miniagent"} if ours else names


def test_a_print_run_loads_only_its_budget(tmp_path, home):
    loaded = modules_of_a_print_run(tmp_path, home)
    assert {"miniagent.providers.openai", "miniagent.session.file"} <= loaded  # it ran
    assert sorted(loaded - PRINT_RUN_BUDGET) == []


def test_a_print_run_whose_reply_calls_no_tool_loads_no_thread_pool(tmp_path, home):
    # concurrent.futures runs a reply's tool calls (core/toolcalls.py): loaded then only
    loaded = modules_of_a_print_run(tmp_path, home, ours=False)
    assert "miniagent.core.toolcalls" in loaded and "concurrent.futures" not in loaded


def test_what_the_project_has_is_loaded_for_it_alone(tmp_path, home):
    # The same check sees a module outside the budget when the run needs it: a skill,
    # an extension, an mcp.json.
    (home / "extensions").mkdir()
    (home / "extensions" / "hello.py").write_text("def setup(api):\n    pass\n")
    skill = home / "skills" / "review"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: review\ndescription: Review a diff.\n---\nRead it.\n")
    (home / "mcp.json").write_text('{"mcpServers": {}}')
    loaded = modules_of_a_print_run(tmp_path, home)
    assert sorted(loaded - PRINT_RUN_BUDGET) == [
        "miniagent.mcp", "miniagent.mcp.config", "miniagent.project.skills"]


def test_a_print_run_leaves_what_start_up_built_to_no_collection(tmp_path, home):
    # The modules, the registry, the harness live until exit: frozen (gc.freeze), no
    # collection scans them again, nor the interpreter's at exit (tens of ms a run).
    frozen = int(a_print_run(tmp_path, home).split("FROZEN", 1)[1].split()[0])
    assert frozen > 10_000
