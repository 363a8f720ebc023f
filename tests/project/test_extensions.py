"""Extensions: load order, trust, broken files reported, hooks composed for the Agent."""

import argparse
import textwrap

import pytest

from helpers import call, echo_tool, make_agent, text
from miniagent.extensions import ON_BY_DEFAULT
from miniagent.project.extension_loader import load_extensions
from miniagent.project.resources import extension_sources
from miniagent.project.settings import Settings


@pytest.fixture
def dirs(tmp_path):
    home = tmp_path / "me" / ".miniagent"
    project = tmp_path / "app"
    (home / "extensions").mkdir(parents=True)
    (project / ".miniagent" / "extensions").mkdir(parents=True)
    return home, project


def write(path, source):
    path.write_text(textwrap.dedent(source))
    return path


def load(home, project, trusted, files=(), enabled=True, defaults=False, settings=Settings()):
    """What a run would load: the extension folders, settings and -e files (the bundled
    defaults only when asked, so each test sees its own extensions alone)."""
    args = argparse.Namespace(extension=[str(f) for f in files], no_extensions=not enabled,
                              no_extension=[] if defaults else list(ON_BY_DEFAULT))
    return load_extensions(str(project), extension_sources(args, settings, home, str(project),
                                                            trusted))


def tool_texts(agent):
    return [m["content"][0]["text"] for m in agent.messages if m["role"] == "toolResult"]


def run_echo(extensions, *values):
    """One model turn calling echo with each value, then a text answer."""
    agent = make_agent([{"content": [call("echo", v=v) for v in values]},
                        {"content": [text("done")]}], [echo_tool()])
    agent.before_tool_call = extensions.before_tool_call
    agent.after_tool_call = extensions.after_tool_call
    agent.prompt("go")
    return agent


def test_load_order_is_global_then_project_by_name_then_e_files(dirs, tmp_path):
    home, project = dirs
    log = tmp_path / "order.log"
    noting = f"def setup(api):\n    open({str(log)!r}, 'a').write(__file__[-4:-3])\n"
    for path in (home / "extensions" / "b.py", home / "extensions" / "a.py",
                 project / ".miniagent" / "extensions" / "z.py",
                 project / ".miniagent" / "extensions" / "c.py",
                 tmp_path / "2.py", tmp_path / "1.py"):
        write(path, noting)
    load(home, project, True, [tmp_path / "1.py", tmp_path / "2.py"])
    assert log.read_text() == "abcz12"


def test_an_untrusted_projects_extension_is_not_even_imported(dirs, tmp_path):
    home, project = dirs
    marker = tmp_path / "imported"
    write(project / ".miniagent" / "extensions" / "planted.py",
          f"open({str(marker)!r}, 'w').close()\ndef setup(api): pass\n")
    extensions = load(home, project, False)
    assert not marker.exists() and extensions.warnings == []
    load(home, project, True)
    assert marker.exists()


def test_no_extensions_skips_the_folders_but_not_e_files(dirs, tmp_path):
    home, project = dirs
    write(home / "extensions" / "global.py", "def setup(api): api.register_command('g', print)\n")
    write(tmp_path / "mine.py", "def setup(api): api.register_command('m', print, 'Mine')\n")
    extensions = load(home, project, True, [tmp_path / "mine.py"], enabled=False)
    assert list(extensions.commands) == ["m"]
    assert extensions.commands["m"].description == "Mine"


def test_a_broken_extension_is_one_line_naming_it_and_the_others_load(dirs, tmp_path):
    home, project = dirs
    broken = {
        "a_syntax.py": "def setup(api):\n    return (\n",
        "b_raises.py": """
            def setup(api):
                api.register_command("half", print)   # registered, then setup fails
                raise RuntimeError("no config\\nfound")
            """,
        "c_no_setup.py": "x = 1\n",
        "d_exits.py": "import sys\nsys.exit(3)\n",
        "e_bad_tool.py": "def setup(api): api.register_tool('not a tool')\n",
    }
    for name, source in broken.items():
        write(home / "extensions" / name, source)
    write(home / "extensions" / "z_good.py", "def setup(api): api.register_command('good', print)\n")
    extensions = load(home, project, False, [tmp_path / "missing.py"])
    assert list(extensions.commands) == ["good"]  # nothing of b_raises survives
    assert len(extensions.warnings) == 6 and all("\n" not in w for w in extensions.warnings)
    warned = dict(zip(list(broken) + ["missing.py"], extensions.warnings))
    for name, warning in warned.items():
        assert warning.startswith("extension ") and name in warning and "skipped" in warning
    assert warned["b_raises.py"].endswith("RuntimeError: no config found")
    assert warned["c_no_setup.py"].endswith("it defines no setup(api) function")
    assert warned["d_exits.py"].endswith("SystemExit: 3")
    assert "register_tool needs a miniagent.tools.Tool" in warned["e_bad_tool.py"]


def test_before_hooks_run_in_order_pass_arguments_on_and_the_first_block_wins(dirs):
    home, project = dirs
    write(home / "extensions" / "1_shout.py", """
        def setup(api):
            def shout(event):
                if event["toolCall"]["name"] == "echo":
                    return {"arguments": {"v": event["args"]["v"].upper()}}
            api.before_tool_call(shout)
        """)
    write(home / "extensions" / "2_gate.py", """
        def setup(api):
            def gate(event):   # sees the arguments the first hook left
                if event["args"]["v"] == "SECRET":
                    return {"block": True, "reason": "No secrets."}
            api.before_tool_call(gate)
        """)
    write(home / "extensions" / "3_late.py", """
        def setup(api):
            api.before_tool_call(lambda event: {"block": True, "reason": "never reached"}
                                 if event["args"]["v"] == "SECRET" else None)
        """)
    agent = run_echo(load(home, project, False), "hello", "secret")
    assert tool_texts(agent) == ["HELLO", "No secrets."]


def test_a_raising_before_hook_blocks_its_call_and_is_reported(dirs):
    home, project = dirs
    hook = write(home / "extensions" / "gate.py", """
        def setup(api):
            api.before_tool_call(lambda event: 1 / 0)
        """)
    extensions = load(home, project, False)
    reported = []
    extensions.report = reported.append
    ran = []
    agent = make_agent([{"content": [call("echo", v="x")]}, {"content": [text("done")]}],
                       [echo_tool(execute=lambda *a: ran.append(a))])
    agent.before_tool_call = extensions.before_tool_call
    agent.prompt("go")
    assert ran == []  # fails closed: nothing ran
    line = (f"extension {hook}: before_tool_call failed, so the call was blocked: "
            f"ZeroDivisionError: division by zero")
    assert tool_texts(agent) == [line] and reported == [line]
    assert agent.messages[-1]["content"][0]["text"] == "done"  # the run went on


def test_after_hooks_rewrite_results_and_a_raising_one_is_ignored(dirs):
    home, project = dirs
    write(home / "extensions" / "1_tag.py", """
        def setup(api):
            def tag(event):
                text = event["result"].content[0]["text"]
                return {"content": [{"type": "text", "text": f"[{text}]"}], "isError": True}
            api.after_tool_call(tag)
        """)
    broken = write(home / "extensions" / "2_broken.py", """
        def setup(api):
            api.after_tool_call(lambda event: event["missing"])
        """)
    write(home / "extensions" / "3_sees.py", """
        def setup(api):
            api.after_tool_call(lambda event: {"content": [{"type": "text",
                "text": event["result"].content[0]["text"] + f" error={event['isError']}"}]})
        """)
    extensions = load(home, project, False)
    reported = []
    extensions.report = reported.append
    agent = run_echo(extensions, "x")
    assert tool_texts(agent) == ["[x] error=True"]
    result = [m for m in agent.messages if m["role"] == "toolResult"][0]
    assert result["isError"] is True
    assert reported == [f"extension {broken}: after_tool_call failed and was ignored: "
                        f"KeyError: 'missing'"]


def test_event_handlers_tools_and_messages(dirs):
    home, project = dirs
    write(home / "extensions" / "notes.py", """
        from miniagent.core.tools import Tool, text_result
        def setup(api):
            api.on("agent_end", lambda event: api.add_message(f"run ended in {api.cwd}", "note"))
            api.on("turn_end", lambda event: 1 / 0)
            api.register_tool(Tool("shout", "Shout v.", {"type": "object"},
                                   lambda call_id, args, ctx: text_result("HEY")))
        """)
    extensions = load(home, project, False)
    reported = []
    extensions.report = reported.append
    assert [tool.name for tool in extensions.tools] == ["shout"]
    agent = make_agent([{"content": [text("hi")]}])
    extensions.subscribe_all(agent)
    agent.prompt("go")
    assert [(m["role"], m["customType"], m["content"]) for m in extensions.take_pending_messages()] \
        == [("custom", "note", f"run ended in {project}")]
    assert extensions.pending_messages == []
    assert len(reported) == 1 and "notes.py: turn_end handler failed: ZeroDivisionError" in reported[0]


def test_a_name_taken_by_an_earlier_extension_is_kept_and_the_clash_reported(dirs, tmp_path):
    home, project = dirs
    source = """
        from miniagent.core.tools import Tool, text_result
        def setup(api):
            api.register_tool(Tool("lint", "Lint.", {"type": "object"},
                                   lambda call_id, args, ctx: text_result(__file__)))
            api.register_command("lint", print, __file__)
        """
    first = write(home / "extensions" / "a.py", source)
    second = write(home / "extensions" / "b.py", source)
    write(tmp_path / "gate", "def setup(api): pass\n")
    extensions = load(home, project, False, [tmp_path / "gate"])
    assert len(extensions.tools) == 1
    assert extensions.tools[0].execute("id", {}, None).content[0]["text"] == str(first)
    assert extensions.commands["lint"].description == str(first)
    assert extensions.warnings == [
        f"extension {second}: tool lint ignored, another extension registered one by that "
        f"name first",
        f"extension {second}: command /lint ignored, {first} registered it first",
        f"extension {tmp_path / 'gate'} failed to load and was skipped: ImportError: not a "
        f"Python file (the name must end in .py)"]


def test_a_raising_session_before_handler_cancels_in_one_line_and_no_ui_says_no(dirs, tmp_path):
    home, project = dirs
    write(tmp_path / "gate.py", """
        def setup(api):
            def ask(event):
                if api.ctx.ui.confirm("Leave?", "sure") or api.ctx.ui.select("x", ["a"]):
                    return None
                raise RuntimeError("no answer")
            api.on("session_before_switch", ask)
        """)
    told = []
    extensions = load(home, project, True, [tmp_path / "gate.py"])
    extensions.report = told.append
    assert extensions.emit({"type": "session_before_switch", "reason": "new"}) == {"cancel": True}
    assert len(told) == 1 and "so the move was cancelled: RuntimeError: no answer" in told[0]
    assert extensions.emit({"type": "session_switch_unknown"}) is None
