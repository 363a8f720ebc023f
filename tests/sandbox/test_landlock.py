"""landlock.py and the probe: what a confined command cannot do, on this kernel.

Every command runs for real through the launcher (conftest.py's Box: the project, its
sibling "outside", a private temp folder); restricting the test process itself would
confine pytest for good.
"""

import os
import socket
import subprocess
import sys

from miniagent.sandbox import landlock, policy_for, unavailable


def test_abi_reports_the_kernels_version_or_the_test_switch(monkeypatch):
    monkeypatch.delenv(landlock.TEST_ABI, raising=False)
    assert landlock.abi() >= 1
    monkeypatch.setenv(landlock.TEST_ABI, "3")
    assert landlock.abi() == 3


def test_write_accesses_grow_with_the_abi():
    assert landlock.write_accesses(1) & landlock.REFER == 0
    assert landlock.write_accesses(2) & landlock.REFER
    assert landlock.write_accesses(3) & landlock.TRUNCATE
    assert landlock.write_accesses(4) == landlock.write_accesses(3)
    assert landlock.write_accesses(7) & landlock.IOCTL_DEV
    assert landlock.write_accesses(7) & (landlock.READ_FILE | landlock.READ_DIR | landlock.EXECUTE) == 0


def test_probe_says_what_cannot_be_enforced(monkeypatch, tmp_path):
    workspace = policy_for("workspace", str(tmp_path))
    assert unavailable(policy_for("off", str(tmp_path))) is None
    assert unavailable(workspace) is None
    monkeypatch.setenv(landlock.TEST_ABI, "0")
    assert unavailable(workspace) == "this kernel has no Landlock (Linux 5.13+ with landlock in the LSM list)"
    assert unavailable(policy_for("off", str(tmp_path))) is None
    monkeypatch.setenv(landlock.TEST_ABI, "3")
    assert "cannot refuse TCP connections" in unavailable(workspace)
    assert unavailable(policy_for("workspace", str(tmp_path), network=True)) is None
    monkeypatch.setattr(sys, "platform", "darwin")
    assert unavailable(workspace) == "the sandbox needs Linux (Landlock); this is darwin"


def test_workspace_writes_nothing_outside_the_project(box):
    (box.project / "notes.txt").write_text("mine\n")
    os.symlink(box.outside, box.project / "link-out")
    attempts = [
        f"echo x > {box.outside}/redirected",
        f"cp notes.txt {box.outside}/copied",
        f"{sys.executable} -c \"open('{box.outside}/python', 'w').write('x')\"",
        "touch link-out/through-link",
        f"echo x > /proc/self/root{box.outside}/via-proc",
        f"mkdir {box.outside}/folder",
        f"ln notes.txt {box.outside}/hardlink",
        f"mv notes.txt {box.outside}/moved",
    ]
    for command in attempts:
        result = box.run(command)
        assert result.returncode != 0, command
        assert "Permission denied" in result.stderr or "Operation not permitted" in result.stderr, result.stderr
    assert box.outside_files() == []
    assert (box.project / "notes.txt").read_text() == "mine\n"


def test_workspace_writes_the_project_its_temp_and_the_devices(box):
    result = box.run('echo made > made.txt && mkdir sub && mv made.txt sub/ && rm -r sub'
                     ' && echo t > "$TMPDIR/t" && echo x > /dev/null && head -c 1 /dev/zero > inside'
                     ' && echo done')
    assert (result.returncode, result.stdout) == (0, "done\n"), result.stderr
    assert (box.temp / "t").read_text() == "t\n"


def test_read_only_changes_nothing_and_reads_everything(box):
    (box.project / "a.py").write_text("print('hello')\n")
    (box.project / "src").mkdir()
    before = snapshot(box.project)
    for command in ["echo x > a.py", "touch new", "rm a.py", "mkdir made", "mv a.py b.py",
                    "rmdir src", f"{sys.executable} -c \"open('a.py', 'a').write('#')\"", ": > a.py"]:
        result = box.run(command, mode="read-only")
        assert result.returncode != 0, command
    assert snapshot(box.project) == before
    result = box.run("cat a.py && grep -n hello a.py && find . -name '*.py' && ls"
                     ' && echo scratch > "$TMPDIR/s" && cat "$TMPDIR/s" > /dev/null && echo ok', mode="read-only")
    assert result.stdout == "print('hello')\n1:print('hello')\n./a.py\na.py\nsrc\nok\n", result.stderr


def snapshot(folder):
    """Every path under `folder` with its contents (None for a folder)."""
    found = {}
    for parent, folders, files in os.walk(folder):
        for name in folders:
            found[os.path.join(parent, name)] = None
        for name in files:
            path = os.path.join(parent, name)
            with open(path, "rb") as handle:
                found[path] = handle.read()
    return found


def test_network_off_refuses_tcp_and_net_allows_it(box, require_abi):
    require_abi(4, "refusing TCP")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        connect = f"{sys.executable} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 10).close()\""
        refused = box.run(connect)
        assert refused.returncode != 0 and "PermissionError" in refused.stderr
        allowed = box.run(connect, network=True)
        assert allowed.returncode == 0, allowed.stderr
    bind = f"{sys.executable} -c \"import socket; socket.create_server(('127.0.0.1', 0)).close()\""
    assert box.run(bind).returncode != 0
    assert box.run(bind, network=True).returncode == 0


def test_signals_to_processes_outside_are_refused_inside_they_work(box, require_abi):
    require_abi(6, "scoping signals")
    waiting = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        result = box.run(f"kill -TERM {waiting.pid}")
        assert result.returncode != 0 and "Operation not permitted" in result.stderr
        assert waiting.poll() is None
        inside = box.run("sleep 60 & kill $! && wait $!; echo $?")
        assert inside.stdout == "143\n"
    finally:
        waiting.stdin.close()
        waiting.wait(timeout=30)


def test_no_new_privileges_and_no_mounts(box):
    result = box.run(f"grep NoNewPrivs /proc/self/status; mount -t tmpfs none {box.outside}; echo $?")
    assert result.stdout.splitlines()[0] == "NoNewPrivs:\t1"
    assert result.stdout.splitlines()[1] != "0", result.stderr  # root included: Landlock refuses mounts
    with open("/proc/self/mounts") as mounts:
        assert str(box.outside) not in mounts.read()
