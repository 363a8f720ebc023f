"""The errors a user sees: each one a line of text and an exit status.

A failure deep inside (a broken models.json, an unreadable session file, a summary
the model would not write) travels up as one of these classes, and the front end
that catches it prints its message and picks the exit status: the command line turns
a ConfigError into 2 and a SessionError into 1; the REPL prints the line and goes on.
Keeping them in one module lets a reader see every such failure at a glance, and lets
any layer raise one without importing the layer that catches it.

Left out on purpose: the errors that are a contract between two parts rather than a
message for the user. A tool raises `ToolError` (tools/__init__.py) so the loop can
tell the model; a provider's `ProviderError` and the HTTP layer's `Failure` never
leave their layer (a stream ends in an error message instead of raising).
"""

import signal

# Signals that mean "stop": Ctrl-C, `kill` / `timeout`, and a closed terminal. The
# first aborts the run, so that bash kills its process group instead of leaving
# commands running after we are gone (they run in their own session: the terminal's
# hangup would not reach them); a second one quits at once (QuitNow).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class QuitNow(SystemExit):
    """A second stop signal: the run is over at once (tools/hardening/reaper.py's
    quit_now sweeps first). Raised, not exited, so that only the real entry point ends
    the process (cli.main, with os._exit); a caller of main() in its own process (a
    test) gets the exit status back."""


class ConfigError(Exception):
    """No usable model or configuration file: the message says what to do (the command
    line prints it and exits 2)."""


class SessionError(Exception):
    """A session file that cannot be read, trusted or written. One line, naming the file;
    the command line turns it into exit status 1."""


class MoveCancelled(SessionError):
    """An extension's session_before_* handler cancelled a move (/new, /resume,
    /fork, clone, /tree); the session stays where it was."""


class ExportError(SessionError):
    """A session that cannot be read, or a page that cannot be written (one line)."""


class CompactionError(Exception):
    """A summary could not be made. The message is one line for the user; `aborted` is
    True when the user cancelled it."""

    def __init__(self, message: str, aborted: bool = False):
        super().__init__(message)
        self.aborted = aborted


class SkillError(ValueError):
    """`/skill:name` named no loaded skill; the message lists the ones there are."""
