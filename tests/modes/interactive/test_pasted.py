"""Pastes in the REPL, as a person makes them: a large paste collapsed to a marker and
sent whole, a dropped image's path attached, Ctrl+V's clipboard image attached. The
REPL runs in a pty (tests/pty_driver.py) and is looked at through its screen; the unit
tests of the pieces are at the end."""

import base64
import json
import os
import stat

import pytest
from fake_server import FakeServer
from pty_driver import Terminal
from helpers import text

from miniagent.modes.interactive.pasted import (
    ClipboardError, attach_pasted_images, clipboard_image, image_type, pasted_paths)

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8Dw"
                       "HwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
READY = "/help for commands"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def start_repl(tmp_path, server, env=None):
    """The REPL in a wide terminal, on the test server's model, which sees images."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / "models.json").write_text(json.dumps({"providers": {"fake": {
        "baseUrl": server.base_url + "/v1", "api": "openai-completions",
        "models": [{"id": "fake-model", "input": ["text", "image"]}]}}}))
    full_env = {"MINIAGENT_HOME": str(home), **(env or {})}
    return Terminal(["--provider", "fake"], env=full_env, cwd=str(tmp_path), columns=200)


def editor_line_of(vt):
    """The input editor's row: the last one on screen that starts with the prompt."""
    return next((line for line in reversed(vt.lines()) if line.startswith(">")), None)


def sent_user_content(server):
    """The last user message of the last request, as a list of parts."""
    content = [m for m in server.requests[-1]["body"]["messages"] if m["role"] == "user"][-1]
    content = content["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def test_a_paste_of_200_lines_shows_a_marker_and_sends_the_whole_text(tmp_path):
    pasted = "\n".join(f"log line {n}" for n in range(1, 201))
    with FakeServer([{"content": [text("Read it all.")]}]) as server, \
            start_repl(tmp_path, server) as term:
        term.expect_screen(READY)
        term.send("why does this fail? " + PASTE_START + pasted + PASTE_END)
        term.wait_screen(lambda vt: editor_line_of(vt) ==
                         "> why does this fail? [paste #1 +200 lines]")
        assert not any("log line" in row for row in term.visible())  # one row, not 200
        term.send("\r")
        term.expect_screen("Read it all.")
        term.send("/quit\r")
        assert term.wait() == 0
    assert sent_user_content(server)[0]["text"] == "why does this fail? " + pasted


def test_a_dropped_image_path_becomes_an_attachment_and_the_image_is_sent(tmp_path):
    shot = tmp_path / "my shot.png"
    shot.write_bytes(PNG)
    with FakeServer([{"content": [text("A single dot.")]}]) as server, \
            start_repl(tmp_path, server) as term:
        term.expect_screen(READY)
        # A terminal types a dropped file's path as a paste, quoted where it has spaces.
        term.send(f"what is in {PASTE_START}'{shot}' {PASTE_END}")
        term.wait_screen(lambda vt: editor_line_of(vt) == f'> what is in @"{shot}"')
        term.send("\r")
        term.expect_screen("A single dot.")
        term.send("/quit\r")
        assert term.wait() == 0
    parts = sent_user_content(server)
    assert parts[0]["text"].endswith(f'what is in @"{shot}"')
    images = [part for part in parts if part["type"] == "image_url"]
    assert [part["image_url"]["url"] for part in images] == [
        "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")]


def fake_wl_paste(folder, image):
    """A wl-paste on PATH that offers `image` as the clipboard's PNG."""
    folder.mkdir()
    (folder / "clip.png").write_bytes(image)
    script = folder / "wl-paste"
    script.write_text("#!/bin/sh\n"
                      'if [ "$1" = --list-types ]; then printf "text/plain\\nimage/png\\n"; '
                      f'else cat "{folder / "clip.png"}"; fi\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(folder)


def test_ctrl_v_pastes_the_clipboards_image_as_an_attachment(tmp_path):
    tools = fake_wl_paste(tmp_path / "bin", PNG)
    env = {"PATH": tools + os.pathsep + os.environ["PATH"], "TMPDIR": str(tmp_path)}
    with FakeServer([{"content": [text("A screenshot.")]}]) as server, \
            start_repl(tmp_path, server, env) as term:
        term.expect_screen(READY)
        term.send("see \x16")  # Ctrl+V
        term.wait_screen(lambda vt: (editor_line_of(vt) or "").startswith(
            f"> see @{tmp_path}/miniagent-clipboard-"))
        term.send("\r")
        term.expect_screen("A screenshot.")
        term.send("/quit\r")
        assert term.wait() == 0
    assert any(part["type"] == "image_url" for part in sent_user_content(server))


def test_ctrl_v_without_a_clipboard_tool_says_what_to_install(tmp_path):
    empty = tmp_path / "nothing"
    empty.mkdir()
    env = {"PATH": str(empty)}
    with FakeServer([]) as server, start_repl(tmp_path, server, env) as term:
        term.expect_screen(READY)
        term.send("\x16")
        term.expect_screen("install wl-clipboard or xclip")
        term.send("\x04")
        assert term.wait() == 0


# --- The pieces ---------------------------------------------------------------------


def test_pasted_paths_unquote_as_a_shell_and_read_file_uris(tmp_path):
    assert pasted_paths("/a/x\\ y.png file:///b/z%20w.png", "/c") == ["/a/x y.png", "/b/z w.png"]
    assert pasted_paths("shot.png", "/c") == ["/c/shot.png"]
    assert pasted_paths("don't", "/c") == []
    assert pasted_paths("x" * 5000, "/c") == []


def test_only_a_paste_of_image_files_becomes_attachments(tmp_path):
    (tmp_path / "a.png").write_bytes(PNG)
    (tmp_path / "b c.png").write_bytes(PNG)
    (tmp_path / "notes.png").write_text("not an image")
    os.mkfifo(tmp_path / "pipe.png")  # never opened for reading: it would block
    cwd = str(tmp_path)
    assert attach_pasted_images(f"{tmp_path}/a.png 'b c.png'", cwd) == \
        f'@{tmp_path}/a.png @"{tmp_path}/b c.png"'
    for paste in ("a.png notes.png", "pipe.png", "hello world", "a.png is nice"):
        assert attach_pasted_images(paste, cwd) == paste


def test_the_clipboards_types_the_first_image_type_we_know():
    assert image_type("text/plain\nimage/jpeg\nimage/png;charset=x\n") == "image/png"
    assert image_type("TARGETS\nUTF8_STRING\nimage/bmp\n") is None


def test_a_clipboard_whose_image_is_no_image_is_said(tmp_path, monkeypatch):
    tools = fake_wl_paste(tmp_path / "bin", b"not a png")
    monkeypatch.setenv("PATH", tools + os.pathsep + os.environ["PATH"])
    with pytest.raises(ClipboardError, match="^wl-paste gave no image/png image from the "
                                             "clipboard$"):
        clipboard_image()
