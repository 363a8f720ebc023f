"""The rpc mode's session commands: moving between sessions and reading one.

A session is an append-only tree of entries (session/tree.py). These commands move the
Harness to another session or point (harness/moves.py) and read the tree as pi's
clients expect it:

    new_session {parentSession?} / switch_session {sessionPath}  -> {cancelled: false}
    fork {entryId}                -> {text, cancelled}: a new session before that prompt
    clone                         -> {cancelled}: a new session with this branch whole
    get_fork_messages             -> {messages: [{entryId, text}]}: the prompts to fork at
    get_entries {since?}          -> {entries, leafId}: every entry after the cursor
    get_tree                      -> {tree: [{entry, children, label?}], leafId}
    set_session_name {name}       a session_info entry; session_info_changed follows
    export_html {outputPath?}     -> {path}: the page `miniagent export` writes
    get_session_stats             pi's figures with contextUsage, plus `miniagent stats`'s

Commands that change which conversation the agent is in wait until no run is in
progress (handlers.py passes `require_idle`). `cancelled` is always false: no
extension of ours can veto a move.

Left out: get_tree for a tree deeper than MAX_TREE_DEPTH (JSON this deeply nested is
past what Python's encoder writes); get_entries carries the same entries, flat.
"""

from typing import Any, Callable, Dict, Optional

from ...compaction.estimate import estimate_context_tokens, last_usable_usage
from ...harness.harness import Harness
from ...core.messages import text_of
from ...session.stats import TOKEN_FIELDS, session_totals
from ...session.tree import TreeNode
from ...subcommands.export import export_html
from .fields import text_field
from ...errors import MoveCancelled

MAX_TREE_DEPTH = 400  # each level is two of JSON's: a node and its children list


class SessionCommands:
    """The commands on the Harness's session (see the module docstring)."""

    def __init__(self, harness: Harness, require_idle: Callable[[str], None]):
        self.harness = harness
        self.require_idle = require_idle

    def table(self) -> Dict[str, Any]:
        return {"new_session": self.new_session, "switch_session": self.switch_session,
                "fork": self.fork, "clone": self.clone,
                "get_fork_messages": self.get_fork_messages, "get_entries": self.get_entries,
                "get_tree": self.get_tree, "set_session_name": self.set_session_name,
                "export_html": self.export_html, "get_session_stats": self.get_session_stats}

    # --- Moving ----------------------------------------------------------------------------

    def new_session(self, request: dict) -> Dict[str, Any]:
        self.require_idle("new_session")
        parent = request.get("parentSession")
        return moved(lambda: self.harness.new_session(
            parent if isinstance(parent, str) and parent else None))

    def switch_session(self, request: dict) -> Dict[str, Any]:
        self.require_idle("switch_session")
        path = text_field(request, "sessionPath")
        return moved(lambda: self.harness.switch_session(path))

    def fork(self, request: dict) -> Dict[str, Any]:
        self.require_idle("fork")
        try:
            return {"text": self.harness.fork(text_field(request, "entryId")), "cancelled": False}
        except MoveCancelled:  # an extension's session_before_fork said no
            return {"text": "", "cancelled": True}

    def clone(self, request: dict) -> Dict[str, Any]:
        self.require_idle("clone")
        return moved(self.harness.clone)

    # --- Reading ---------------------------------------------------------------------------

    def get_fork_messages(self, request: dict) -> Dict[str, Any]:
        """The user prompts of the current branch, oldest first: where fork can start."""
        prompts = [entry for entry in self.harness.session.get_branch()
                   if entry["type"] == "message" and entry["message"].get("role") == "user"]
        return {"messages": [{"entryId": entry["id"], "text": text_of(entry["message"])}
                             for entry in prompts]}

    def get_entries(self, request: dict) -> Dict[str, Any]:
        """Every entry in file order (not the header), or those after the `since` id."""
        session = self.harness.session
        entries = list(session.entries)
        since = request.get("since")
        if since is not None:
            ids = [entry["id"] for entry in entries]
            if since not in ids:
                raise ValueError(f"Entry not found: {since}")
            entries = entries[ids.index(since) + 1:]
        return {"entries": entries, "leafId": session.leaf_id}

    def get_tree(self, request: dict) -> Dict[str, Any]:
        session = self.harness.session
        return {"tree": [tree_node(root) for root in session.get_tree()],
                "leafId": session.leaf_id}

    def get_session_stats(self, request: dict) -> Dict[str, Any]:
        """pi's figures, over every entry of the session (abandoned branches were paid
        for too), then what `miniagent stats` adds: calls per tool, tool errors, models."""
        session = self.harness.session
        stats, totals = session_totals(session)
        messages = [entry["message"] for entry in session.entries if entry["type"] == "message"]
        tokens = {key: totals[key] for key in TOKEN_FIELDS}
        tokens["total"] = sum(tokens.values())
        return {"sessionFile": session.file_path, "sessionId": session.id,
                "userMessages": stats.user_prompts, "assistantMessages": stats.assistant_turns,
                "toolCalls": sum(stats.tool_calls.values()),
                "toolResults": sum(1 for m in messages if m.get("role") == "toolResult"),
                "totalMessages": len(messages), "tokens": tokens, "cost": totals["cost"],
                "contextUsage": self.context_usage(),
                "toolCallsByName": stats.tool_calls, "toolErrors": stats.tool_errors,
                "models": stats.models, "mainModel": stats.main_model}

    def context_usage(self) -> Dict[str, Any]:
        """The current context against the window, as compaction measures it. Right after
        a compaction no reply has measured the new context yet: tokens and percent are
        null until one does (as in pi)."""
        messages = self.harness.agent.messages
        window = self.harness.agent.model.context_window
        compacted = any(m.get("role") == "compactionSummary" for m in messages)
        if compacted and last_usable_usage(messages) is None:
            return {"tokens": None, "contextWindow": window, "percent": None}
        tokens = estimate_context_tokens(messages)
        return {"tokens": tokens, "contextWindow": window, "percent": tokens / window * 100}

    # --- Writing ---------------------------------------------------------------------------

    def set_session_name(self, request: dict) -> None:
        name = text_field(request, "name").strip()
        if not name:
            raise ValueError("Session name cannot be empty")
        self.harness.session.append_session_info(name)
        self.harness.agent.emit({"type": "session_info_changed", "name": name})

    def export_html(self, request: dict) -> Dict[str, str]:
        """The session's page; by default beside its file (FILE.html), as `miniagent
        export` writes it."""
        path = self.harness.session.file_path
        if not path:
            raise ValueError("export_html needs a session file; this session is in memory "
                             "(--no-session)")
        out: Optional[str] = request.get("outputPath") or None
        if out is not None and not isinstance(out, str):
            raise ValueError('export_html: "outputPath" must be a string')
        return {"path": export_html(path, out)}


def tree_node(root: TreeNode) -> Dict[str, Any]:
    """A TreeNode as pi's {entry, children, label?}, built without recursion (a long
    session is a chain thousands of entries deep); too deep for JSON is an error."""
    shown = node_dict(root)
    pending = [(root, shown, 1)]
    while pending:
        node, out, depth = pending.pop()
        if depth > MAX_TREE_DEPTH:
            raise ValueError(f"The session tree is more than {MAX_TREE_DEPTH} entries deep, "
                             f"too deep to send as one JSON tree: use get_entries (each "
                             f"entry names its parentId)")
        for child in node.children:
            child_out = node_dict(child)
            out["children"].append(child_out)
            pending.append((child, child_out, depth + 1))
    return shown


def node_dict(node: TreeNode) -> Dict[str, Any]:
    shown: Dict[str, Any] = {"entry": node.entry, "children": []}
    if node.label is not None:
        shown["label"] = node.label
    return shown


def moved(move: Callable[[], Any]) -> Dict[str, Any]:
    """Make a move; {"cancelled": True} when an extension's session_before_* said no."""
    try:
        move()
    except MoveCancelled:
        return {"cancelled": True}
    return {"cancelled": False}
