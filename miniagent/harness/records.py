"""What the session records about a run's setup: the model, the thinking level, and
the system prompt and tools (as pi 1.6's system entries, session/system_entry.py).

Each is appended only where it differs from what the session's branch already says,
so resuming a session with the same setup adds nothing, and a session written by pi
and resumed here (or the other way) records exactly what changed.

Left out: when to call these (the Harness does: on attaching a session, on a model,
thinking or tools change, and before each prompt's first request).
"""

from typing import Any, Dict, List, Optional

from ..session.system_entry import checkpoint, system_patch
from ..session.tree import Session


def record_settings(session: Session, agent: Any, base_url: Optional[str]) -> None:
    """Record the model and thinking level where they differ from what the session
    last used (a new session records both)."""
    new = not session.entries
    recorded = session.build_context()
    model = agent.model
    last = recorded.model or {}
    # A server given by URL is part of the choice: `-c --base-url B` after a session on
    # server A must be restored as B next time.
    if new or (last.get("provider"), last.get("modelId"), last.get("baseUrl")) != \
            (model.provider, model.id, base_url or last.get("baseUrl")):
        session.append_model_change(model.provider, model.id, base_url)
    if new or recorded.thinking_level != agent.thinking_level:
        session.append_thinking_level_change(agent.thinking_level)


def record_system(session: Session, sections: Dict[str, str], tools: List[Any]) -> None:
    """Append the system message that brings the branch's record up to this prompt and
    these tools, if anything differs."""
    patch = system_patch(session.get_branch(), sections, declarations(tools))
    if patch is not None:
        session.append_message(patch)


def system_checkpoint(sections: Dict[str, str], tools: List[Any]) -> Dict[str, Any]:
    """The compaction entry's `systemMessage`: everything in force now."""
    return checkpoint(sections, declarations(tools))


def declarations(tools: List[Any]) -> List[Dict[str, Any]]:
    """Each tool as the model is told of it: name, description, parameters."""
    return [tool.spec() for tool in tools]
