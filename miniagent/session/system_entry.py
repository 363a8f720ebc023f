"""The system entry: what a session told its model, recorded as pi 1.6 records it.

A session file is also the record of the instructions behind every reply. pi 1.6 keeps
them as `message` entries of role "system": the first request of a session appends one
holding every prompt section (system_prompt.py names them) and every tool declaration;
after that, a change appends a patch of only what changed:

    {"role": "system", "content": "", "timestamp": ...,
     "sections": {"preamble": "...", "tools": "<tools>...</tools>", ..., "cwd": "..."},
     "toolsAdded": [{"name": "read", "description": "...", "parameters": {...}}, ...]}
    {"role": "system", "content": "", "timestamp": ...,
     "sections": {"cwd": "<cwd>\\n/other\\n</cwd>", "skills": null},   null removes one
     "toolsRemoved": [{"name": "write"}]}

Replaying them in order along a branch gives the prompt and tools in force. A compaction
entry carries the whole state at its point as `systemMessage` (the checkpoint): replay
starts again from it, and system messages before it are folded into it.

These records are never sent to our model (rebuild.py leaves them out). On resume we
build our own prompt and tools, and `system_patch` writes down how they differ from the
file's replayed state, so the file stays true whichever agent wrote the last entry.

Left out: a system message's `content` text (pi's opaque forced prompt): it is kept in
the file but not replayed here, so a patch is computed against the sections alone.
"""

from typing import Any, Dict, List, Optional, Tuple

from ..core.messages import now_ms
from .rebuild import optional

Declarations = Dict[str, Dict[str, Any]]  # tool name -> {"name", "description", "parameters"}


def replay_system(branch: List[dict]) -> Tuple[Dict[str, str], Declarations]:
    """The sections and tools in force at the end of a branch (root -> leaf entries)."""
    sections: Dict[str, str] = {}
    tools: Declarations = {}
    for entry in branch:
        if entry["type"] == "compaction" and isinstance(entry.get("systemMessage"), dict):
            sections, tools = {}, {}  # the checkpoint holds everything in force there
            apply_system(entry["systemMessage"], sections, tools)
        elif entry["type"] == "message" and entry["message"].get("role") == "system":
            apply_system(entry["message"], sections, tools)
    return sections, tools


def apply_system(message: Dict[str, Any], sections: Dict[str, str], tools: Declarations) -> None:
    """One system message over the state: sections patched by name, removals before additions
    (a changed tool is removed, then added again)."""
    for name, text in (message.get("sections") or {}).items():
        if text is None:
            sections.pop(name, None)
        else:
            sections[name] = text
    for tool in message.get("toolsRemoved") or []:
        tools.pop(tool["name"], None)
    for tool in message.get("toolsAdded") or []:
        tools[tool["name"]] = tool


def system_patch(branch: List[dict], sections: Dict[str, str],
                 declarations: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The system message that takes the branch's replayed state to ours, or None when
    nothing differs. On a branch without one it holds everything (the first request)."""
    old_sections, old_tools = replay_system(branch)
    changed = {name: text for name, text in sections.items() if old_sections.get(name) != text}
    changed.update({name: None for name in old_sections if name not in sections})
    current = {tool["name"]: tool for tool in declarations}
    added = [tool for name, tool in current.items() if old_tools.get(name) != tool]
    removed = [{"name": name} for name, tool in old_tools.items() if current.get(name) != tool]
    if not (changed or added or removed):
        return None
    return optional({"role": "system", "content": "", "timestamp": now_ms()},
                    sections=changed or None, toolsAdded=added or None,
                    toolsRemoved=removed or None)


def checkpoint(sections: Dict[str, str], declarations: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The whole state as one system message, for a compaction entry's `systemMessage`."""
    return optional({"role": "system", "content": "", "timestamp": now_ms()},
                    sections=dict(sections) or None, toolsAdded=list(declarations) or None)
