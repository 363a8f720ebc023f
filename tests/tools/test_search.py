"""grep, find, ls and the walk/glob rules they share (and pi's tool tests)."""

import os
import threading
import time

import pytest

from miniagent.core.tools import ToolContext, ToolError, validate_arguments
from miniagent.tools import create_tools
from miniagent.tools import grep as grep_module
from miniagent.tools.hardening.walk import glob_matcher, walk
from helpers import processes_below


def run(name, cwd, **args):
    tool = create_tools([name])[0]
    return tool.execute("call-1", validate_arguments(tool, args), ToolContext(cwd=str(cwd)))


def text_of(result):
    return result.content[0]["text"]


def tree(root, files):
    """Create files from {relative path: content}."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


# --- grep ---------------------------------------------------------------------------------

def test_grep_single_file(tmp_path):
    tree(tmp_path, {"example.txt": "first line\nmatch line\nlast line\n"})
    result = run("grep", tmp_path, pattern="match", path="example.txt")
    assert text_of(result) == "example.txt:2: match line"
    assert result.details is None


def test_grep_limit_and_context(tmp_path):
    tree(tmp_path, {"context.txt": "before\nmatch one\nafter\nmatch two\nend\n"})
    result = run("grep", tmp_path, pattern="match", limit=1, context=1)
    text = text_of(result)
    assert text.startswith("context.txt-1- before\ncontext.txt:2: match one\n"
                           "context.txt-3- after\n\n[")
    assert "limit=2" in text and "match two" not in text
    assert result.details["matchLimitReached"] == 1


def test_grep_merges_overlapping_context(tmp_path):
    tree(tmp_path, {"f.txt": "a\nhit 1\nb\nhit 2\nc\n"})
    assert text_of(run("grep", tmp_path, pattern="hit", context=1)) == \
        "f.txt-1- a\nf.txt:2: hit 1\nf.txt-3- b\nf.txt:4: hit 2\nf.txt-5- c"


def test_grep_options(tmp_path):
    tree(tmp_path, {"a.py": "Value = 1\n", "b.txt": "value(x)\n", "sub/c.py": "value = 3\n"})
    assert text_of(run("grep", tmp_path, pattern="value", ignoreCase=True, glob="*.py")) == \
        "a.py:1: Value = 1\nsub/c.py:1: value = 3"
    assert text_of(run("grep", tmp_path, pattern="value(", literal=True)) == \
        "b.txt:1: value(x)"
    assert text_of(run("grep", tmp_path, pattern="nothing here")) == "No matches found"


def test_grep_skips_git_ignored_and_binary_files(tmp_path):
    tree(tmp_path, {".gitignore": "node_modules/\n*.log\n!keep.log\n",
                    "node_modules/m.js": "needle\n", "x.log": "needle\n",
                    "keep.log": "needle\n", ".git/config": "needle\n",
                    ".hidden/h.txt": "needle\n", "blob.bin": b"needle\x00\x01"})
    assert text_of(run("grep", tmp_path, pattern="needle")) == \
        ".hidden/h.txt:1: needle\nkeep.log:1: needle"


def test_grep_cuts_long_lines(tmp_path):
    tree(tmp_path, {"min.js": "needle" + "x" * 1000 + "\n"})
    result = run("grep", tmp_path, pattern="needle")
    assert "... [truncated]" in text_of(result) and "500" in text_of(result)
    assert result.details["linesTruncated"] is True


def test_grep_errors(tmp_path):
    with pytest.raises(ToolError, match="Path not found"):
        run("grep", tmp_path, pattern="x", path="missing")
    with pytest.raises(ToolError, match="literal=true"):
        run("grep", tmp_path, pattern="(unclosed")


# A pattern Python's `re` takes exponential time on: nested repeats, then a line that
# almost matches. The engine holds the interpreter lock while it works, so no thread,
# signal handler or Ctrl-C of the grep process itself could stop it.
RUNAWAY = "(a+)+$"
RUNAWAY_LINE = "a" * 34 + "b\n"


def matcher_children():
    """The pids of this process's regex matcher children."""
    return processes_below(os.getpid(), b"regex_child")


def test_a_runaway_pattern_ends_the_call_with_an_error_naming_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIAGENT_GREP_TIMEOUT", "1")  # no progress for 1 s, not 5
    tree(tmp_path, {"a.txt": "fine\n", "b/evil.txt": "ok\n" + RUNAWAY_LINE})
    started = time.monotonic()
    with pytest.raises(ToolError) as info:
        run("grep", tmp_path, pattern=RUNAWAY)
    assert time.monotonic() - started < 30  # the match alone would run for hours
    message = str(info.value)
    assert RUNAWAY in message and os.path.join("b", "evil.txt") in message
    assert "no progress for 1 s" in message
    assert matcher_children() == []


def test_abort_stops_grep_inside_a_big_file(tmp_path, monkeypatch):
    # The runaway pattern keeps the matcher busy inside one line; abort (what Ctrl-C
    # and SIGTERM do) must end the call at once and kill the matcher. Abort is set from
    # another thread once the matcher process runs.
    monkeypatch.setenv("MINIAGENT_GREP_TIMEOUT", "600")
    tree(tmp_path, {"big.txt": "line\n" * 100_000 + RUNAWAY_LINE})
    abort, seen, set_at = threading.Event(), [], []

    def abort_once_matching():
        deadline = time.monotonic() + 20
        while not seen and time.monotonic() < deadline:
            seen.extend(matcher_children())
            time.sleep(0.02)  # polling /proc, bounded: no event to wait on
        set_at.append(time.monotonic())
        abort.set()

    aborter = threading.Thread(target=abort_once_matching)
    aborter.start()
    tool = create_tools(["grep"])[0]
    with pytest.raises(ToolError, match="Operation aborted"):
        tool.execute("c", validate_arguments(tool, {"pattern": RUNAWAY}),
                     ToolContext(cwd=str(tmp_path), abort=abort))
    ended_at = time.monotonic()
    aborter.join()
    assert seen, "the match did not run in a child process"
    assert ended_at - set_at[0] < 5
    assert matcher_children() == []


def test_grep_on_a_symlink_loop_says_what_is_wrong(tmp_path):
    os.symlink("loop", tmp_path / "loop")
    with pytest.raises(ToolError, match="Too many levels of symbolic links") as info:
        run("grep", tmp_path, pattern="x", path="loop")
    assert "not found" not in str(info.value)  # read and grep now agree
    with pytest.raises(ToolError, match="Path not found"):
        run("grep", tmp_path, pattern="x", path="missing")


def test_grep_says_which_files_it_could_not_read(tmp_path, monkeypatch):
    # Tests run as root, whom chmod does not stop: make open() refuse one file instead.
    tree(tmp_path, {"a.txt": "needle\n", "locked.txt": "needle\n"})

    def open_except_locked(path, *args, **kwargs):
        if path.endswith("locked.txt"):
            raise PermissionError(13, "Permission denied", path)
        return open(path, *args, **kwargs)

    monkeypatch.setattr(grep_module, "open", open_except_locked, raising=False)
    result = run("grep", tmp_path, pattern="needle")
    assert text_of(result) == ("a.txt:1: needle\n\n[1 file(s) could not be read and were "
                               "skipped, e.g. locked.txt (Permission denied)]")
    assert result.details == {"unreadableFiles": 1}
    assert text_of(run("grep", tmp_path, pattern="absent")).startswith(
        "No matches found\n\n[1 file(s) could not be read")


def test_grep_output_is_capped_at_50kb(tmp_path):
    tree(tmp_path, {"big.txt": ("needle " + "y" * 400 + "\n") * 300})
    result = run("grep", tmp_path, pattern="needle", limit=1000)
    assert len(text_of(result).encode()) < 51200 + 300
    assert "50.0KB" in text_of(result) and result.details["truncation"]["truncated"]


def test_default_limits(tmp_path):
    tree(tmp_path, {"many.txt": "hit\n" * 101, **{f"d/f{i:04d}": "" for i in range(1001)}})
    grep = run("grep", tmp_path, pattern="hit", path="many.txt")
    assert grep.details["matchLimitReached"] == 100 and "limit=200" in text_of(grep)
    find = run("find", tmp_path, pattern="f*", path="d")
    assert find.details["resultLimitReached"] == 1000 and "limit=2000" in text_of(find)
    ls = run("ls", tmp_path, path="d")
    assert ls.details["entryLimitReached"] == 500 and "limit=1000" in text_of(ls)


@pytest.mark.ex_tool
def test_file_names_that_are_not_utf8(tmp_path):
    # Such a name reaches Python as a lone surrogate, which no JSON encoder for the
    # model or the session file accepts: listings show U+FFFD instead.
    (tmp_path / "d").mkdir()
    with open(os.fsencode(tmp_path / "d") + b"/caf\xe9.txt", "wb") as f:
        f.write(b"needle\n")
    for name, args in (("ls", {"path": "d"}), ("find", {"pattern": "*.txt"}),
                       ("grep", {"pattern": "needle"})):
        text = text_of(run(name, tmp_path, **args))
        assert "caf\ufffd.txt" in text
        text.encode("utf-8")  # no lone surrogate left


@pytest.mark.ex_tool
def test_symlink_loops_are_listed_not_followed(tmp_path):
    tree(tmp_path, {"sub/a.txt": "needle\n"})
    os.symlink("..", tmp_path / "sub" / "up")
    os.symlink("self", tmp_path / "self")
    assert text_of(run("find", tmp_path, pattern="*")) == "self\nsub/\nsub/a.txt\nsub/up"
    assert text_of(run("grep", tmp_path, pattern="needle")) == "sub/a.txt:1: needle"
    assert text_of(run("ls", tmp_path, path="sub")) == "a.txt\nup/"


@pytest.mark.ex_tool
def test_ls_lists_dangling_and_looping_symlinks(tmp_path):
    # stat fails for both; find lists them, and so must ls (they are there: rm sees them).
    tree(tmp_path, {"d/a.txt": ""})
    os.symlink("nowhere", tmp_path / "d" / "dangling")
    os.symlink("self", tmp_path / "d" / "self")
    assert text_of(run("ls", tmp_path, path="d")) == "a.txt\ndangling\nself"
    assert text_of(run("find", tmp_path, pattern="*", path="d")) == "a.txt\ndangling\nself"


# --- find ---------------------------------------------------------------------------------

def test_find_includes_hidden_files(tmp_path):
    tree(tmp_path, {".secret/hidden.txt": "", "visible.txt": ""})
    assert text_of(run("find", tmp_path, pattern="**/*.txt")) == ".secret/hidden.txt\nvisible.txt"


def test_find_honours_gitignore(tmp_path):
    tree(tmp_path, {".gitignore": "ignored.txt\n", "ignored.txt": "", "kept.txt": ""})
    assert text_of(run("find", tmp_path, pattern="*.txt")) == "kept.txt"


def test_find_matches_relative_paths(tmp_path):
    tree(tmp_path, {"a.ts": "", "src/b.spec.ts": "", "src/deep/c.spec.ts": "", "d.spec.ts": ""})
    assert text_of(run("find", tmp_path, pattern="src/**/*.spec.ts")) == \
        "src/b.spec.ts\nsrc/deep/c.spec.ts"
    assert text_of(run("find", tmp_path, pattern="*.spec.ts")) == \
        "d.spec.ts\nsrc/b.spec.ts\nsrc/deep/c.spec.ts"
    assert text_of(run("find", tmp_path, pattern="src")) == "src/"
    assert "No files found" in text_of(run("find", tmp_path, pattern="*.rs"))


def test_find_limit(tmp_path):
    tree(tmp_path, {f"f{i}.txt": "" for i in range(5)})
    result = run("find", tmp_path, pattern="*.txt", limit=2)
    assert text_of(result).startswith("f0.txt\nf1.txt\n\n[") and "limit=4" in text_of(result)
    assert result.details["resultLimitReached"] == 2


def test_find_errors(tmp_path):
    tree(tmp_path, {"file.txt": ""})
    with pytest.raises(ToolError, match="Path not found"):
        run("find", tmp_path, pattern="*", path="missing")
    with pytest.raises(ToolError, match="Not a directory"):
        run("find", tmp_path, pattern="*", path="file.txt")


# --- ls -----------------------------------------------------------------------------------

@pytest.mark.ex_tool
def test_ls_sorted_with_dot_files_and_directory_marks(tmp_path):
    tree(tmp_path, {".hidden-file": "", ".hidden-dir/x": "", "B.txt": "", "a.txt": "",
                    "sub/y": ""})
    assert text_of(run("ls", tmp_path)) == ".hidden-dir/\n.hidden-file\na.txt\nB.txt\nsub/"


@pytest.mark.ex_tool
def test_ls_limit_empty_and_errors(tmp_path):
    tree(tmp_path, {f"d/f{i}": "" for i in range(4)})
    result = run("ls", tmp_path, path="d", limit=3)
    assert text_of(result).startswith("f0\nf1\nf2\n\n[") and "limit=6" in text_of(result)
    assert result.details["entryLimitReached"] == 3
    assert text_of(run("ls", tmp_path, path="d", limit=4)) == "f0\nf1\nf2\nf3"
    (tmp_path / "empty").mkdir()
    assert text_of(run("ls", tmp_path, path="empty")) == "(empty directory)"
    with pytest.raises(ToolError, match="Path not found"):
        run("ls", tmp_path, path="missing")
    with pytest.raises(ToolError, match="Not a directory"):
        run("ls", tmp_path, path="d/f0")


# --- walk and globs -------------------------------------------------------------------------

@pytest.mark.parametrize("pattern, path, expected", [
    ("*.txt", "a.txt", True), ("*.txt", "docs/b.txt", True), ("*.txt", "a.txt.bak", False),
    ("**/*.txt", "a.txt", True), ("**/*.txt", "x/y/b.txt", True),
    ("src/*.py", "src/a.py", True), ("src/*.py", "src/x/a.py", False),
    ("src/*.py", "lib/src/a.py", False), ("/build", "build", True),
    ("a/**/b", "a/b", True), ("a/**/b", "a/x/y/b", True), ("docs/**", "docs/x/y", True),
    ("docs/**", "docs", False), ("file?.[ch]", "file1.c", True), ("[!a]*", "abc", False),
    ("./src/*.py", "src/a.py", True), ("./*.py", "a.py", True), ("./*.py", "src/a.py", False),
])
def test_glob_matcher(pattern, path, expected):
    assert glob_matcher(pattern)(path) is expected


def test_gitignore_rules(tmp_path):
    tree(tmp_path, {
        ".gitignore": "# comment\n/build\n*.log\n!keep.log\ncache/\n",
        "build/out.o": "", "src/build/kept.c": "", "a.log": "", "keep.log": "",
        "cache/x": "", "file-named-cache/y": "",
        "src/.gitignore": "gen/*.py\n", "src/gen/g.py": "", "gen/g.py": "",
    })
    rels = [entry.rel for entry in walk(str(tmp_path), threading.Event())]
    assert rels == [".gitignore", "file-named-cache", "file-named-cache/y", "gen", "gen/g.py",
                    "keep.log", "src", "src/.gitignore", "src/build", "src/build/kept.c",
                    "src/gen"]


def test_parent_gitignore_applies_inside_a_repository(tmp_path):
    tree(tmp_path, {".git/HEAD": "", ".gitignore": "*.tmp\n", "sub/a.tmp": "", "sub/b.py": ""})
    assert text_of(run("find", tmp_path, pattern="*", path="sub")) == "b.py"
