"""The search index: the text of every session in one SQLite full-text table.

After a few weeks there are hundreds of session files, and "where did I fix that
certificate error?" would mean reading them all. A full-text index answers it at once:
SQLite's FTS5 keeps, for every word, the rows that hold it, and ranks the rows that hold
all the words of a query (bm25: rare words and short texts count more).

    ~/.miniagent/sessions.sqlite
      files     one row per session file: its id, cwd, name, first prompt, mtime, and
                the store's cursor (where the next reading of that file starts)
      entries   FTS5, one row per message worth finding:
                  user        the prompt's text
                  assistant   its text, and each tool call as "name {arguments}"
                  toolResult  the result's text
                (tool calls and results cut to TOOL_TEXT_LIMIT: the words that matter
                come first, and a 5 MB log would crowd out everything else)

The index is **derived data**. The JSONL files stay the truth; runs never touch the
index; it can always be thrown away and rebuilt from the files:

- Each search first catches up: for every session file in scope, the store's
  `read_since` looks at its size, mtime, inode and ctime, reads nothing when they are
  unchanged, and otherwise only the new lines (session/store.py explains the cursor). A
  file that shrank or was changed before its end (even in place, keeping its size and
  mtime) is read again whole; a file that is gone leaves the index.
- `miniagent sessions reindex` deletes the file and builds a new one from scratch.
- A file that is not a database, or a damaged one, is deleted and built again.
- What cannot be fixed (no FTS5 in this Python's SQLite, a directory where the file
  should be, a lock held too long) raises IndexUnavailable, and search.py scans the
  files instead, with a one-line note.

The tokenizer is `unicode61` with `_` as part of a word, so `my_var` is one word and
`x509: certificate` is the two words `x509` and `certificate` (case and accents ignored).

Left out: building the query and showing results (search.py), and thinking text,
compaction summaries and `!command` records, which are not indexed.
"""

import functools
import os
import sqlite3
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from ..core.assembly import clean_text
from ..core.messages import text_of
from ..files.text import to_json
from ..files.home import index_path
from ..errors import SessionError
from ..session.store import STORE, ListingFacts, SessionStore

SCHEMA_VERSION = 1  # PRAGMA user_version; a file with another one is rebuilt
TOOL_TEXT_LIMIT = 4096  # characters kept of a tool call's arguments or a tool result
MARK_START, MARK_END = "\x02", "\x03"  # around each matched word in a snippet
SNIPPET_WORDS = 24
NO_FTS5 = "this Python's SQLite has no full-text search (FTS5)"
NO_MARKS = str.maketrans("", "", MARK_START + MARK_END)  # a text's own would confuse snippets

SCHEMA = f"""
DROP TABLE IF EXISTS files;
DROP TABLE IF EXISTS entries;
CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    session_id TEXT, cwd TEXT, name TEXT, first_prompt TEXT,
    modified REAL,
    cursor TEXT
);
CREATE VIRTUAL TABLE entries USING fts5(
    text, role UNINDEXED, file_id UNINDEXED, entry_id UNINDEXED, timestamp UNINDEXED,
    tokenize = "unicode61 tokenchars '_'"
);
PRAGMA user_version = {SCHEMA_VERSION};
"""

# The best rows among the files in scope (a temporary table of file ids), with a snippet
# of the text around the matched words.
QUERY = f"""
SELECT files.path, files.session_id, files.cwd, entries.entry_id, entries.role,
       entries.timestamp, snippet(entries, 0, char(2), char(3), '…', {SNIPPET_WORDS}),
       coalesce(files.name, files.first_prompt, ''), files.modified
FROM entries JOIN scope ON scope.file_id = entries.file_id
             JOIN files ON files.id = entries.file_id
WHERE entries MATCH ? ORDER BY entries.rank LIMIT ?
"""


class IndexUnavailable(Exception):
    """The index cannot be used; the message is one line saying why."""


@dataclass
class Match:
    """One entry found: where it is, and the text around the match."""
    file: str
    session_id: str
    cwd: str
    entry_id: str
    role: str  # user, assistant, toolResult
    timestamp: str
    snippet: str  # each matched word between MARK_START and MARK_END
    session_label: str  # the session's name, or else its first prompt
    modified: float  # the session file's mtime: the session's age


@functools.lru_cache(maxsize=None)
def fts5_available() -> bool:
    """Whether this Python's SQLite was built with FTS5 (most are; some old ones not)."""
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
        return True
    except sqlite3.Error:
        return False
    finally:
        db.close()


# --- What is worth finding ----------------------------------------------------------------


def searchable_text(entry: dict) -> Optional[Tuple[str, str]]:
    """(role, text) of an entry the index keeps, or None.

    Example: a tool result holding "Permission denied" -> ("toolResult", "Permission denied")
    """
    if entry["type"] != "message":
        return None
    message = entry["message"]
    role = message.get("role")
    try:
        if role == "user":
            text = text_of(message)
        elif role == "assistant":
            text = assistant_text(message)
        elif role == "toolResult":
            text = text_of(message)[:TOOL_TEXT_LIMIT]
        else:
            return None
    except (KeyError, TypeError, AttributeError):
        return None  # a block of a shape nobody writes (a hand-edited file) is not findable
    text = storable(text.translate(NO_MARKS))
    return (role, text) if text.strip() else None


def assistant_text(message: dict) -> str:
    """The reply's text, then each tool call as its name and JSON arguments.

    Example: "Let me look." + a call of read {"path": "a.py"}
             -> 'Let me look.\\nread {"path":"a.py"}'
    """
    calls = [f"{block.get('name')} {to_json(block.get('arguments'))}"
             [:TOOL_TEXT_LIMIT]
             for block in message.get("content") or [] if block.get("type") == "toolCall"]
    return "\n".join([text_of(message)] + calls)


# --- The index ----------------------------------------------------------------------------


class SearchIndex:
    """The SQLite file, opened (and created, or made again, when it must be)."""

    def __init__(self, path: str, store: SessionStore = STORE):
        self.path = path
        self.store = store
        self.entries_read = 0  # entries handed over by the store (the tests check it)
        self.notes: List[str] = []  # one line each, for the user
        self.db = self.connect()

    def connect(self) -> sqlite3.Connection:
        try:
            return open_database(self.path)
        except sqlite3.OperationalError as error:  # cannot open it, or locked: not ours to delete
            raise unavailable(self.path, error) from None
        except sqlite3.DatabaseError:  # not a database, or a damaged one
            return self.make_again()
        except OSError as error:
            raise unavailable(self.path, error) from None

    def make_again(self) -> sqlite3.Connection:
        """Everything in the index can be read again from the session files, so a damaged
        file is deleted and an empty one made; the catching up that follows refills it."""
        remove_index(self.path)
        self.notes.append(f"the search index {self.path} was damaged; it has been rebuilt")
        try:
            return open_database(self.path)
        except (sqlite3.Error, OSError) as error:
            raise unavailable(self.path, error) from None

    def close(self) -> None:
        self.db.close()

    # --- Catching up with the files --------------------------------------------------

    def catch_up(self, paths: List[str]) -> List[int]:
        """Bring the rows of these session files up to date, and forget files that are
        gone from their folders. Returns the ids of the files now in the index."""
        known = {path: (file_id, cursor) for file_id, path, cursor
                 in self.db.execute("SELECT id, path, cursor FROM files")}
        ids = []
        with self.db:  # one transaction: fast, and all or nothing
            for path in paths:
                file_id = self.update_file(path, *known.get(path, (None, None)))
                if file_id is not None:
                    ids.append(file_id)
            # `paths` lists these folders, so a known file there that is not in it is gone.
            listed, folders = set(paths), {os.path.dirname(path) for path in paths}
            for path, (file_id, _) in known.items():
                if path not in listed and os.path.dirname(path) in folders:
                    self.forget(file_id)
        return ids

    def update_file(self, path: str, file_id: Optional[int],
                    cursor: Optional[str]) -> Optional[int]:
        """Read what is new in one file and index it. Returns its id, or None when it is
        not (or no longer) a session."""
        try:
            tail = self.store.read_since(path, cursor)
            if tail.header is None:
                return file_id  # unchanged
            modified = os.path.getmtime(path)
        except (SessionError, OSError):
            if file_id is not None:
                self.forget(file_id)
            return None
        if file_id is None:
            file_id = self.db.execute("INSERT INTO files(path) VALUES (?)", (path,)).lastrowid
        elif tail.restarted:
            self.drop_entries(file_id)
        facts = ListingFacts()  # the name and first prompt, seen as the rows go in
        self.db.executemany(
            "INSERT INTO entries(text, role, file_id, entry_id, timestamp) VALUES (?, ?, ?, ?, ?)",
            rows_of(self.count(facts.watch(tail.entries)), file_id))
        name, first_prompt = storable(facts.name), storable(facts.first_message)
        if not tail.restarted:  # new lines only: the name may be new, the first prompt is not
            old_name, old_first = self.db.execute(
                "SELECT name, first_prompt FROM files WHERE id = ?", (file_id,)).fetchone()
            name, first_prompt = name or old_name, old_first or first_prompt
        header = tail.header
        self.db.execute("UPDATE files SET session_id = ?, cwd = ?, name = ?, first_prompt = ?, "
                        "modified = ?, cursor = ? WHERE id = ?",
                        (storable(str(header["id"])), storable(str(header.get("cwd") or "")),
                         name, first_prompt,
                         modified, tail.cursor, file_id))
        return file_id

    def count(self, entries: Iterator[dict]) -> Iterator[dict]:
        """The entries, each counted in entries_read as it passes."""
        for entry in entries:
            self.entries_read += 1
            yield entry

    def drop_entries(self, file_id: int) -> None:
        # FTS5 keeps no index on file_id, so this reads the whole table: fine for what is
        # rare (a file rewritten or removed), and it keeps the schema to one table.
        self.db.execute("DELETE FROM entries WHERE file_id = ?", (file_id,))

    def forget(self, file_id: int) -> None:
        self.drop_entries(file_id)
        self.db.execute("DELETE FROM files WHERE id = ?", (file_id,))

    # --- Asking ----------------------------------------------------------------------

    def find(self, fts_query: str, file_ids: List[int], limit: int) -> List[Match]:
        """The best `limit` rows of these files for an FTS5 query (search.py builds it)."""
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS scope(file_id INTEGER PRIMARY KEY)")
        with self.db:
            self.db.execute("DELETE FROM scope")
            self.db.executemany("INSERT OR IGNORE INTO scope VALUES (?)", ((i,) for i in file_ids))
        return [Match(*row) for row in self.db.execute(QUERY, (fts_query, limit))]


def rows_of(entries: Iterable[dict], file_id: int) -> Iterator[tuple]:
    """The rows of the entries table for these entries (those worth finding), made as
    SQLite takes them, so a big session never sits in memory whole."""
    for entry in entries:
        found = searchable_text(entry)
        if found:
            role, text = found
            yield (text, role, file_id, entry["id"], str(entry.get("timestamp") or ""))


def storable(text: Optional[str]) -> Optional[str]:
    """Text SQLite can store: a lone surrogate (half an emoji in a file pi wrote) has no
    UTF-8 form, and it is no word anyone searches for, so it is dropped."""
    return clean_text(text) if text is not None else None


def unavailable(path: str, error: Exception) -> IndexUnavailable:
    reason = getattr(error, "strerror", None) or str(error)
    return IndexUnavailable(f"the search index {path} could not be updated ({reason})")


# --- What search.py and `reindex` call ----------------------------------------------------


def lookup(fts_query: str, paths: List[str], limit: int, home: Optional[str] = None,
           store: SessionStore = STORE) -> Tuple[List[Match], List[str]]:
    """Catch the index up with these session files, then their best matches, and notes
    for the user. Raises IndexUnavailable when search must scan the files instead."""
    index = open_index(home, store)
    try:
        try:
            return index.find(fts_query, index.catch_up(paths), limit), index.notes
        except sqlite3.OperationalError:
            raise  # locked, disk full: not a reason to delete anything
        except sqlite3.DatabaseError:  # found damaged while reading it: start again
            index.close()
            index.db = index.make_again()
            return index.find(fts_query, index.catch_up(paths), limit), index.notes
    except sqlite3.Error as error:
        raise unavailable(index.path, error) from None
    finally:
        index.close()


def rebuild(paths: List[str], home: Optional[str] = None,
            store: SessionStore = STORE) -> Dict[str, int]:
    """`miniagent sessions reindex`: a new index, from every file read again."""
    if not fts5_available():
        raise IndexUnavailable(NO_FTS5)
    remove_index(index_path(home))  # from scratch: whatever was there, damaged or not
    index = open_index(home, store)
    try:
        return {"sessions": len(index.catch_up(paths)), "entries": index.entries_read}
    except sqlite3.Error as error:
        raise unavailable(index.path, error) from None
    finally:
        index.close()


def open_index(home: Optional[str], store: SessionStore) -> SearchIndex:
    if not fts5_available():
        raise IndexUnavailable(NO_FTS5)
    return SearchIndex(index_path(home), store)


def remove_index(path: str) -> None:
    for suffix in ("", "-journal"):  # the journal of a write that was cut short, too
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
        except OSError as error:  # a directory there, say: not ours to remove
            raise unavailable(path, error) from None


def open_database(path: str) -> sqlite3.Connection:
    """Connect, and make the tables when the file is new or holds another schema."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    db = sqlite3.connect(path, timeout=5)
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            db.executescript(SCHEMA)
    except sqlite3.Error:
        db.close()
        raise
    return db
