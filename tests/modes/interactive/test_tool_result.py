"""A finished tool call as the terminal shows it (tool_result.py): folded to the end
that matters, opened and closed in place, made again for a new width."""

from miniagent.modes.interactive.tool_result import FinishedCall, count_line
from miniagent.tui.style import Style


def bash_end(output):
    return {"type": "tool_execution_end", "toolCallId": "b", "toolName": "bash",
            "args": {"command": "seq 60"}, "isError": False,
            "result": {"content": [{"type": "text", "text": output}]}}


def test_a_finished_call_folds_to_its_end_and_opens_in_place():
    call = FinishedCall("  $ seq 60", bash_end("\n".join(str(n) for n in range(1, 61))),
                        Style(False), hint=True)
    assert call.lines(80) == ["  $ seq 60", "    … 55 lines before (Ctrl+O shows them)"] + [
        f"    {n}" for n in range(56, 61)]
    assert call.is_folded(80)
    call.toggle()
    assert call.lines(80) == call.whole(80) == ["  $ seq 60"] + [f"    {n}" for n in range(1, 61)]
    call.toggle()
    assert len(call.lines(80)) == 7
    assert count_line("… 55 more lines", True) == "    … 55 more lines (Ctrl+O shows them)"


def test_its_lines_are_made_again_for_a_new_width():
    edit = {"type": "tool_execution_end", "toolCallId": "e", "toolName": "edit",
            "args": {"path": "a.py"}, "isError": False,
            "result": {"content": [{"type": "text", "text": "ok"}],
                       "details": {"diff": "+1 " + "x" * 100}}}
    call = FinishedCall("  edit a.py", edit, Style(False), hint=False)
    assert call.lines(80)[1] == "    +1 " + "x" * 72  # a diff is cut at the edge
    assert call.lines(40)[1] == "    +1 " + "x" * 32  # (after a resize, at the new one)
