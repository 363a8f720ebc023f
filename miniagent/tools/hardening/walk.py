"""walk: visit the files under a directory the way a developer sees them, and match globs.

grep and find must not wade through `.git/`, `node_modules/` or build output: the
answer would drown in noise and the search would take minutes. ripgrep and fd solve this
by honouring `.gitignore`; we do the same in pure Python, so neither binary is needed.

`walk(root)` yields every file and directory under `root`, depth first, names sorted,
hidden files included, with:
  * `.git` always skipped;
  * `.gitignore` files honoured: the one in each directory visited, plus those of the
    parent directories up to the repository root (the nearest ancestor holding `.git`);
  * symlinked directories listed but not entered (no loops).

Globs follow gitignore's rules everywhere (find's pattern, grep's glob, .gitignore
lines), so one function, `glob_matcher`, serves all three:

    pattern        matches                              because
    *.txt          a.txt, docs/b.txt                    no "/": the name, at any depth
    **/*.txt       a.txt, docs/b.txt                    "**/" is zero or more directories
    src/*.py       src/a.py, not src/x/a.py             has "/": the whole relative path
    /build         build, not x/build                   a leading "/" only anchors
    ./src/*.py     src/a.py                             "./" anchors like "/"
    docs/**        everything inside docs               a trailing "/**": all below

A .gitignore line may also start with "!" (re-include what an earlier line excluded) or
end with "/" (directories only). The last matching line wins, and a file inside an
excluded directory cannot be re-included (we never enter that directory), as in git.

Left out: `.git/info/exclude` and the global excludes file, `[[:alpha:]]` classes, and
escaped trailing spaces.
"""

import os
import re
import threading
from dataclasses import dataclass
from typing import Callable, Iterator, List, Optional

from ...core.tools import check_not_aborted


@dataclass
class Entry:
    path: str
    """Absolute path."""
    rel: str
    """Path relative to the walk's root, with "/" separators: "src/app.py"."""
    is_dir: bool


@dataclass
class IgnoreRule:
    prefix: str
    """The directory of the .gitignore, ending in "/": the rule sees paths below it."""
    matches: Callable[[str], bool]
    negate: bool
    dir_only: bool


def walk(root: str, abort: threading.Event) -> Iterator[Entry]:
    """Every entry under `root` (not root itself) that git would not ignore."""
    yield from _walk_directory(root, "", ancestor_rules(root), abort)


def _walk_directory(directory: str, rel_prefix: str, rules: List[IgnoreRule],
                    abort: threading.Event) -> Iterator[Entry]:
    check_not_aborted(abort)
    rules = rules + read_gitignore(directory)
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        return  # an unreadable directory is skipped, as rg and fd do
    for entry in entries:
        if entry.name == ".git":
            continue
        is_dir = entry.is_dir(follow_symlinks=False)
        if is_ignored(entry.path, is_dir, rules):
            continue
        rel = rel_prefix + entry.name
        yield Entry(entry.path, rel, is_dir)
        if is_dir:
            yield from _walk_directory(entry.path, rel + "/", rules, abort)


def is_ignored(path: str, is_dir: bool, rules: List[IgnoreRule]) -> bool:
    """Apply the rules in order; the last one that matches decides."""
    ignored = False
    for rule in rules:
        if rule.dir_only and not is_dir:
            continue
        if path.startswith(rule.prefix) and rule.matches(path[len(rule.prefix):]):
            ignored = not rule.negate
    return ignored


def ancestor_rules(root: str) -> List[IgnoreRule]:
    """The .gitignore rules of root's parents, from the repository root down.

    Searching `repo/src` must still skip what `repo/.gitignore` excludes. Outside a
    repository (no ancestor holds `.git`) no parent rules apply.
    """
    if os.path.exists(os.path.join(root, ".git")):
        return []  # root is the repository root: its own .gitignore is read by the walk
    parents = []
    directory = os.path.dirname(root)
    while not os.path.exists(os.path.join(directory, ".git")):
        if directory == os.path.dirname(directory):
            return []  # reached the filesystem root: not inside a repository
        parents.append(directory)
        directory = os.path.dirname(directory)
    parents.append(directory)
    rules: List[IgnoreRule] = []
    for parent in reversed(parents):
        rules += read_gitignore(parent)
    return rules


def read_gitignore(directory: str) -> List[IgnoreRule]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return parse_gitignore(text, os.path.join(directory, ""))


def parse_gitignore(text: str, prefix: str) -> List[IgnoreRule]:
    """One rule per pattern line. Example: "# deps\\nnode_modules/\\n!keep.log\\n*.log"
    -> [node_modules (dirs only), keep.log (negated), *.log]."""
    rules = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):  # "\#" and "\!" stand for a literal first character
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if line:
            rules.append(IgnoreRule(prefix, glob_matcher(line), negate, dir_only))
    return rules


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test for relative paths ("src/a.py"), with gitignore's rules (see the table above).

    Example: glob_matcher("*.py")("src/a.py") -> True; glob_matcher("src/*.py")("a.py") -> False
    """
    if pattern.startswith("./"):  # models write paths this way; "./*.py" means the top level
        pattern = pattern[1:]
    # A "/" anywhere but at the end ties the pattern to the path from the root; a
    # trailing one does not (in .gitignore it means "directories only", which
    # parse_gitignore strips off and keeps as dir_only before calling us).
    anchored = "/" in pattern.rstrip("/")
    # fullmatch already starts at the root, so a leading "/" has nothing left to say.
    regex = re.compile(glob_to_regex(pattern[1:] if pattern.startswith("/") else pattern))
    if anchored:
        return lambda rel: regex.fullmatch(rel) is not None
    # No "/": test the name alone, so "*.log" in a .gitignore skips logs in every
    # directory and find("*.py") finds every Python file, as people mean them.
    return lambda rel: regex.fullmatch(rel.rsplit("/", 1)[-1]) is not None


def glob_to_regex(glob: str) -> str:
    """Translate a glob to a regular expression; "*" and "?" never cross a "/".

    Examples: "*.py" -> r"[^/]*\\.py"; "a/**/b" -> r"a/(?:.*/)?b"; "docs/**" -> r"docs/.*"
    """
    out, i = [], 0
    while i < len(glob):
        char = glob[i]
        if glob.startswith("**/", i):
            # Zero or more whole directories. Zero matters: "**/*.txt" must match a.txt
            # at the top as well, and "a/**/b" must match a/b, as in git.
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i) and i + 2 == len(glob):
            out.append(".*")  # a trailing "**": everything below, at any depth
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")  # stays inside one name: "src/*.py" does not reach src/x/
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = _class_end(glob, i)
            if end is None:
                out.append(re.escape(char))
            else:
                # The class is copied as it is, except glob's "[!...]" negation, which a
                # regex spells "[^...]", and backslashes, which stay literal characters.
                body = glob[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        elif char == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))  # "\*" is a literal star
        else:
            out.append(re.escape(char))  # ".", "+", "(" ... mean nothing special in a glob
        i += 1
    return "".join(out)


def _class_end(glob: str, start: int) -> Optional[int]:
    """Index of the "]" closing the class opened at `start`, or None (then "[" is literal)."""
    i = start + 1
    if i < len(glob) and glob[i] in "!^":
        i += 1
    if i < len(glob) and glob[i] == "]":
        i += 1  # a "]" right after "[" or "[!" is a member, not the end
    end = glob.find("]", i)
    return None if end < 0 else end
