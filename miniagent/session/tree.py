"""Sessions: the conversation as an append-only tree, and the model's context rebuilt from it.

The model remembers nothing, so the session file is the agent's only memory (and its cost
ledger: every reply carries its usage). The format is pi's version 3, so pi and miniagent
read each other's files. A file is a header line and then one entry per line:

    {"type":"session","version":3,"id":"0f8e...","timestamp":"...Z","cwd":"/home/u/proj"}
    {"type":"model_change","id":"c3d02f0e","parentId":null,...,"provider":..,"modelId":..}
    {"type":"message","id":"ad540258","parentId":"c3d02f0e",...,"message":{"role":"user",..}}
    {"type":"message","id":"2d5d89c5","parentId":"ad540258",...,"message":{"role":"assistant",..}}

Each entry names its parent, so the entries form a **tree**: appending adds a child of the
current **leaf** and moves the leaf to it; `branch(id)` moves the leaf back to an earlier
entry, and the next append starts a second branch there. Nothing is ever rewritten:

    user "fix the bug" -> assistant -> user "try A" -> assistant      (first branch)
                                   \\-> user "try B" -> assistant      (leaf after branch())

The entry types: message, model_change, thinking_level_change,
compaction, branch_summary, custom, custom_message, label, session_info.

**Rebuilding the context** for the model from the leaf's branch (the latest compaction's
summary first, then the entries it kept) is rebuild.py; `build_context` calls it.

**When the file is written**: a new session is written only once it has an
assistant reply (a prompt that fails at once leaves no file); then the header and every
entry so far go out in one write, and each later entry as soon as it is appended.
`persist=False` (`--no-session`) writes nothing. Every write goes through the store
(session/store.py), which keeps each entry one whole line.

**Older files.** A pi file of version 1 or 2 is migrated in memory (migrate.py)
and never appended to: the session continues in a NEW version-3 file whose header names
the original as `parentSession`, and which holds all the migrated entries. The original
stays byte-identical.

Left out: deciding what to record and when (the harness), the meaning of each message kind
for the model (rebuild.py), summarizing (compaction.py).
"""

import os
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Dict, List, Optional, Tuple

from .rebuild import (LAST, SessionContext, build_session_context,  # noqa: F401
                             iso_to_ms, optional, path_to)
from .file import check_writable
from .ids import new_session_id
from ..errors import SessionError
from .migrate import CURRENT_VERSION
from .store import (STORE, JSONLStore, SessionInfo, SessionStore,  # noqa: F401
                           find_most_recent, find_sessions_by_prefix, list_sessions,
                           new_file_name, session_dir_for)

# The default of build_context: "the session's own leaf" (None means no messages).
_CURRENT = object()


@dataclass
class TreeNode:
    entry: Dict[str, Any]
    children: List["TreeNode"] = field(default_factory=list)
    label: Optional[str] = None


class Session:
    """One conversation tree, in memory and (unless persist is False) in its file."""

    def __init__(self, header: Dict[str, Any], entries: List[dict], file_path: Optional[str],
                 cwd: str, persist: bool = True, store: SessionStore = STORE,
                 written: bool = False, warnings: Tuple[str, ...] = (),
                 needs_new_file: bool = False):
        self.header = header
        self.entries = entries  # file order, header excluded
        self.file_path = file_path  # where the file is or will be
        self.cwd = cwd
        self.persist = persist
        self.store = store
        self.warnings = list(warnings)
        self.needs_new_file = needs_new_file  # a migrated file: the next append starts a new one
        self._written = written  # the header is in the file
        self._append_lock = threading.Lock()
        self._index()

    # --- Making one ----------------------------------------------------------------------

    @classmethod
    def create(cls, cwd: str, session_dir: Optional[str] = None, persist: bool = True,
               parent_session: Optional[str] = None, session_id: Optional[str] = None,
               store: SessionStore = STORE) -> "Session":
        """A new, empty session; its file appears with the first assistant reply."""
        header = new_header(cwd, session_id, parent_session)
        folder = session_dir or session_dir_for(cwd)
        path = os.path.join(folder, new_file_name(header["timestamp"], header["id"]))
        return cls(header, [], path if persist else None, cwd, persist, store)

    @classmethod
    def open(cls, path: str, cwd: Optional[str] = None, session_dir: Optional[str] = None,
             store: SessionStore = STORE) -> "Session":
        """`--session FILE`: the session in FILE, or a new one to be written there when the
        file is missing or empty. Raises SessionError for a file that is not a session."""
        path = os.path.abspath(path)
        # Only a missing or empty REGULAR file is new; anything else (a FIFO, a device)
        # goes to load(), which refuses it in one line.
        if not os.path.exists(path) or (os.path.isfile(path) and os.path.getsize(path) == 0):
            cwd = cwd or os.getcwd()
            return cls(new_header(cwd), [], path, cwd, store=store)
        loaded = store.load(path)
        cwd = cwd or str(loaded.header.get("cwd") or "") or os.getcwd()
        if loaded.version >= CURRENT_VERSION:
            return cls(loaded.header, loaded.entries, path, cwd, store=store, written=True,
                       warnings=loaded.warnings)
        # An older pi file: continue in a new version-3 file that stands alone.
        header = new_header(cwd, parent_session=path)
        folder = session_dir or session_dir_for(cwd)
        new_path = os.path.join(folder, new_file_name(header["timestamp"], header["id"]))
        return cls(header, loaded.entries, new_path, cwd, store=store,
                   warnings=loaded.warnings, needs_new_file=True)

    @property
    def id(self) -> str:
        return self.header["id"]

    @property
    def path(self) -> Optional[str]:
        """The file, once it exists (None in memory and before the first write)."""
        return self.file_path if self._written else None

    @property
    def name(self) -> Optional[str]:
        """The display name: the latest non-empty session_info entry."""
        for entry in reversed(self.entries):
            if entry["type"] == "session_info" and entry.get("name"):
                return entry["name"]
        return None

    # --- Appending -----------------------------------------------------------------------

    def append_message(self, message: Dict[str, Any]) -> str:
        return self._append("message", {"message": message})

    def append_model_change(self, provider: str, model_id: str, base_url: Optional[str] = None) -> str:
        # baseUrl (ours, pi has none) lets a resumed session find a --base-url server again.
        return self._append("model_change", optional(
            {"provider": provider, "modelId": model_id}, baseUrl=base_url))

    def append_thinking_level_change(self, level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": level})

    def append_compaction(self, summary: str, first_kept_entry_id: str, tokens_before: int,
                          details: Any = None, from_hook: bool = False, usage: Any = None,
                          system_message: Optional[dict] = None) -> str:
        fields = optional({"summary": summary, "firstKeptEntryId": first_kept_entry_id,
                           "tokensBefore": tokens_before}, details=details, usage=usage,
                          systemMessage=system_message)  # pi 1.6's checkpoint
        fields["fromHook"] = from_hook
        return self._append("compaction", fields)

    def branch_with_summary(self, from_id: Optional[str], summary: str, details: Any = None) -> str:
        """Go back to `from_id` (None: before the root) and record there a summary of the
        branch being left, which the model will see."""
        if from_id is not None:
            self.branch(from_id)
        else:
            self.leaf_id = None
        return self._append("branch_summary", optional(
            {"fromId": from_id or "root", "summary": summary}, details=details))

    def append_custom(self, custom_type: str, data: Any = None) -> str:
        """Extension state: kept in the tree, never shown to the model."""
        return self._append("custom", optional({"customType": custom_type}, data=data))

    def append_custom_message(self, custom_type: str, content: Any, display: bool = True,
                              details: Any = None) -> str:
        """A message from an extension that the model sees as a user message."""
        return self._append("custom_message", optional(
            {"customType": custom_type, "content": content, "display": display}, details=details))

    def append_label(self, target_id: str, label: Optional[str]) -> str:
        """Mark an entry ("checkpoint"); label None clears the mark."""
        self._require(target_id)
        return self._append("label", optional({"targetId": target_id}, label=label))

    def append_session_info(self, name: str) -> str:
        return self._append("session_info", {"name": name.strip()})

    def check_writable(self) -> None:
        """Raise SessionError now if this session's file could not be written later."""
        if self.persist:
            check_writable(self.file_path)

    def save(self) -> None:
        """Write the file now if it is not written yet (a fork is written at once)."""
        if self.persist and not self._written:
            # Another process may have created the file a moment ago: then our entries
            # go under its header, and that header is this session's from now on.
            self.header = self.store.create(self.file_path, self.header, self.entries)
            self._written, self.needs_new_file = True, False

    def _append(self, entry_type: str, fields: Dict[str, Any]) -> str:
        # One append at a time: the run's thread records messages while the terminal or
        # rpc thread may record a model change; each must chain to the other's entry.
        with self._append_lock:
            entry = {"type": entry_type, "id": self._new_id(), "parentId": self.leaf_id,
                     "timestamp": iso_now()}
            entry.update(fields)
            self._add(entry)
            try:
                self._write(entry)
            except SessionError:
                # Keep memory equal to the file: a later entry must not name a parent
                # that never reached it.
                self.entries.pop()
                self._index()
                self.leaf_id = entry["parentId"]
                raise
            return entry["id"]

    def _write(self, entry: Dict[str, Any]) -> None:
        if not self.persist:
            return
        if self._written:
            self.store.append(self.file_path, [entry])
        elif self._has_assistant or self.needs_new_file:
            self.save()  # the file is born with the first assistant reply

    def _new_id(self) -> str:
        """8 hex characters, unique in this session."""
        for _ in range(100):
            entry_id = os.urandom(4).hex()
            if entry_id not in self._by_id:
                return entry_id
        return secrets.token_hex(16)  # after 100 clashes in a row, a longer id

    # --- The tree ------------------------------------------------------------------------

    def _index(self) -> None:
        """Rebuild the lookups from self.entries; the leaf is the last entry.
        Loading a long session runs this once, so it avoids work per entry."""
        entries = self.entries
        self._by_id: Dict[str, dict] = {entry["id"]: entry for entry in entries}
        self._labels: Dict[str, str] = {}
        for entry in entries:
            if entry["type"] == "label":
                self._track_label(entry)
        self._has_assistant = any(map(is_assistant, entries))  # stops at the first
        self.leaf_id: Optional[str] = entries[-1]["id"] if entries else None

    def _add(self, entry: Dict[str, Any]) -> None:
        self.entries.append(entry)
        self._by_id[entry["id"]] = entry
        self.leaf_id = entry["id"]
        self._has_assistant = self._has_assistant or is_assistant(entry)
        if entry["type"] == "label":
            self._track_label(entry)

    def _track_label(self, entry: Dict[str, Any]) -> None:
        if entry.get("label"):
            self._labels[entry["targetId"]] = entry["label"]
        else:
            self._labels.pop(entry.get("targetId"), None)

    def _require(self, entry_id: str) -> None:
        if entry_id not in self._by_id:
            raise ValueError(f"Entry {entry_id} not found")

    def get_entry(self, entry_id: str) -> Optional[Dict[str, Any]]:
        return self._by_id.get(entry_id)

    def children(self, entry_id: str) -> List[Dict[str, Any]]:
        return [entry for entry in self.entries if entry.get("parentId") == entry_id]

    def get_label(self, entry_id: str) -> Optional[str]:
        return self._labels.get(entry_id)

    def get_branch(self, from_id: Optional[str] = None) -> List[Dict[str, Any]]:
        """The path root -> `from_id` (default: the leaf); [] for an unknown id."""
        start = self._by_id.get(from_id if from_id is not None else self.leaf_id)
        return path_to(start, self._by_id) if start else []

    def get_tree(self) -> List[TreeNode]:
        """Every entry as a node; roots are entries with no parent, themselves as parent,
        or a parent that is missing. Children are sorted oldest first."""
        nodes = {entry["id"]: TreeNode(entry, [], self._labels.get(entry["id"]))
                 for entry in self.entries}
        roots = []
        for entry in self.entries:
            parent = nodes.get(entry.get("parentId"))
            if parent is None or entry.get("parentId") == entry["id"]:
                roots.append(nodes[entry["id"]])
            else:
                parent.children.append(nodes[entry["id"]])
        for node in nodes.values():
            node.children.sort(key=lambda child: iso_to_ms(child.entry["timestamp"]))
        return roots

    def branch(self, entry_id: str) -> None:
        """Move the leaf back to an entry; the next append starts a new branch there."""
        self._require(entry_id)
        self.leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Move the leaf before the first entry: the next append is a new root."""
        self.leaf_id = None

    def build_context(self, leaf_id: Any = _CURRENT) -> SessionContext:
        leaf = self.leaf_id if leaf_id is _CURRENT else leaf_id
        return build_session_context(self.entries, leaf, self._by_id)

    # --- New sessions from this one ---------------------------------------------------

    def create_branched_session(self, leaf_id: str) -> "Session":
        """`/fork`: a new session holding only the path root -> `leaf_id`, with its labels.
        Its file is written at once when the path has an assistant reply, else lazily."""
        # The parent is the file this came from; a session never written names its own parent.
        parent = (self.path or self.header.get("parentSession")) if self.persist else None
        new = self._branched(leaf_id, self.cwd, os.path.dirname(self.file_path or "") or None, parent)
        if new._has_assistant:
            new.save()
        return new

    def _branched(self, leaf_id: Optional[str], cwd: str, session_dir: Optional[str],
                  parent: Optional[str]) -> "Session":
        path = self.get_branch(leaf_id) if leaf_id is not None else []
        if leaf_id is not None and not path:
            raise ValueError(f"Entry {leaf_id} not found")
        # Labels are re-created after the path (pointing at entries on it), not copied.
        kept = [entry for entry in path if entry["type"] != "label"]
        new = Session.create(cwd, session_dir, self.persist, parent_session=parent, store=self.store)
        new.entries = kept
        new._index()
        for entry in kept:
            if entry["id"] in self._labels:
                new._add(new._label_entry(entry["id"], self._labels[entry["id"]]))
        return new

    def _label_entry(self, target_id: str, label: str) -> Dict[str, Any]:
        return {"type": "label", "id": self._new_id(), "parentId": self.leaf_id,
                "timestamp": iso_now(), "targetId": target_id, "label": label}


# --- Forks ---------------------------------------------------------------------------------


def fork_session(source_path: str, entry_id: Optional[str] = None, cwd: Optional[str] = None,
                 session_dir: Optional[str] = None, store: SessionStore = STORE) -> Session:
    """`--fork FILE[:ENTRY_ID]`: a new session, written at once, holding the path from the
    root to the entry (included; default: the source's leaf), its header naming the source
    as parentSession. Works on pi files of every version."""
    source_path = os.path.abspath(source_path)
    if not os.path.isfile(source_path) or os.path.getsize(source_path) == 0:
        raise SessionError(f"cannot fork {source_path}: no such session file (or it is empty)")
    source = Session.open(source_path, store=store)
    cwd = cwd or os.getcwd()
    if entry_id is not None and source.get_entry(entry_id) is None:
        raise SessionError(f"cannot fork {source_path}: it has no entry {entry_id}")
    new = source._branched(entry_id or source.leaf_id, cwd, session_dir or session_dir_for(cwd),
                           source_path)
    new.save()
    return new


def parse_fork_argument(value: str, store: SessionStore = STORE) -> Tuple[str, Optional[str]]:
    """Split `FILE[:ENTRY_ID]`. The colon splits only when what follows it is an entry id
    of that file, so a file whose name holds a colon still works.

    Examples: "s.jsonl" -> ("s.jsonl", None); "s.jsonl:2d5d89c5" -> ("s.jsonl", "2d5d89c5")
    """
    head, _, tail = value.rpartition(":")
    if os.path.exists(value) or not head or not tail or not os.path.isfile(head):
        return value, None
    if any(entry["id"] == tail for entry in store.stream(head).entries):
        return head, tail
    raise SessionError(f"{head} has no entry {tail} (entry ids are the \"id\" fields of its lines)")


# --- Small helpers -------------------------------------------------------------------------


def is_assistant(entry: Dict[str, Any]) -> bool:
    return entry["type"] == "message" and entry["message"].get("role") == "assistant"


def new_header(cwd: str, session_id: Optional[str] = None,
               parent_session: Optional[str] = None) -> Dict[str, Any]:
    return optional({"type": "session", "version": CURRENT_VERSION, "id": session_id or new_session_id(),
                     "timestamp": iso_now(), "cwd": cwd}, parentSession=parent_session)


def iso_now() -> str:
    """UTC now as pi writes it. Example: "2026-03-15T10:20:30.123Z"."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
