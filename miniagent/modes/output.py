"""Writing to stdout and stderr when they may be gone: the command line's hardening.

A program in a pipeline meets situations a script in a terminal never does: stderr
closed (`2>&-`), stdout's reader gone (`miniagent --mode json ... | head -1`), a full
disk behind `> answer.txt`. Each must end in one line and the right exit status, never
a traceback. The front ends (print_mode.py, subcommands/, cli.py) write through these
helpers:

    say("miniagent: no prompt")     a line on stderr, silently dropped if stderr is gone
    redact_stderr()                 every later write to stderr without the API key
    reader_gone(sys.stdout)         True once the pipe's reader has closed its end
    stdout_failure(error)           141 for a reader that left, 1 (with a line) otherwise
    silence_stdout()                point stdout at /dev/null after a failure
    ArgumentParser                  argparse whose mistakes are one line
    describe_age(mtime), print_json(value)   what the listings (sessions, search) share

Left out: colour and terminal control codes (render.py and terminal.py).
"""

import argparse
import os
import select
import sys
import time
from typing import Any, NoReturn, TextIO

from ..files.redaction import redact
from ..files.text import to_json

PIPE_CLOSED = 141  # the exit status of a program killed by SIGPIPE, as shells report it


def say(text: str) -> None:
    """A line on stderr, which may be gone already (a closed terminal, 2>&-)."""
    if sys.stderr is None:
        return
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def stderr_on_terminal() -> bool:
    """Is a person watching stderr? Progress lines are for them, not for a script's log."""
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):  # a closed stream
        return False


class RedactedStream:
    """A text stream that redacts the API key from each write (files/redaction.py) and is
    otherwise the stream it wraps."""

    def __init__(self, stream: TextIO):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...
        return getattr(self.stream, name)


def redact_stderr() -> None:
    """From now on every write to sys.stderr goes through redact: our own lines, the
    steps of a run, a warning, even a traceback (a server's error may quote the key)."""
    if sys.stderr is not None and not isinstance(sys.stderr, RedactedStream):
        sys.stderr = RedactedStream(sys.stderr)


def usage_error(text: str) -> int:
    """Say what is wrong with the command line; 2 is the status for usage problems."""
    say(f"miniagent: {text}")
    return 2


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a mistake is one line naming the next step, not the whole usage
    (miniagent has many flags: the usage alone is a screenful).

    Example: `miniagent --bogus` -> "miniagent: unrecognized arguments: --bogus (see
    --help)", exit status 2.
    """

    def error(self, message: str) -> NoReturn:
        usage_error(f"{message} (see {self.prog} --help)")
        raise SystemExit(2)


def reader_gone(stream: TextIO) -> bool:
    """True when `stream` is a pipe whose reading end was closed: poll() reports an
    error on the writing end. A terminal or a file never does."""
    try:
        poller = select.poll()
        poller.register(stream.fileno(), select.POLLOUT)
    except (OSError, ValueError):  # no file descriptor (a test's StringIO)
        return False
    return any(events & select.POLLERR for _, events in poller.poll(0))


def stdout_failure(error: OSError) -> int:
    """The exit status when stdout could not be written: a reader that went away is
    normal in a pipeline (141, silently); anything else (a full disk) is an error."""
    silence_stdout()
    if isinstance(error, BrokenPipeError):
        return PIPE_CLOSED
    say(f"miniagent: cannot write to stdout: {error.strerror or error}")
    return 1


def silence_stdout() -> None:
    """Point stdout at /dev/null: once writing has failed, Python's own flush at exit
    would otherwise fail again with a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    os.close(devnull)


# --- What every listing shares -------------------------------------------------------


def describe_age(modified: float) -> str:
    """Seconds since the epoch as a short age: "5 min ago", "3 h ago", "2 d ago"."""
    seconds = max(0, time.time() - modified)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def print_json(value: Any) -> None:
    sys.stdout.write(to_json(value, indent=2) + "\n")
