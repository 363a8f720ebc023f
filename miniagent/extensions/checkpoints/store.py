"""The checkpoint store: what a file was before a prompt changed it, and putting it back.

A file's *state* is its bytes and mode, or "did not exist". The store keeps the state
each file had before a prompt's first change to it, and, once the prompt is over, a
hash of the state it left, so a later restore can tell whether someone changed the
file since. It lives beside the session, private to this user:

    <session>.checkpoints/           0700
        blobs/<sha256>               a file's bytes, exactly (0600)
        manifest.jsonl               one line per prompt that changed files (0600):
                                     {"id", "prompt", "bash", "files": [{"path",
                                      "before": {"exists", "mode", "size", "hash", "kept"},
                                      "after": sha256 or null}]}

The bytes are kept raw, never redacted: they go back into the user's file. A file over
MAX_KEPT is noted, not kept. Putting one back never overwrites a file changed since (its
hash is not the one the prompt left): the saved version goes beside it as FILE.undo.

A session file may come from someone else, and it only *names* a store. So a store is
used only when it is this user's (a folder owned by this uid and not writable by
others, its manifest likewise: `open_store`), and a restore touches only paths under
the working folder, reached through no link (`restore_file`).

Left out: sharing identical bytes between sessions, and pruning old blobs.
"""

import hashlib
import json
import os
import re
import stat
from typing import Any, Dict, List, Optional, Tuple

MAX_KEPT = 10 * 1024 * 1024
MANIFEST = "manifest.jsonl"
CHUNK = 1024 * 1024


class StoreRefused(Exception):
    """A store that is not this user's own, or not a store at all."""


def open_regular(path: str) -> Optional[Any]:
    """A regular file opened for reading, else None (missing, a link, a pipe, a device).
    O_NONBLOCK: a pipe put in its place cannot hang us; O_NOFOLLOW: a link is not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def digest(path: str) -> Optional[str]:
    """The sha256 of the file's bytes; None when nothing is there; "other" for
    something that is not a regular file (it matches no hash)."""
    handle = open_regular(path)
    if handle is None:
        return None if not os.path.lexists(path) else "other"
    sha = hashlib.sha256()
    with handle:
        for chunk in iter(lambda: handle.read(CHUNK), b""):
            sha.update(chunk)
    return sha.hexdigest()


def inside(path: str, root: str) -> bool:
    """Is `path` under the folder `root`, reached through no symbolic link?"""
    real_root = os.path.realpath(root)
    return os.path.realpath(path) == path and path.startswith(real_root + os.sep)


class Store:
    """One store folder: blobs kept, prompts recorded, files put back."""

    def __init__(self, folder: str):
        self.folder = folder

    @classmethod
    def create(cls, folder: str) -> "Store":
        """The folder (made private if new), ready to keep files in."""
        os.makedirs(os.path.join(folder, "blobs"), mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
        return cls(folder)

    def keep(self, path: str) -> Optional[Dict[str, Any]]:
        """The state of `path` now, its bytes kept; None for something that is not a
        file (a folder, a pipe): a tool cannot change those as a file."""
        if not os.path.lexists(path):
            return {"exists": False}
        handle = open_regular(path)
        if handle is None:
            return None
        with handle:
            info = os.fstat(handle.fileno())
            state = {"exists": True, "mode": stat.S_IMODE(info.st_mode),
                     "size": info.st_size, "kept": info.st_size <= MAX_KEPT}
            data = handle.read(MAX_KEPT + 1) if state["kept"] else b""
        if not state["kept"] or len(data) > MAX_KEPT:  # it grew while we read
            return dict(state, kept=False, hash=digest(path))
        state["hash"] = hashlib.sha256(data).hexdigest()
        self._write_blob(state["hash"], data)
        return state

    def _write_blob(self, name: str, data: bytes) -> None:
        path = os.path.join(self.folder, "blobs", name)
        if os.path.exists(path):  # the same bytes, kept before
            return
        fd = os.open(path + ".part", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                     0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(path + ".part", path)

    def record(self, checkpoint: Dict[str, Any]) -> None:
        """Add one prompt's record to the manifest (a whole line, appended)."""
        line = json.dumps(checkpoint, ensure_ascii=False) + "\n"
        fd = os.open(os.path.join(self.folder, MANIFEST),
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(line)

    def find(self, checkpoint_id: str) -> Optional[Dict[str, Any]]:
        """The manifest's record of one prompt; None if it has none (a torn line is skipped)."""
        handle = open_regular(os.path.join(self.folder, MANIFEST))
        if handle is None:
            return None
        with handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("id") == checkpoint_id:
                    return record
        return None

    def restore(self, checkpoint: Dict[str, Any], root: str) -> List[Tuple[bool, str]]:
        """Put back every file of one prompt's record: for each, (went back?, a line)."""
        return [self.restore_file(change, root) for change in checkpoint.get("files", [])]

    def restore_file(self, change: Dict[str, Any], root: str) -> Tuple[bool, str]:
        """Put one file back as it was before the prompt, unless someone changed it since:
        (whether it went back, a line saying what was done)."""
        path, before, after = str(change.get("path")), change.get("before") or {}, change.get("after")
        if not inside(path, root):
            return False, f"{path}: not restored, it is outside the working folder {root}"
        name = os.path.relpath(path, root)
        if digest(path) != after:
            if not before.get("exists") or not before.get("kept"):
                return False, f"{name}: changed since that prompt, so left as it is"
            spare = self._put_beside(before, path)
            return False, (f"{name}: changed since that prompt, so left as it is; the version "
                    f"before the prompt is in {os.path.relpath(spare, root)}")
        if not before.get("exists"):
            if after is not None:
                os.unlink(path)
            return True, f"{name}: removed (that prompt created it)"
        if not before.get("kept"):
            return False, f"{name}: not restored, it was larger than 10 MB, so no copy was kept"
        self._put(before, path)
        return True, f"{name}: recreated" if after is None else f"{name}: restored"

    def _blob(self, state: Dict[str, Any]) -> bytes:
        """The kept bytes of a state, checked against their hash."""
        name = str(state.get("hash"))
        handle = None if not re.fullmatch(r"[0-9a-f]{64}", name) else \
            open_regular(os.path.join(self.folder, "blobs", name))
        if handle is None:
            raise StoreRefused(f"the saved copy {name[:12]} is missing from {self.folder}")
        with handle:
            data = handle.read(MAX_KEPT + 1)
        if hashlib.sha256(data).hexdigest() != name:
            raise StoreRefused(f"the saved copy {name[:12]} in {self.folder} is damaged")
        return data

    def _put(self, state: Dict[str, Any], path: str) -> None:
        """Write the state's bytes and mode at `path`: beside it first, then renamed over,
        so a failure never leaves half a file (and a link there is replaced, not followed)."""
        data = self._blob(state)
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)  # a deleted folder comes back too
        part = os.path.join(folder, f".{os.path.basename(path)}.undo-part")
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            os.fchmod(out.fileno(), int(state.get("mode", 0o644)) & 0o777)
        os.replace(part, path)

    def _put_beside(self, state: Dict[str, Any], path: str) -> str:
        """The saved version as FILE.undo (FILE.undo.2 ... when that name is taken)."""
        spare, number = path + ".undo", 1
        while os.path.lexists(spare):
            number += 1
            spare = f"{path}.undo.{number}"
        self._put(state, spare)
        return spare


def open_store(folder: Any) -> Store:
    """The store a session entry names, if it is this user's own (see the docstring);
    else StoreRefused saying why."""
    if not isinstance(folder, str) or not os.path.isabs(folder):
        raise StoreRefused(f"{folder!r} is not a checkpoint folder")
    for path, kind in ((folder, stat.S_ISDIR), (os.path.join(folder, MANIFEST), stat.S_ISREG)):
        try:
            info = os.lstat(path)
        except OSError:
            raise StoreRefused(f"{path} is missing") from None
        if not kind(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise StoreRefused(f"{path} is not this user's own (owned by another user, "
                               f"writable by others, or a link), so it is not used")
    return Store(folder)
