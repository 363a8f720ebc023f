"""The bundled extensions: loaded by name as files are by path, and built on the API alone."""

import ast
import json
import sys
from pathlib import Path

from fake_server import FakeServer
from helpers import answer, run_cli, write_script
from miniagent.extensions import listing
from rpc_driver import Rpc, of_type

PACKAGE = Path(__file__).resolve().parents[2] / "miniagent" / "extensions"
ALLOWED = ("miniagent.core.tools", "miniagent.extensions")


def imports_of(path):
    """(line, module) for each import of a file; a relative import made absolute."""
    package = "miniagent.extensions" + "".join(
        "." + part for part in path.relative_to(PACKAGE).parent.parts)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            found.append((node.lineno, module))
    return found


def test_the_bundled_extensions_import_only_the_api_and_the_standard_library():
    wrong = [f"{path.relative_to(PACKAGE)}:{line} imports {module}"
             for path in sorted(PACKAGE.rglob("*.py")) for line, module in imports_of(path)
             if module.split(".")[0] not in sys.stdlib_module_names
             and not any(module == ok or module.startswith(ok + ".") for ok in ALLOWED)]
    assert wrong == []


def test_the_import_check_sees_a_module_reaching_past_the_api(tmp_path):
    # The rule above read on a file that breaks it: a relative import of the harness.
    sneaky = PACKAGE / "sneaky_test_only.py"
    sneaky.write_text("from ..harness import harness\nfrom . import checkpoints\n")
    try:
        assert imports_of(sneaky) == [(1, "miniagent.harness"), (2, "miniagent.extensions")]
    finally:
        sneaky.unlink()


def test_an_unknown_name_is_one_warning_and_the_run_goes_on(tmp_path):
    with FakeServer([answer("hi")]) as srv:
        done = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--no-session",
                       "-e", "nosuch", "-p", "hi", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "hi\n"
    warning = [line for line in done.stderr.splitlines() if "nosuch" in line]
    assert len(warning) == 1 and "no bundled extension is named 'nosuch'" in warning[0]
    assert "a file's name needs a / or .py" in warning[0]


def test_no_extension_with_a_name_that_is_not_bundled_is_a_usage_error(tmp_path):
    done = run_cli("--no-extension", "nosuch", "-p", "hi", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "--no-extension nosuch: no bundled extension has that name" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


NOTE_SETUP = "def setup(api):\n    open({marker!r}, 'a').write('{name} ')\n"


def test_settings_list_files_relative_to_their_folder_and_no_extensions_skips_them(
        tmp_path, private_home):
    marker = tmp_path / "loaded"
    (private_home / "mine").mkdir()
    (private_home / "mine" / "gate.py").write_text(NOTE_SETUP.format(marker=str(marker),
                                                                     name="settings"))
    (tmp_path / "e.py").write_text(NOTE_SETUP.format(marker=str(marker), name="e"))
    (private_home / "settings.json").write_text(json.dumps({"extensions": ["mine/gate.py"]}))
    script = write_script(tmp_path, [answer("ok"), answer("ok")])
    for flags, loaded in (((), "settings e "), (("--no-extensions",), "e ")):
        marker.write_text("")
        done = run_cli("--script", script, "--no-session", *flags, "-e", "e.py",
                       "-e", str(tmp_path / "e.py"), "-p", "hi", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert marker.read_text() == loaded  # -e e.py twice by the same path: loaded once
    (private_home / "settings.json").write_text(json.dumps({"extensions": "gate.py"}))
    done = run_cli("--script", script, "-p", "hi", cwd=tmp_path)
    assert done.returncode == 2 and "extensions must be a list of extension names or files" in done.stderr


COMMAND = """
def setup(api):
    def hello(argument):
        api.ctx.ui.set_status("hello", "said")
        return f"hello {argument}"
    api.register_command("hello", hello, "Say hello")
"""


def test_an_rpc_prompt_naming_an_extension_command_runs_it(tmp_path):
    ext = tmp_path / "hello.py"
    ext.write_text(COMMAND)
    rpc = Rpc(tmp_path, "--script", write_script(tmp_path, [answer("ok")]), "--no-session",
              "-e", str(ext))
    try:
        rpc.send({"id": "p", "type": "prompt", "message": "/hello there"})
        records = rpc.until(lambda r: r.get("id") == "p")
        assert records[-1]["data"] == {"disposition": "handled"}
        told = of_type(records, "extension_ui_request")
        assert [(r["method"], r.get("message")) for r in told] == [
            ("setStatus", None), ("notify", "hello there")]
        listed = rpc.call({"type": "get_commands"})["commands"]
        assert [(c["name"], c["sourceInfo"]["path"]) for c in listed] == [
            ("undo", "builtin:checkpoints"), ("plan", "builtin:plan"),  # bundled ones as pi's
            ("hello", str(ext))]                                          # built-ins
        assert rpc.call({"type": "get_state"})["messageCount"] == 0  # nothing reached the model
        rpc.close()
    finally:
        rpc.kill()


def test_extensions_lists_each_bundled_one_on_or_off_and_the_files(monkeypatch):
    monkeypatch.setattr("miniagent.extensions.BUNDLED", {"undo": "take back", "jobs": "run"})
    assert listing(["undo", "/home/me/.miniagent/extensions/gate.py"]) == [
        "bundled:", "  undo  on   take back", "  jobs  off  run  (-e jobs)",
        "files:", "  /home/me/.miniagent/extensions/gate.py"]
