"""Checkpoints and /undo: taking back what a prompt did to your files.

The lesson: an undo needs no copy of the whole project and no git. The agent changes
files through its tools, and the tools that write files say which (Tool.paths, the
declaration the file queue uses; bash declares none, see below). So it is enough to
keep each file's state just before a prompt first writes it, and to know where each
prompt ends:

    before_tool_call      the call's written paths (event["paths"]["written"]): the
                          first time in this prompt, the file's state is kept (store.py)
    agent_settled         the prompt is over: each file's state after it is hashed, the
                          record goes in the store's manifest and a custom entry
                          ("checkpoint") in the session points at it
    /undo                 the last checkpoint on this branch not undone yet, put back;
                          the model is told which files went back (api.add_message)
    session_before_tree   moving back in the tree (or forking from before a prompt):
    session_before_fork   "restore files to that point too?" (ctx.ui.confirm), then
                          every checkpoint of the branch left is put back, newest first

The entries make it follow the session: a resumed session (-c) can undo its last
prompt, and /tree knows which prompts lie after a point. The bytes stay in the store,
which only this user can write (store.py says how a foreign one is refused).

Left out: what bash changed (a command declares no files; /undo says so when the
prompt ran one), redo, files changed by the user's own `!` commands, and a path that a
before-hook loaded after this one rewrites (this one sees the path it was given).
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from miniagent.extensions.checkpoints.store import Store, StoreRefused, digest, open_store

ENTRY = "checkpoint"          # a prompt that changed files or ran bash: {"store", "id", "files"}
UNDONE = "checkpoint-undone"  # /undo took one back: {"id"}
BASH_NOTE = "Changes made by bash commands are not undone."


class Checkpoints:
    """The extension's state for one run: the prompt in progress and the store."""

    def __init__(self, api: Any):
        self.api = api
        self.store: Optional[Store] = None
        self.temp_folder: Optional[str] = None  # --no-session: removed at exit
        self.files: Dict[str, Dict[str, Any]] = {}  # this prompt's: path -> state before
        self.ran_bash = False
        self.prompt_text = ""
        self.running = False

    # --- Keeping: while a prompt runs ----------------------------------------------------

    def on_start(self, event: Dict[str, Any]) -> None:
        if not self.running:  # a retry's agent_start belongs to the same prompt
            self.running, self.files, self.ran_bash, self.prompt_text = True, {}, False, ""

    def on_message(self, event: Dict[str, Any]) -> None:
        message = event.get("message") or {}
        if message.get("role") == "user" and not self.prompt_text:
            self.prompt_text = first_line(message.get("content"))

    def before_call(self, event: Dict[str, Any]) -> None:
        """Keep each written file's state before this prompt's first change to it."""
        if event["toolCall"].get("name") == "bash":
            self.ran_bash = True
        for path in event.get("paths", {}).get("written", []):
            if path in self.files:
                continue
            try:
                state = self.current_store().keep(path)
            except OSError as exc:  # the change itself may still work: say, do not block
                self.api.ctx.ui.notify(f"checkpoints: {path} could not be saved, so /undo "
                                       f"cannot restore it: {exc}", "warning")
                continue
            if state is not None:
                self.files[path] = state

    def current_store(self) -> Store:
        """The store beside the session file (or in a temp folder without one)."""
        session_file = self.api.ctx.session.file
        if session_file:
            folder = os.path.splitext(session_file)[0] + ".checkpoints"
        else:
            if self.temp_folder is None:
                import tempfile  # only a run without a session file needs it
                self.temp_folder = tempfile.mkdtemp(prefix="miniagent-checkpoints-")
            folder = self.temp_folder
        if self.store is None or self.store.folder != folder:
            self.store = Store.create(folder)
        return self.store

    def on_settled(self, event: Dict[str, Any]) -> None:
        """The prompt is over: record what it changed, with each file's state after it."""
        self.running = False
        changes = [{"path": path, "before": before, "after": digest(path)}
                   for path, before in self.files.items()]
        changes = [c for c in changes if c["after"] != c["before"].get("hash")]
        self.files = {}
        if not changes and not self.ran_bash:
            return
        record = {"id": os.urandom(16).hex(), "prompt": self.prompt_text,
                  "bash": self.ran_bash, "files": changes}
        store = self.current_store()
        store.record(record)
        self.api.append_entry(ENTRY, {"store": store.folder, "id": record["id"],
                                      "files": len(changes)})

    # --- Putting back: /undo, /tree, /fork ----------------------------------------------

    def undo(self, argument: str) -> str:
        """/undo: put back the files of the last prompt on this branch not undone yet."""
        if self.running:
            return "/undo waits for the prompt to end (Esc stops it)"
        pending = self.not_undone(self.api.ctx.session.custom_entries(ENTRY))
        if not pending:
            return "Nothing to undo: no prompt on this branch changed files through write or edit."
        entry = pending[-1]
        results, record = self.restore(entry)
        self.api.append_entry(UNDONE, {"id": entry["data"].get("id")})
        prompt = (record or {}).get("prompt")
        title = f'Undid the prompt "{prompt}":' if prompt else "Undid the last prompt:"
        back = [line for went_back, line in results if went_back]
        if back:  # the model's context still says it made those changes: tell it
            self.api.add_message(f"The user ran /undo. {title} these files are back as "
                                 f"they were before it:\n" + "\n".join(back), "undo")
        lines = [line for _, line in results] or ["no file to restore"]
        return "\n".join([title] + lines)

    def restore(self, entry: Dict[str, Any]) -> Tuple[List[Tuple[bool, str]], Optional[Dict]]:
        """Put back one checkpoint entry's files: (went back?, line) for each, and the
        manifest's record (None when the store or the record was refused)."""
        data = entry.get("data") if isinstance(entry.get("data"), dict) else {}
        try:
            store = open_store(data.get("store"))
            record = store.find(str(data.get("id")))
            if record is None:
                raise StoreRefused(f"{store.folder} has no record of that prompt")
            results = store.restore(record, self.api.cwd)
        except (StoreRefused, OSError) as exc:
            return [(False, f"nothing restored: {exc}")], None
        if record.get("bash"):
            results.append((False, BASH_NOTE))
        return results, record

    def not_undone(self, entries: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        undone = {(e.get("data") or {}).get("id")
                  for e in self.api.ctx.session.custom_entries(UNDONE)}
        return [e for e in entries if (e.get("data") or {}).get("id") not in undone]

    def offer_restore(self, target_id: Optional[str]) -> None:
        """Before a move to `target_id`: offer to put back the files of every prompt
        on the branch being left, newest first; no UI to ask means no restore."""
        if not target_id:
            return
        kept = {entry["id"] for entry in self.api.ctx.session.get_branch(target_id)}
        left = [e for e in self.not_undone(self.api.ctx.session.custom_entries(ENTRY))
                if e["id"] not in kept and (e.get("data") or {}).get("files", 1)]
        if not left:
            return
        count = "the prompt" if len(left) == 1 else f"the {len(left)} prompts"
        if not self.api.ctx.ui.confirm("Restore files to that point too?",
                                       f"Files changed by {count} after it go back as "
                                       f"they were. {BASH_NOTE}"):
            return
        lines = [line for entry in reversed(left) for _, line in self.restore(entry)[0]]
        self.api.ctx.ui.notify("Files restored to that point:\n" + "\n".join(
            dict.fromkeys(lines)))

    def on_shutdown(self, event: Dict[str, Any]) -> None:
        if event.get("reason") == "quit" and self.temp_folder is not None:
            import shutil
            shutil.rmtree(self.temp_folder, ignore_errors=True)
            self.temp_folder = None


def first_line(content: Any) -> str:
    """A prompt's first line, short, to name it in /undo's summary."""
    if isinstance(content, list):
        content = " ".join(b.get("text", "") for b in content
                           if isinstance(b, dict) and b.get("type") == "text")
    line = str(content or "").strip().split("\n", 1)[0]
    return line if len(line) <= 60 else line[:59] + "…"


def setup(api: Any) -> None:
    checkpoints = Checkpoints(api)
    api.on("agent_start", checkpoints.on_start)
    api.on("message_end", checkpoints.on_message)
    api.before_tool_call(checkpoints.before_call)
    api.on("agent_settled", checkpoints.on_settled)
    api.register_command("undo", checkpoints.undo,
                         "put back the files the last prompt changed (again: the one before)")
    api.on("session_before_tree",
           lambda event: checkpoints.offer_restore(event["preparation"].get("targetId")))
    api.on("session_before_fork", lambda event: checkpoints.offer_restore(event.get("entryId")))
    api.on("session_shutdown", checkpoints.on_shutdown)
