"""`!cmd` in the REPL: the user runs a shell command, and the model may read the output.

Sometimes it is quicker to run `git status` yourself than to ask for it. A line that
starts with `!` is run by the shell, exactly as the bash tool runs a command (same
process group, same kill on Ctrl-C, same cut of a huge output), and shown much the same
way: the last lines live while it runs, then the result under its line, the last 50
lines of it (a model's call shows only 5: the user asked for this output to read it).

    > !pytest -q             runs it; the output becomes a `bashExecution` message in the
                             session and the context, so the next prompt can say "fix that"
    > !!ls                   runs it for you only: the message is recorded with
                             excludeFromContext, and the model never sees it (session/convert.py)

Under --sandbox the command runs confined as the model's do (same launcher, same note
when it fails on a denial): `!cmd` goes into the context the model reads, so a command
that escaped the sandbox there could write what the model asked for; `/sandbox off`
is how a user runs something unconfined, on purpose.

The message is added outside any run of the agent, so no event records it: this module
appends it to the session file and to the agent's messages itself.

Left out: commands that read the keyboard (stdin is empty, as for the bash tool),
`!cmd` while the agent works (it is a prompt-time command).
"""

import codecs
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Tuple

from ..session.convert import bash_execution_message
from ..core.messages import text_of
from ..core.tools import ToolError
from ..tools import Unconfined
from ..tools.bash import finish, partial_result
from ..tools.hardening.process import OutputSink, run_command

if TYPE_CHECKING:  # for the reader only: the terminal and rpc pass their Harness
    from ..harness.harness import Harness

CALL_ID = "user-shell"  # the id of the pretend tool call the live view is shown


def parse_shell_line(line: str) -> Optional[Tuple[str, bool]]:
    """(command, excluded from the context) for a `!` line, else None.

    Examples: "!ls -la" -> ("ls -la", False); "!!ls" -> ("ls", True); "ls" -> None
    """
    stripped = line.strip()
    if not stripped.startswith("!"):
        return None
    excluded = stripped.startswith("!!")
    return stripped[2 if excluded else 1:].strip(), excluded


def run_user_command(command: str, cwd: str, abort: threading.Event,
                     show: Callable[[Dict[str, Any]], None],
                     excluded: bool = False,
                     on_text: Callable[[str], None] = lambda text: None,
                     sandbox: Unconfined = Unconfined()) -> Dict[str, Any]:
    """Run `command` in `cwd` until it ends or `abort` is set, confined by `sandbox`,
    showing it through `show` (a view taking the bash tool's events) and handing
    `on_text` each piece of output as it comes (rpc's bash_execution_update); returns
    the bashExecution message."""
    args = {"command": command}
    show({"type": "tool_execution_start", "toolCallId": CALL_ID, "toolName": "bash",
          "args": args})
    with OutputSink() as sink:
        pieces = OutputPieces(sink, on_text)

        def on_output() -> None:
            pieces.hand_on()
            show({"type": "tool_execution_update", "toolCallId": CALL_ID, "toolName": "bash",
                  "args": args, "partialResult": {"content": partial_result(sink).content}})
        # What it leaves running (`!server &`) is stopped at exit, as the bash tool's is.
        code, stopped_by, _ = run_command(command, cwd, sink, None, abort, on_output=on_output,
                                          launcher=sandbox.launcher())
        pieces.hand_on(final=True)
        try:  # the bash tool's own words for the ending ("Command exited with code 2")
            result = finish(sink, code, stopped_by, None, sandbox)
            shown, failed = text_of({"content": result.content}), False
        except ToolError as error:
            shown, failed = str(error), True
        truncation = sink.truncation()  # after finish(): a cut output is saved by now
        message = bash_execution_message(
            command, truncation.content, None if stopped_by else code,
            cancelled=stopped_by == "aborted", truncated=truncation.truncated,
            full_output_path=sink.path if truncation.truncated else None,
            exclude_from_context=excluded)
    show({"type": "tool_execution_end", "toolCallId": CALL_ID, "toolName": "bash",
          "args": args, "isError": failed,
          "result": {"content": [{"type": "text", "text": shown}]}})
    return message


class OutputPieces:
    """The output a sink received since the last look, as text: the sink keeps only a
    tail, so each look takes the bytes that arrived since (they are at its end), and a
    character split between two reads waits for its other half."""

    def __init__(self, sink: OutputSink, on_text: Callable[[str], None]):
        self.sink, self.on_text = sink, on_text
        self.seen = 0
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def hand_on(self, final: bool = False) -> None:
        new = self.sink.total_bytes - self.seen
        self.seen = self.sink.total_bytes
        data = bytes(self.sink.tail[-new:]) if new > 0 else b""
        text = self.decoder.decode(data, final)
        if text:
            self.on_text(text)


def record(harness: "Harness", message: Dict[str, Any]) -> None:
    """Add the message to the session file and to what the model sees next
    (session/convert.py leaves it out of the requests when it is excluded)."""
    harness.session.append_message(message)
    harness.agent.messages.append(message)
