"""`miniagent script FILE`: a recorded session turned into a script for the scripted model.

The scripted model (providers/scripted.py) replays a list of assistant turns. A session
file (session/tree.py) already holds every turn a real model gave, so a real run can be shown
again offline: the same prompts, the same replies, and the *real* tools running against
a copy of the project. That is how a teacher replays a session to a room without a key
or a network:

    miniagent script ~/.miniagent/sessions/--home-u-proj--/2026-03-15T10-20-30-123Z_0f8e.jsonl
    cp -r proj /tmp/proj-copy && cd /tmp/proj-copy
    miniagent --provider scripted --script .../2026-03-15T10-20-30-123Z_0f8e.script.json

The conversion reads the session's current branch (root to the last entry, the one a
resumed session would continue) and keeps, in order:

    user message             its text goes to "prompts" (a replay with no prompt plays them all)
    assistant reply          its text, thinking and tool calls become one turn
    failed reply, retried    dropped: the harness asked again, and the retry is the next turn
    failed reply, last of    (the user pressed Ctrl-C, or retries ran out) a plain turn with
    its run                  the text it had got to and no tool calls, so the run ends there
                             and the next prompt gets its own turns
    tool results             dropped: the replay runs the tools for real

    {"prompts": ["Fix hello.py"],
     "turns": [{"content": [{"type": "toolCall", "id": "call_1", "name": "bash",
                             "arguments": {"command": "python3 hello.py"}}]},
               {"content": [{"type": "text", "text": "Fixed."}]}]}

Recorded usage is dropped unless `keep_usage` is set: a replay that reported the real
token counts would look as full as the real context and could start compacting.

Left out: steering messages typed while the agent worked become ordinary prompts (the
replay runs them after the run instead of inside it), tool-call arguments a server sent
as broken JSON replay as {}, and images are not replayed.
"""

import os
import sys
from typing import Any, Callable, Dict, List, Optional

from .export import blocks_of, load_session, message_text, write_output
from ..errors import ExportError, SessionError
from ..core.messages import is_failed
from ..files.text import to_json
from ..session.ids import resolve_session
from ..session.rebuild import path_to
from ..session.stats import TOKEN_FIELDS
from ..modes.output import ArgumentParser


def session_to_script(session_path: str, keep_usage: bool = False,
                      warn: Optional[Callable[[str], None]] = None) -> Dict[str, Any]:
    """The script of a session file (ours or pi's, versions 1-3). Raises ExportError
    (one line) when the file cannot be read or is not a session."""
    loaded = load_session(session_path, warn)
    return entries_to_script(current_branch(loaded.entries), keep_usage)


def write_script(session_path: str, out_path: Optional[str] = None, keep_usage: bool = False,
                 warn: Optional[Callable[[str], None]] = None) -> str:
    """Write the script (default: <session>.script.json beside the session, or in the
    current folder when that one cannot be written); returns the path written."""
    script = session_to_script(session_path, keep_usage, warn)
    text = to_json(script, indent=2) + "\n"
    return write_output(text, out_path, session_path, ".script.json")


def current_branch(entries: List[dict]) -> List[dict]:
    """Root -> the last entry in the file: the branch the session ended on."""
    if not entries:
        return []
    return path_to(entries[-1], {entry["id"]: entry for entry in entries})


def entries_to_script(entries: List[dict], keep_usage: bool = False) -> Dict[str, Any]:
    """{"prompts": [...], "turns": [...]} from the entries of one branch, in order."""
    messages = [entry["message"] for entry in entries if entry["type"] == "message"]
    prompts, turns = [], []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "user":
            prompts.append(message_text(message))
        elif role == "assistant" and not is_failed(message):
            turns.append(to_turn(message, keep_usage))
        elif role == "assistant" and not was_retried(messages, index):
            turns.append(ending_turn(message))
    return {"prompts": prompts, "turns": turns}


def was_retried(messages: List[dict], index: int) -> bool:
    """A failed reply was retried when the next reply follows it without a user prompt
    in between (the harness asked again, pi and miniagent alike)."""
    for later in messages[index + 1:]:
        if later.get("role") == "user":
            return False
        if later.get("role") == "assistant":
            return True
    return False


def to_turn(message: Dict[str, Any], keep_usage: bool) -> Dict[str, Any]:
    """One reply as one scripted turn: only the blocks the scripted model streams."""
    turn: Dict[str, Any] = {"content": [block for block in map(to_block, blocks_of(message))
                                        if block is not None]}
    if message.get("stopReason") == "length":  # a reply cut off is replayed cut off
        turn["stopReason"] = "length"
    usage = message.get("usage")
    if keep_usage and isinstance(usage, dict):
        turn["usage"] = {key: usage[key] for key in TOKEN_FIELDS
                         if isinstance(usage.get(key), int) and usage[key] >= 0}
    return turn


def ending_turn(message: Dict[str, Any]) -> Dict[str, Any]:
    """A failed reply that ended its run: what text it had, and nothing to run."""
    return {"content": [block for block in map(to_block, blocks_of(message))
                        if block is not None and block["type"] != "toolCall"]}


def to_block(block: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """A text, thinking or toolCall block as the scripted model reads it, else None.

    Example: {"type": "thinking", "thinking": "hm", "thinkingSignature": "x"}
             -> {"type": "thinking", "thinking": "hm"}
    """
    kind = block.get("type")
    if kind in ("text", "thinking") and isinstance(block.get(kind), str):
        return {"type": kind, kind: block[kind]}
    if kind == "toolCall" and isinstance(block.get("name"), str):
        arguments = block.get("arguments")
        call = {"type": "toolCall", "name": block["name"],
                "arguments": arguments if isinstance(arguments, dict) else {}}
        if isinstance(block.get("id"), str):
            call["id"] = block["id"]  # the replay's tool results answer the same ids
        return call
    return None


# --- The subcommand ---------------------------------------------------------------------


def main(argv: List[str]) -> int:
    """`miniagent script FILE [-o SCRIPT] [--keep-usage]`: prints the path written."""
    parser = ArgumentParser(
        prog="miniagent script",
        description="Turn a recorded session (miniagent's or pi's) into a script for "
                    "`--provider scripted --script SCRIPT`, which replays it offline.")
    parser.add_argument("session", metavar="SESSION",
                        help="a session file (.jsonl), an id or id prefix")
    parser.add_argument("-o", "--output", metavar="SCRIPT",
                        help="where to write (default: beside FILE, ending .script.json)")
    parser.add_argument("--keep-usage", action="store_true",
                        help="keep the recorded token counts (a replay may then compact)")
    args = parser.parse_args(argv)
    try:
        session = resolve_session(args.session, os.getcwd())
        path = write_script(session, args.output, args.keep_usage, warn=print_warning)
    except (ExportError, SessionError) as error:
        print(f"miniagent script: {error}", file=sys.stderr)
        return 1
    print(path)
    return 0


def print_warning(line: str) -> None:
    print(f"miniagent script: {line}", file=sys.stderr)
