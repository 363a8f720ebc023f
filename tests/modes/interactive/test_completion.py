"""Tab at the prompt: slash commands with their help, `@` paths of the project."""

import os

from miniagent.modes.attach import ATTACHMENT
from miniagent.modes.interactive.completion import complete
from miniagent.modes.interactive.slash import command_items
from miniagent.tui.editor import Editor
from miniagent.tui.keys import Key
from miniagent.tui.style import Style


class Skill:
    name = "review"
    description = "review the staged change"


class ExtensionCommand:
    description = "say hello"


COMMANDS = command_items({"greet": ExtensionCommand()}, [Skill()])


def editor_in(cwd, text):
    editor = Editor(Style(False), completer=lambda before: complete(before, COMMANDS, cwd))
    editor.set_text(text)
    return editor


def offered(text, cwd):
    completion = complete(text, COMMANDS, cwd)
    return None if completion is None else [value for value, _ in completion.items]


def project(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n")
    (tmp_path / "notes.txt").write_text("n")
    (tmp_path / "debug.log").write_text("l")
    (tmp_path / "build").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("a")
    (tmp_path / "src" / "api").mkdir()
    (tmp_path / "src" / "trace.log").write_text("t")
    (tmp_path / ".env").write_text("secret")
    (tmp_path / "my notes.md").write_text("s")
    (tmp_path / "n\x1b[2Jasty").write_text("x")
    return str(tmp_path)


def test_he_tab_gives_help(tmp_path):
    editor = editor_in(str(tmp_path), "/he")
    editor.handle(Key("tab"))
    assert editor.text == "/help"


def test_commands_come_with_their_help_aliases_extensions_and_skills():
    items = dict(COMMANDS)
    assert items["/help"] == "list the commands"
    assert items["/clear"] == "start a new session (same as /new)"
    assert items["/exit"].endswith("(same as /quit)")
    assert items["/greet"] == "say hello"
    assert items["/skill:review"] == "review the staged change"
    assert offered("/s", "/") == ["/session", "/search", "/sandbox", "/skill:review"]


def test_only_the_first_word_of_a_command_line_is_completed(tmp_path):
    assert offered("/model gp", str(tmp_path)) is None
    assert offered("say /he", str(tmp_path)) is None
    assert offered("/nothing", str(tmp_path)) == []


def test_at_no_tab_completes_notes_txt(tmp_path):
    editor = editor_in(project(tmp_path), "read @no")
    editor.handle(Key("tab"))
    assert editor.text == "read @notes.txt"
    assert ATTACHMENT.findall(editor.text) == [("", "notes.txt")]  # attach.py reads it back


def test_a_folder_completes_with_a_slash_and_tab_goes_inside(tmp_path):
    editor = editor_in(project(tmp_path), "@sr")
    editor.handle(Key("tab"))
    assert editor.text == "@src/"
    editor.handle(Key("tab"))
    assert editor.render(40)[0] == ["> @src/ap", "> src/api/", "  src/app.py"]  # what they share
    editor.handle(Key("tab"))
    editor.handle(Key("enter"))
    assert editor.text == "@src/app.py"


def test_ignored_hidden_spaced_and_control_names_are_not_offered(tmp_path):
    cwd = project(tmp_path)
    assert offered("@", cwd) == ["notes.txt", "src/"]
    assert offered("@src/", cwd) == ["src/api/", "src/app.py"]  # the root's *.log too
    assert offered("@.e", cwd) == [".env"]
    assert offered("@de", cwd) == []


def test_paths_start_at_the_project_and_absolute_ones_are_kept(tmp_path):
    cwd = project(tmp_path)
    assert offered("see @src/a", os.path.join(cwd, "src")) == []  # no src/src here
    assert offered(f"@{cwd}/no", "/") == [f"{cwd}/notes.txt"]
    assert offered("@missing/x", cwd) == []


def test_an_at_inside_a_word_is_not_a_path(tmp_path):
    cwd = project(tmp_path)
    assert offered("mail bob@no", cwd) is None
    assert offered("plain words", cwd) is None
