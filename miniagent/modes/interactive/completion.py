"""Completion: what Tab offers at the prompt, slash commands and `@` paths.

The editor (tui/editor.py) knows nothing of miniagent: on Tab it calls a completer with
the text before the cursor, and this file is that completer. Two kinds of words are
completed:

    /he           the slash commands whose name starts so, each with its line of help
                  (only while the line is still its first word: "/model gpt" is not)
    look at @sr   the paths that start so, relative to the project: "src/" (a folder,
                  completed with "/", so the next Tab goes inside it), "srv.py"

A path is completed by listing the one folder typed so far (`@src/ut` lists src/),
never by walking the tree, so Tab is instant in a big repository. What the project's
.gitignore excludes is not offered, with the same rules grep and find use
(tools/hardening/walk.py), and hidden files only when the typed part starts with ".".
attach.py reads an `@path` up to the next space (or in quotes, as a dropped image's
path is put), so names with spaces are not offered; nor are names with control characters (a file named with
an escape code would repaint the screen).

`slash.command_items` builds the list of commands (the table's, their aliases, the
extensions' and `/skill:name`); the REPL passes it in.
"""

import os
import re
from typing import List, Optional, Sequence, Tuple

from ...tools.hardening.walk import IgnoreRule, ancestor_rules, is_ignored, read_gitignore
from ...tui.menu import Completion

# An `@` word at the end of the text, as attach.py's ATTACHMENT finds one: at the start
# or after a space, up to the cursor.
AT_WORD = re.compile(r"(?:(?<=\s)|^)@(\S*)\Z")


def complete(text_before_cursor: str, commands: Sequence[Tuple[str, str]],
             cwd: str) -> Optional[Completion]:
    """What Tab offers for the word at the cursor, or None.

    Examples: complete("/he", [("/help", "list the commands")], cwd)
                  -> Completion(0, [("/help", "list the commands")])
              complete("read @no", [], "/project") -> Completion(6, [("notes.txt", "")])
    """
    if text_before_cursor.startswith("/") and not re.search(r"\s", text_before_cursor):
        return Completion(0, [item for item in commands
                              if item[0].startswith(text_before_cursor)])
    word = AT_WORD.search(text_before_cursor)
    if word is not None:
        return Completion(word.start(1), path_items(word.group(1), cwd))
    return None


def path_items(typed: str, cwd: str) -> List[Tuple[str, str]]:
    """The entries of the folder `typed` names that start with its last part, as
    paths in the form typed; folders end in "/".

    Example: path_items("src/ap", "/project") -> [("src/api/", ""), ("src/app.py", "")]
    """
    start = typed.rpartition("/")[2]  # the name being typed
    folder = typed[:len(typed) - len(start)]  # what comes before it: "src/", "/", ""
    # "~/" as attach.py reads it; an absolute folder stays one (join keeps it whole).
    listed = os.path.normpath(os.path.join(cwd, os.path.expanduser(folder)))
    try:
        entries = sorted(os.scandir(listed), key=lambda entry: entry.name)
    except OSError:
        return []  # no such folder (yet): nothing to offer
    rules = ancestor_rules(listed) + read_gitignore(listed)
    items = []
    for entry in entries:
        if offered(entry, start, rules):
            # A link to a folder is completed as a folder: it can be gone into.
            items.append((folder + entry.name + ("/" if entry.is_dir() else ""), ""))
    return items


def offered(entry: os.DirEntry, start: str, rules: List[IgnoreRule]) -> bool:
    """Is this entry a choice for a name typed as `start`?"""
    if not entry.name.startswith(start) or entry.name == ".git":
        return False
    if entry.name.startswith(".") and not start.startswith("."):
        return False  # hidden files only when asked for
    if re.search(r"\s", entry.name):
        return False  # attach.py could not read the path back
    if not entry.name.isprintable():
        return False  # an escape code in a name would be drawn, not shown
    return not is_ignored(entry.path, entry.is_dir(follow_symlinks=False), rules)
