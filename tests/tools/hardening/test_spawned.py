"""spawned: a command left running on purpose, started as bash starts one (the shell,
its environment, a process group of its own, the launcher) and killed with all it
started; a process a bash call left running, adopted by its pid."""

import os

from miniagent.tools.hardening import reaper
from miniagent.tools.hardening.spawned import Spawned
from helpers import is_alive, run_bash, wait_gone


def read_all(job):
    return b"".join(iter(lambda: job.stdout.read1(65536), b"")).decode()


def test_a_job_starts_as_bash_starts_a_command_and_runs_until_it_ends(tmp_path):
    job = Spawned.start('echo "$GIT_PAGER $(pwd)"; echo err >&2; exit 3', str(tmp_path))
    assert read_all(job) == f"cat {tmp_path}\nerr\n"  # the environment, the folder, 2>&1
    job.stdout.close()
    assert wait_gone(job.pid)  # ended: a zombie until running() reaps it
    assert not job.running() and job.returncode == 3
    assert all(proc.pid != job.pid for proc in reaper._running)  # reaped: forgotten


def test_kill_stops_the_job_with_what_it_started_and_the_sweep_forgets_it(tmp_path):
    job = Spawned.start("sleep 300 & echo $!; wait", str(tmp_path))
    child = int(job.stdout.readline())
    assert job.running() and is_alive(child)
    assert os.getpgid(job.pid) == job.pid  # a process group of its own
    assert any(proc.pid == job.pid for proc in reaper._running)  # the sweep would kill it
    job.kill()
    job.stdout.close()
    assert not job.running() and job.returncode == -9
    assert wait_gone(child)
    assert all(proc.pid != job.pid for proc in reaper._running)


def test_a_job_starts_through_the_launcher(tmp_path):
    launcher = tmp_path / "launch"
    launcher.write_text('#!/bin/sh\necho launched\nexec "$@"\n')
    launcher.chmod(0o755)
    job = Spawned.start("echo ran", str(tmp_path), launcher=(str(launcher),))
    assert read_all(job) == "launched\nran\n"
    job.stdout.close()


def test_an_adopted_process_is_known_by_its_pid_and_stopped(tmp_path):
    result = run_bash(tmp_path, "sleep 300 & echo $! > left.pid")
    pid = int((tmp_path / "left.pid").read_text())
    try:
        assert result.details["leftRunning"][0]["pid"] == pid
        adopted = Spawned.adopt(pid)
        assert adopted.stdout is None and adopted.running()
        adopted.kill()
        assert wait_gone(pid) and not adopted.running()
        adopted.kill()  # once it is gone, its pid is never signalled again
    finally:
        if is_alive(pid):
            os.kill(pid, 9)
