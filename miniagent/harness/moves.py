"""Moving around the sessions: a new one, another file, a fork, a point of the tree.

A session is an append-only tree (session/tree.py); the harness's context is one
branch of it. These are the moves the terminal (/new, /resume, /fork, /tree) and the
rpc mode (new_session, switch_session, fork, clone) make: each ends with the Agent's
messages rebuilt from the branch it lands on, so the next prompt continues there.
`SessionMoves` is a part of the Harness (harness.py), kept in its own file because it
is its own idea: the harness runs prompts, these only change where they land.

Extensions hear of each move in pi's names (project/extensions.py): before it, a
session_before_switch, _fork or _tree event they may cancel (MoveCancelled); after
it, session_shutdown and session_start for a new file, session_tree inside one.

Left out: deleting sessions or entries (the tree is append-only); merging branches.
"""

import os
from typing import Any, Dict, Optional, Tuple

from ..core.messages import text_of
from ..errors import MoveCancelled
from ..session.tree import Session


class SessionMoves:
    """The Harness's moves between sessions and inside one (a mixin: it uses the
    Harness's agent, session, compaction settings, abort Event and attach_session)."""


    def new_session(self, parent_session: Optional[str] = None) -> None:
        """Start a new, empty session in the same folder (or in memory); its header may
        name the session it continues (rpc's new_session {parentSession})."""
        self._ask({"type": "session_before_switch", "reason": "new"}, "the new session")
        self._enter("new", lambda: Session.create(self.agent.cwd, self._folder(),
                                                  persist=self.session.persist,
                                                  parent_session=parent_session))

    def switch_session(self, path: str) -> None:
        """Continue another session file (raises SessionError for one that is not)."""
        self._ask({"type": "session_before_switch", "reason": "resume",
                   "targetSessionFile": path}, "the switch")
        self._enter("resume", lambda: Session.open(path, cwd=self.agent.cwd,
                                                   session_dir=self._folder()))

    def fork(self, entry_id: str) -> str:
        """A new session that ends just before the user prompt `entry_id`, as pi's /fork;
        returns that prompt's text, for the user to edit and send again."""
        entry = self.session.get_entry(entry_id)
        message = (entry or {}).get("message") or {}
        if message.get("role") != "user":
            raise ValueError(f"Entry {entry_id} is not a user prompt: choose one to fork from")
        self._ask({"type": "session_before_fork", "entryId": entry_id, "position": "before"},
                  "the fork")
        if entry.get("parentId") is None:  # the first prompt: nothing comes before it
            self._enter("fork", lambda: Session.create(
                self.agent.cwd, self._folder(), self.session.persist,
                parent_session=self.session.path))
        else:
            self._enter("fork", lambda: self.session.create_branched_session(entry["parentId"]))
        return text_of(message)

    def clone(self) -> None:
        """A new session holding this one's current branch, up to where it is now (pi's
        clone); raises ValueError for a session with no entry yet."""
        if self.session.leaf_id is None:
            raise ValueError("Cannot clone session: no current entry selected")
        self._ask({"type": "session_before_fork", "entryId": self.session.leaf_id,
                   "position": "at"}, "the clone")
        self._enter("fork", lambda: self.session.create_branched_session(self.session.leaf_id))

    def navigate(self, target_id: str, summarize: bool = False,
                 instructions: Optional[str] = None) -> Optional[str]:
        """Move to another point of this session's tree (/tree ID). Going to a user
        prompt lands just before it and returns its text for the input line. With
        `summarize`, the branch being left is summarized into a branch_summary entry."""
        target = self.session.get_entry(target_id)
        if target is None:
            raise ValueError(f"Entry {target_id} not found")
        if target_id == self.session.leaf_id:
            return None
        old_leaf = self.session.leaf_id
        self._ask({"type": "session_before_tree", "preparation": {
            "targetId": target_id, "oldLeafId": old_leaf, "userWantsSummary": summarize,
            "customInstructions": instructions}}, "the move")
        message = target.get("message") or {}
        to_prompt = target["type"] == "message" and message.get("role") == "user"
        new_leaf = target.get("parentId") if to_prompt else target_id
        if summarize:
            summary, details = self._summarize_branch_left(target_id, instructions)
            self.session.branch_with_summary(new_leaf, summary, details)
        elif new_leaf is None:
            self.session.reset_leaf()
        else:
            self.session.branch(new_leaf)
        self.agent.messages = list(self.session.build_context().messages)
        self._tell({"type": "session_tree", "newLeafId": self.session.leaf_id,
                    "oldLeafId": old_leaf})
        return text_of(message) if to_prompt else None

    def _ask(self, event: Dict[str, Any], move: str) -> None:
        """A session_before_* event: raise MoveCancelled when an extension cancels."""
        if self.project is not None and self.project.extensions.emit(event):
            raise MoveCancelled(f"An extension cancelled {move}; the session stays as it was")

    def _tell(self, event: Dict[str, Any]) -> None:
        if self.project is not None:
            self.project.extensions.emit(event)

    def _enter(self, reason: str, open_session: Any) -> None:
        """Move to the session `open_session()` makes (new, resume, fork): told to the
        extensions as pi tells it, the old one shut down and the new one started."""
        session, previous = open_session(), self.session.file_path
        self.attach_session(session)
        self._tell({"type": "session_shutdown", "reason": reason,
                    "targetSessionFile": session.file_path})
        self._tell({"type": "session_start", "reason": reason,
                    "previousSessionFile": previous})

    def _summarize_branch_left(self, target_id: str,
                               instructions: Optional[str]) -> Tuple[str, Any]:
        # Loaded only now, as the compaction it builds on (the start-up budget).
        from ..compaction.branch_summary import (collect_entries_to_summarize,
                                                 prepare_branch_summary, summarize_branch)
        by_id = {entry["id"]: entry for entry in self.session.entries}
        left = collect_entries_to_summarize(by_id, self.session.leaf_id, target_id)
        model = self.agent.model
        preparation = prepare_branch_summary(left, model.context_window, self.compaction)
        summary = summarize_branch(preparation, model, self.agent.stream_fn,
                                   self.agent.api_key, self._stop, instructions)
        return summary, preparation.details

    def _folder(self) -> Optional[str]:
        """The folder of this session's file, where new and forked sessions go too."""
        return os.path.dirname(self.session.file_path) if self.session.file_path else None

