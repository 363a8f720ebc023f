"""What the model sees: session message kinds turned into wire messages.

A provider speaks three roles: user, assistant and toolResult. A session holds more
kinds than that, because some things matter to the user (and to the next run) without
being something the model said or was told in those words:

    compactionSummary   the summary that replaced older messages (compaction.py)
    branchSummary       what happened on a branch the user left (/tree)
    bashExecution       a command the user ran themselves with `!cmd`
    custom              a message an extension added

Just before each model call the loop hands the conversation to `convert_to_llm`, which
turns every such kind into a user message in words the model can act on, and leaves
the three wire roles as they are. The loop never learns what the kinds mean (it gets
this function the way it gets the stream function), and providers never see a role
they do not know: anything unrecognised is left out.

A worked example:

    {"role": "bashExecution", "command": "ls", "output": "a.py", "exitCode": 0, ...}
        -> {"role": "user", "content": [{"type": "text",
            "text": "I ran `ls` in my shell. Output:\\n```\\na.py\\n```"}], ...}

    {"role": "bashExecution", ..., "excludeFromContext": True}   (from `!!cmd`)
        -> left out: the user ran it for themselves only

This module also builds the two kinds a front end creates (the REPL's `!cmd`, an
extension's message); the summaries come from session entries (rebuild.py).

Left out: pi's setting that replaces images with a text placeholder.
"""

from typing import Any, Dict, List, Optional

from ..core.messages import Message, now_ms, text_block
from ..project.wrappers import defuse_closing_tags

WIRE_ROLES = ("user", "assistant", "toolResult")

# The words around a summary. A model reads them as "this happened earlier", so it
# carries on from the summary instead of answering it.
COMPACTION_PREFIX = ("Earlier messages of this conversation were replaced by the summary "
                     "below, to save room in the context window:\n\n<summary>\n")
BRANCH_PREFIX = ("The user explored another branch of this conversation and came back to "
                 "this point. A summary of that branch:\n\n<summary>\n")
SUMMARY_END = "\n</summary>"


# --- Building the app-level kinds ------------------------------------------------------

def bash_execution_message(command: str, output: str, exit_code: Optional[int],
                           cancelled: bool = False, truncated: bool = False,
                           full_output_path: Optional[str] = None,
                           exclude_from_context: bool = False) -> Dict[str, Any]:
    """A command the user ran with `!cmd` (or `!!cmd`: exclude_from_context=True, the
    model never sees it). exit_code is None when the command did not finish."""
    message = {"role": "bashExecution", "command": command, "output": output,
               "exitCode": exit_code, "cancelled": cancelled, "truncated": truncated,
               "timestamp": now_ms()}
    if full_output_path is not None:
        message["fullOutputPath"] = full_output_path
    if exclude_from_context:
        message["excludeFromContext"] = True
    return message


def custom_message(custom_type: str, content: Any, display: bool = True,
                   details: Any = None) -> Dict[str, Any]:
    """A message from an extension: content is a string or a list of text/image blocks;
    display says whether the terminal shows it; details are for the extension only."""
    message = {"role": "custom", "customType": custom_type, "content": content,
               "display": display, "timestamp": now_ms()}
    if details is not None:
        message["details"] = details
    return message


# --- Converting for the model -----------------------------------------------------------

def convert_to_llm(messages: List[Message]) -> List[Message]:
    """The conversation as a provider may receive it: wire roles unchanged, the app
    kinds as user messages, `!!cmd` output and unknown roles left out."""
    converted = []
    for message in messages:
        wire = _to_wire(message)
        if wire is not None:
            converted.append(wire)
    return converted


def _to_wire(message: Dict[str, Any]) -> Optional[Message]:
    role = message.get("role")
    if role in WIRE_ROLES:
        return message
    if role == "bashExecution":
        if message.get("excludeFromContext"):
            return None
        return _user(bash_execution_text(message), message)
    if role == "custom":
        content = message.get("content", "")
        blocks = [text_block(content)] if isinstance(content, str) else list(content)
        return {"role": "user", "content": blocks, "timestamp": message.get("timestamp", 0)}
    if role == "compactionSummary":
        return _user(COMPACTION_PREFIX + defuse_closing_tags(message["summary"]) + SUMMARY_END,
                     message)
    if role == "branchSummary":
        return _user(BRANCH_PREFIX + defuse_closing_tags(message["summary"]) + SUMMARY_END,
                     message)
    return None  # a kind this version does not know: never send a provider a strange role


def _user(text: str, original: Dict[str, Any]) -> Message:
    return {"role": "user", "content": [text_block(text)],
            "timestamp": original.get("timestamp", 0)}


def bash_execution_text(message: Dict[str, Any]) -> str:
    """How a user's `!cmd` reads to the model.

    Example: command "make", output "", exitCode 2
        -> "I ran `make` in my shell. It printed nothing.\\n\\nCommand exited with code 2"
    """
    output = message.get("output", "")
    text = f"I ran `{message.get('command', '')}` in my shell. "
    text += f"Output:\n```\n{output}\n```" if output else "It printed nothing."
    if message.get("cancelled"):
        text += "\n\n(I cancelled the command before it finished.)"
    elif message.get("exitCode") not in (None, 0):
        text += f"\n\nCommand exited with code {message['exitCode']}"  # an exact text
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[The output was cut; all of it is in {message['fullOutputPath']}]"
    return text
