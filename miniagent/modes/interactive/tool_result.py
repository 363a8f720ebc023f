"""tool_result: a finished tool call as the terminal shows it: a header and its result,
folded; the latest one opened in place by Ctrl+O while it is still in the live area.

A tool's output can run to thousands of lines, and the terminal shows a few of them
and a count. Which few depends on what the output is:

    a command (bash, and any tool but the four below)   its last lines: a test run's
                                                       verdict, a build's error, a
                                                       traceback's cause are at the end
    read, grep, find, ls                                its first lines: a file or a
                                                       listing is read from its top
    an edit                                             its diff's first lines (tui/diff_view)
    a write                                             the file's first lines
    the user's own `!cmd`                               its last 50 (what was just run)
    an error                                            its last lines (its cause)

    $ pytest -q                                        (bold)
        … 212 lines before (Ctrl+O shows them)
        FAILED tests/test_app.py::test_total
        1 failed, 214 passed in 3.2s

Where the whole result goes: the newest finished call stays in the live area (the run
view, view.py, draws it above what comes next) until the next line goes to the
scrollback. While it is there, Ctrl+O opens it in place, and closes it again; once it
is in the scrollback, which cannot be changed, Ctrl+O prints it whole below instead.

The lines are made for the width the live area has when it is drawn, so a finished
call still in the live area is drawn again at a new width after a resize.
"""

from typing import Any, Dict, List, Tuple

from ...core.messages import text_of
from ...tui.diff_view import render_diff
from ...tui.style import Style
from ..render import FOLD_LINES, USER_SHELL_LINES, fold_result
from ..terminal import for_terminal
from ..usershell import CALL_ID as USER_SHELL_CALL

DIFF_LINES = 20  # diff lines shown for an edit before "… N more lines"
WRITE_LINES = 5  # lines of a written file shown under the call
HINT = " (Ctrl+O shows them)"  # after a fold's count, where the key works
READ_FROM_THE_TOP = ("read", "grep", "find", "ls")  # the tools whose first lines matter


class FinishedCall:
    """One finished tool call: its header and its result, folded or opened.

    Example: call = FinishedCall("  $ seq 60", event, Style(False), hint=True)
             call.lines(80) -> ["  $ seq 60", "    … 55 lines before (Ctrl+O shows them)",
                                "    56", ..., "    60"]
             call.toggle(); call.lines(80) -> the header and all 60 lines
    """

    def __init__(self, title: str, event: Dict[str, Any], style: Style, hint: bool):
        self.title = title
        self.event = event
        self.style = style
        self.hint = hint
        self.opened = False  # Ctrl+O opened it in place
        self._made: Tuple[int, List[str], List[str]] = (-1, [], [])  # width, shown, whole

    def lines(self, width: int) -> List[str]:
        """The header and the result as shown now: folded, or whole once opened."""
        shown, whole = self._results(width)
        return [self.title] + (whole if self.opened else shown)

    def whole(self, width: int) -> List[str]:
        return [self.title] + self._results(width)[1]

    def is_folded(self, width: int) -> bool:
        shown, whole = self._results(width)
        return len(shown) != len(whole)

    def toggle(self) -> None:
        self.opened = not self.opened

    def _results(self, width: int) -> Tuple[List[str], List[str]]:
        """The folded and the whole result at this width, made once per width."""
        if self._made[0] != width:
            self._made = (width, shown_result(self.event, self.style, width - 4, hint=self.hint),
                          shown_result(self.event, self.style, width - 4, whole=True))
        return self._made[1], self._made[2]


def shown_result(event: Dict[str, Any], style: Style, width: int,
                 whole: bool = False, hint: bool = False) -> List[str]:
    """A finished call's result as lines to show under its header (see the table at the
    top): an edit's diff in colour, a write's first lines of the file, other results
    folded by render.fold_result, to their first or their last lines. `whole`: nothing
    folded; `hint`: the count line says that Ctrl+O shows the rest."""
    details = (event.get("result") or {}).get("details") or {}
    args = event.get("args") if isinstance(event.get("args"), dict) else {}
    error = event["isError"]
    if not error and isinstance(details.get("diff"), str):
        return ["    " + line for line in render_diff(
            for_terminal(details["diff"]), width, style, None if whole else DIFF_LINES,
            HINT if hint else "")]
    text, keep = text_of(event["result"]), FOLD_LINES
    keep_end = error or event["toolName"] not in READ_FROM_THE_TOP
    if not error and event["toolName"] == "write" and isinstance(args.get("content"), str):
        text, keep, keep_end = args["content"], WRITE_LINES, False
    elif event["toolCallId"] == USER_SHELL_CALL:
        keep = USER_SHELL_LINES
    lines = fold_result(text, keep_end, 10**9 if whole else keep)
    marker = "    ! " if error else "    "
    return [style.apply(for_terminal(count_line(line, hint) if line.startswith("… ") else
                                     marker + line), "red" if error else "dim")
            for line in lines]


def count_line(line: str, hint: bool) -> str:
    """Example: ("… 55 more lines", True) -> "    … 55 more lines (Ctrl+O shows them)"."""
    return f"    {line}{HINT}" if hint else f"    {line}"
