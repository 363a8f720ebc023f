"""python -m miniagent inside a clone nobody has vetted: the clone's Python files stay data.

Python puts the working directory first on sys.path for `python -m`, so a clone's
`secrets.py` would be imported in place of the standard module. __main__.py takes that
entry away before importing anything of ours; what Python itself imports before our
first line (runpy on 3.10, importlib on 3.13) is beyond reach, and the docs say so."""

from helpers import run_cli, write_script

# Modules miniagent imports after __main__.py starts (none is loaded by Python's own
# start-up on 3.10-3.13), each written as a trap that leaves a marker when imported.
TRAPS = ("secrets", "requests", "json", "argparse", "shlex")


def test_a_clones_python_files_do_not_run(tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    marker = tmp_path / "ran"
    for name in TRAPS:
        (clone / f"{name}.py").write_text(
            f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n")
    script = write_script(tmp_path, [
        {"content": [{"type": "toolCall", "name": "bash", "arguments": {"command": "echo hi"}}]},
        {"content": [{"type": "text", "text": "answered"}]}])
    result = run_cli("--script", script, "--no-session", "-p", "go", cwd=str(clone))
    assert not marker.exists(), f"imported from the clone: {marker.read_text().split()}"
    assert result.returncode == 0, result.stderr
    assert result.stdout == "answered\n"
