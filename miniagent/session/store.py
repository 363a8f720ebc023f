"""Where sessions live: the store interface, and the folder of JSONL files behind it.

The harness needs four things from whatever keeps its sessions, and nothing more:

    append(path, entries)        add entries to a session, as one write
    load(path)                   a session's header and entries (version 3), with warnings
    stream(path)                 the same, the entries read one at a time as they are used
    list_sessions(dirs)          what is there, newest first
    find_by_prefix(prefix, dirs) the sessions whose id starts with what the user typed

and the search index (search_index.py) two more, to catch up without reading everything:

    session_paths(dirs)          the sessions there, without reading them
    read_since(path, cursor)     the entries added since the reader last looked

`SessionStore` names that interface; `JSONLStore` is its one implementation and the only
writer of session files. The index is derived data beside the files: the JSONL files stay
the truth, and the index can always be rebuilt from them.

A cursor is the store's own business, kept by the reader as an opaque string (file.py
says what it holds: where the last reading stopped and what the file looked like).

The files sit in one folder per project, named after the working directory as pi does,
so miniagent and pi can read each other's folders:

    ~/.miniagent/sessions/--home-u-proj--/2026-03-15T10-20-30-123Z_<session id>.jsonl

(`MINIAGENT_HOME` moves ~/.miniagent; `--session-dir` moves the project's folder.)

A file is read one line at a time (file.py): each entry is parsed, migrated and
checked as it passes (check.py: one whose known fields have the wrong type is skipped
with a warning naming FILE:LINE, and an empty node keeps its place in the tree), so
`stats` of a 100 MB file needs no more memory than its longest line. Only `load`
(resuming, the tree) keeps every entry. A listing parses just the lines it shows: the
head, up to the first prompt, and the lines naming the session.

"Newest" is the file's modification time: files are append-only, so that is the time of
the last entry, and `-c` (find_most_recent) and the listing agree on which one is first.

Left out: caching (a listing reads every file; search goes through the index instead).
"""

import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from .check import entry_problem
from ..core.messages import text_of
from ..files.home import sessions_root
from .file import (append_lines, create_lines, lines_after, no_cycle_collection,
                   parse_entries, parse_line, read_header, read_session, stamp_of)
from ..errors import SessionError
from .migrate import Migration, version_of
from ..files.safeopen import open_regular


@dataclass
class LoadedSession:
    """A session file as read: entries already migrated to version 3."""
    header: Dict[str, Any]
    entries: List[dict]
    warnings: List[str]  # one line per skipped line: "FILE:LINE: skipped a malformed line"
    version: int  # the file's own version; below 3 the file must not be appended to


@dataclass
class StreamedSession:
    """A session file being read: the header at once, the entries as they are iterated
    (once). `warnings` grows as the lines they name go by."""
    header: Dict[str, Any]
    entries: Iterator[dict]  # version 3, checked, as load() gives them
    warnings: List[str]
    version: int


@dataclass
class SessionInfo:
    """One row of a listing (`miniagent sessions`, `-r`)."""
    path: str
    id: str
    cwd: str
    modified: float  # epoch seconds (the file's mtime)
    entries: int  # the lines after the header (a listing parses only what it shows)
    name: str  # the latest session_info name, or ""
    first_message: str  # the first user prompt's text, or "(no messages)"


@dataclass
class SessionTail:
    """What a session gained since a reader last looked (`read_since`)."""
    header: Optional[Dict[str, Any]]  # None: nothing changed, so nothing was read
    entries: Iterator[dict]  # the new entries, version 3, with the ids load() gives them,
    # read from the file as they are iterated (once)
    restarted: bool  # read from the top (first reading, or the session was rewritten):
    # forget what earlier readings of it gave
    where: Callable[[], str]  # the cursor as far as `entries` has been read

    @property
    def cursor(self) -> str:
        """Where these entries end, for the next read_since (what `entries` still holds
        is read, and passed over, first: the cursor always means "after all of them")."""
        for _ in self.entries:
            pass
        return self.where()


class SessionStore:
    """What the harness needs from a session store. See the module docstring."""

    def append(self, path: str, entries: List[dict]) -> None:
        """Add entries at the end of the session at `path`, creating it if missing.
        All of them or none: raises SessionError and leaves the session as it was."""
        raise NotImplementedError

    def create(self, path: str, header: Dict[str, Any], entries: List[dict]) -> Dict[str, Any]:
        """Write a new session (header and entries) at `path`. When another process has
        just created it, append the entries under ITS header instead; return the header
        the session now has."""
        raise NotImplementedError

    def load(self, path: str) -> LoadedSession:
        """Read a session. Raises SessionError when it cannot be read or is not one."""
        raise NotImplementedError

    def stream(self, path: str) -> StreamedSession:
        """load(), the entries read as they are used (this default loads them all)."""
        loaded = self.load(path)
        return StreamedSession(loaded.header, iter(loaded.entries), loaded.warnings,
                               loaded.version)

    def list_sessions(self, session_dirs: List[str]) -> List[SessionInfo]:
        """The sessions in these folders, newest first; unreadable ones left out."""
        raise NotImplementedError

    def find_by_prefix(self, prefix: str, session_dirs: List[str]) -> List[str]:
        """Paths of the sessions in these folders whose id starts with `prefix`."""
        raise NotImplementedError

    def session_paths(self, session_dirs: List[str]) -> List[str]:
        """The sessions in these folders, without reading them (the index checks each)."""
        raise NotImplementedError

    def read_since(self, path: str, cursor: Optional[str] = None) -> SessionTail:
        """The entries added to a session since `cursor` (None: all of them), read from
        the file as they are iterated. Malformed lines are skipped silently (loading the
        session is where they are reported).
        Raises SessionError when it cannot be read or is not a session."""
        raise NotImplementedError


class JSONLStore(SessionStore):
    """Sessions as JSONL files, one folder per project (pi's layout)."""

    def append(self, path: str, entries: List[dict]) -> None:
        append_lines(path, entries)

    def create(self, path: str, header: Dict[str, Any], entries: List[dict]) -> Dict[str, Any]:
        return create_lines(path, header, entries)

    def load(self, path: str) -> LoadedSession:
        streamed = self.stream(path)
        with no_cycle_collection():  # every entry stays alive: see file.py
            entries = list(streamed.entries)
        return LoadedSession(streamed.header, entries, streamed.warnings, streamed.version)

    def stream(self, path: str) -> StreamedSession:
        header, lines = read_session(path)
        warnings: List[str] = []
        entries = checked(path, header, parse_entries(path, lines, warnings), warnings)
        return StreamedSession(header, entries, warnings, version_of(header))

    def list_sessions(self, session_dirs: List[str]) -> List[SessionInfo]:
        infos = []
        for path in session_files(session_dirs):
            try:
                infos.append(self.describe(path))
            except (SessionError, OSError):
                continue  # a damaged or vanished file does not hide the others
        infos.sort(key=lambda info: info.modified, reverse=True)
        return infos

    def describe(self, path: str) -> SessionInfo:
        """The listing row for one file, in one pass over its lines that parses only the
        head (up to the first prompt) and the lines that name the session."""
        header, lines = read_session(path)
        # Migrated for their ids (a version-1 entry has none); the parents it gives the
        # few lines parsed here are not the file's, and a listing does not look at them.
        migration, facts, count = Migration(header), ListingFacts(), 0
        for number, line in lines:
            if not line.strip():
                continue
            count += 1
            if facts.first_message is None or b'"session_info"' in line:
                entry = parse_line(line)
                if entry is not None:
                    migration.apply(entry, number)
                    if entry_problem(entry) is None:
                        facts.see(entry)
        return SessionInfo(path=path, id=header["id"], cwd=str(header.get("cwd") or ""),
                           modified=os.path.getmtime(path), entries=count,
                           name=facts.name or "",
                           first_message=facts.first_message or "(no messages)")

    def find_by_prefix(self, prefix: str, session_dirs: List[str]) -> List[str]:
        found = []
        for path in session_files(session_dirs):
            try:
                if read_header(path)["id"].startswith(prefix):
                    found.append(path)
            except SessionError:
                continue
        return found

    def session_paths(self, session_dirs: List[str]) -> List[str]:
        return session_files(session_dirs)

    def read_since(self, path: str, cursor: Optional[str] = None) -> SessionTail:
        mark = json.loads(cursor) if cursor else None
        try:
            status = os.stat(path)
            if mark and mark.get("stamp") == stamp_of(status):
                return SessionTail(None, iter(()), restarted=False, where=lambda: cursor)
            file = open_regular(path)
        except OSError as error:
            raise SessionError(f"cannot read session {path}: {error.strerror or error}") from None
        try:
            return read_tail(path, file, status, mark)
        except Exception:
            file.close()  # otherwise the entries close it, once read to their end
            raise


def checked(path: str, header: Dict[str, Any], parsed: Iterable[tuple],
            warnings: List[str]) -> Iterator[dict]:
    """The (line number, entry) pairs of a file of `header`'s version, migrated to
    version 3 (migrate.py), then those whose known fields hold the right types
    (check.py). A bad one is skipped with a warning; when its id and parentId can still
    be read, an empty node takes its place, so the entries after it stay on their
    branch. The file itself is never changed."""
    migration = Migration(header)
    for number, entry in parsed:
        migration.apply(entry, number)
        problem = entry_problem(entry)
        if problem is None:
            yield entry
        elif type(entry.get("id")) is not str:
            warnings.append(f"{path}:{number}: skipped an entry without an id")
        else:
            warnings.append(f"{path}:{number}: skipped a malformed entry ({problem})")
            node = empty_node(entry)
            if node is not None:
                yield node


def empty_node(entry: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """A stand-in for a bad entry: its place in the tree and nothing else (a custom entry,
    which the model never sees), or None when even its place cannot be read."""
    parent = entry.get("parentId")
    if not (parent is None or type(parent) is str):
        return None
    timestamp = entry.get("timestamp")
    return {"type": "custom", "id": entry["id"], "parentId": parent,
            "timestamp": timestamp if type(timestamp) is str else "", "customType": SKIPPED}


SKIPPED = "miniagent.skipped"  # the customType of an empty node


STORE = JSONLStore()  # the store every caller uses unless it is given another


# --- Reading only what is new -----------------------------------------------------------


def read_tail(path: str, file: Any, status: os.stat_result, mark: Optional[dict]) -> SessionTail:
    """read_since for a JSONL file: the complete lines after the cursor (or all of them),
    parsed as they are read. The file is closed when they have all been read."""
    header, lines, restarted, where = lines_after(path, file, status, mark)
    # A version-1 file read from the middle: its first new entry gets no parentId.
    entries = checked(path, header, parse_entries(path, lines, []), [])
    return SessionTail(header, entries, restarted, where)


# --- Folders and file names -------------------------------------------------------------


def session_dir_for(cwd: str, base_dir: Optional[str] = None) -> str:
    """The folder of a project's sessions (not created here).

    Example: "/home/u/proj" -> "~/.miniagent/sessions/--home-u-proj--"
    """
    slug = cwd[1:] if cwd[:1] in ("/", "\\") else cwd
    for separator in ("/", "\\", ":"):
        slug = slug.replace(separator, "-")
    return os.path.join(base_dir or sessions_root(), f"--{slug}--")


def new_file_name(timestamp: str, session_id: str) -> str:
    """Example: ("2026-03-15T10:20:30.123Z", "0f8e") -> "2026-03-15T10-20-30-123Z_0f8e.jsonl"."""
    return timestamp.replace(":", "-").replace(".", "-") + f"_{session_id}.jsonl"


def session_files(session_dirs: List[str]) -> List[str]:
    """Every *.jsonl file in these folders (missing folders have none)."""
    paths = []
    for folder in session_dirs:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        paths.extend(os.path.join(folder, name) for name in names if name.endswith(".jsonl"))
    return paths


def project_dirs(root: Optional[str] = None) -> List[str]:
    """Every project's folder under the sessions root (or under `root`)."""
    root = root or sessions_root()
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [os.path.join(root, name) for name in names if os.path.isdir(os.path.join(root, name))]


# --- What the command line asks ---------------------------------------------------------


def list_sessions(cwd: Optional[str] = None, session_dir: Optional[str] = None,
                  all_projects: bool = False) -> List[SessionInfo]:
    """This project's sessions (or every project's), newest first."""
    if all_projects:
        dirs = project_dirs() + ([session_dir] if session_dir else [])
    else:
        dirs = [session_dir or session_dir_for(cwd or os.getcwd())]
    return STORE.list_sessions(unique(dirs))


def find_sessions_by_prefix(prefix: str, cwd: str, session_dir: Optional[str] = None) -> List[str]:
    """`--session ID`: the matches in this project's folder; when there are none, the
    matches in every project's folder. Several matches are for the caller to report."""
    here = session_dir or session_dir_for(cwd)
    found = STORE.find_by_prefix(prefix, [here])
    if found:
        return found
    others = [folder for folder in project_dirs() if folder != here]
    return STORE.find_by_prefix(prefix, others)


def find_most_recent(session_dir: str) -> Optional[str]:
    """`-c`: the newest file (by mtime) among those with a valid header, or None."""
    best, best_mtime = None, -1.0
    for path in session_files([session_dir]):
        try:
            read_header(path)
            mtime = os.path.getmtime(path)
        except (SessionError, OSError):
            continue
        if mtime > best_mtime:
            best, best_mtime = path, mtime
    return best


def unique(items: List[str]) -> List[str]:
    return list(dict.fromkeys(items))


# --- Reading entries for a listing -----------------------------------------------------


class ListingFacts:
    """What a listing shows of a session, gathered from its entries as they go by: the
    latest non-empty session_info name and the text of the first user message that
    has any (one line)."""

    def __init__(self) -> None:
        self.name: Optional[str] = None
        self.first_message: Optional[str] = None

    def see(self, entry: Dict[str, Any]) -> None:
        if entry["type"] == "session_info" and entry.get("name"):
            self.name = str(entry["name"]).strip()
        elif self.first_message is None and entry["type"] == "message":
            message = entry["message"]
            if message.get("role") == "user":
                self.first_message = " ".join(text_of(message).split()) or None

    def watch(self, entries: Iterable[dict]) -> Iterator[dict]:
        """The entries, passed on as they are seen."""
        for entry in entries:
            self.see(entry)
            yield entry
