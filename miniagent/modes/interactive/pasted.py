"""Pasted images: a dropped image's path, or the clipboard's image, as an @attachment.

Two ways to give the model a picture without typing `@path`:

    drop a file    a terminal types the path of a file dropped on it, as a paste, each
                   in its own way: '/tmp/my shot.png' (quoted), /tmp/my\\ shot.png
                   (escaped), file:///tmp/my%20shot.png (a URI). A paste that is
                   nothing but paths of images goes in as @attachments instead:
                   @"/tmp/my shot.png"
    Ctrl+V         the clipboard's image (a screenshot) is saved to a new file in the
                   temporary folder, and its path goes in as if it had been pasted

Either way the editor shows the `@path` before anything is sent (the user sees what
will go, and can delete it), and attach.py attaches it when the prompt is sent, with
the read tool's checks (the type told by the first bytes, 4.5 MB at most). A pasted
path is looked at only as far as its first bytes, and only when it is a regular file
(a FIFO named shot.png would block the screen).

The clipboard belongs to the desktop, and a terminal program reads it through the
desktop's own tool: wl-paste (wl-clipboard, on Wayland) or xclip (on X11), whichever
is on PATH and answers (wl-paste fails at once where no Wayland compositor runs). Each
is asked for the types the clipboard holds, then for the image in the first type we
know. Without either, Ctrl+V says what to install.

Left out: the clipboard's text (the terminal's own paste brings that), macOS and
Windows clipboards, converting other image types (BMP) to PNG, as pi does.
"""

import os
import shlex
import shutil
import subprocess
import tempfile
from typing import List, Optional
from urllib.parse import unquote, urlparse

from ...files.safeopen import open_regular
from ...tools.read import image_mime

IMAGE_TYPES = {"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp",
               "image/gif": ".gif"}  # the types the models take, in order of preference
MAX_PATHS_TEXT = 4096  # a longer paste is text, not dropped files: no file is looked at
CLIPBOARD_SECONDS = 5  # a clipboard tool that takes longer is given up on
# How each tool lists the types on the clipboard.
LIST_TYPES = {"wl-paste": ["wl-paste", "--list-types"],
              "xclip": ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"]}


class ClipboardError(Exception):
    """Why Ctrl+V pasted nothing, as one line for the user."""


def attach_pasted_images(text: str, cwd: str) -> str:
    """The editor's on_paste: a paste of nothing but image files' paths becomes their
    @attachments; any other paste stays as it is.

    Example: "'/tmp/my shot.png'" -> '@"/tmp/my shot.png"' (when it is an image)
    """
    paths = pasted_paths(text, cwd)
    if not paths or not all(is_attachable_image(path) for path in paths):
        return text
    return " ".join(as_attachment(path) for path in paths)


def pasted_paths(text: str, cwd: str) -> List[str]:
    """The paths a paste names, unquoted as a shell would, relative ones from `cwd`.

    Example: "/a/x\\\\ y.png file:///b/z%20w.png" -> ["/a/x y.png", "/b/z w.png"]
    """
    if len(text) > MAX_PATHS_TEXT:
        return []
    try:
        words = shlex.split(text)
    except ValueError:  # an open quote: "don't" is text, not a path
        return []
    paths = [unquote(urlparse(word).path) if word.startswith("file://") else word
             for word in words]
    return [os.path.join(cwd, os.path.expanduser(path)) for path in paths]


def is_attachable_image(path: str) -> bool:
    """Is `path` a regular file whose first bytes say PNG, JPEG, GIF or WebP? (A path
    with a double quote could not be written as @"path": not attachable.)"""
    if '"' in path:
        return False
    try:
        with open_regular(path) as f:
            return image_mime(f.read(16)) is not None
    except OSError:
        return False


def as_attachment(path: str) -> str:
    """Example: as_attachment("/tmp/a.png") -> "@/tmp/a.png"; with a space: @"/tmp/a b.png"."""
    return f'@"{path}"' if any(char.isspace() for char in path) else f"@{path}"


def clipboard_image() -> str:
    """The clipboard's image, saved to a new file in the temporary folder: its path.
    Raises ClipboardError when there is none, or no tool to read it."""
    tools = [tool for tool in LIST_TYPES if shutil.which(tool)]
    if not tools:
        raise ClipboardError("Ctrl+V pastes the clipboard's image through wl-paste "
                             "(Wayland) or xclip (X11): install wl-clipboard or xclip")
    for tool in tools:
        listed = run_tool(LIST_TYPES[tool])
        if listed is None:  # no display of its kind here: the next tool
            continue
        mime = image_type(listed.decode("utf-8", "replace"))
        if mime is None:
            raise ClipboardError("the clipboard holds no image (text is pasted with "
                                 "the terminal's own paste)")
        data = run_tool(read_command(tool, mime))
        if not data or image_mime(data[:16]) is None:
            raise ClipboardError(f"{tool} gave no {mime} image from the clipboard")
        return save_image(data, mime)
    raise ClipboardError(f"could not read the clipboard with {' or '.join(tools)}")


def image_type(listed: str) -> Optional[str]:
    """The first type we know among those the clipboard holds, one a line.

    Example: image_type("text/plain\\nimage/jpeg\\nimage/png") -> "image/png"
    """
    held = {line.split(";")[0].strip().lower() for line in listed.splitlines()}
    return next((mime for mime in IMAGE_TYPES if mime in held), None)


def read_command(tool: str, mime: str) -> List[str]:
    """The command that writes the clipboard's content of type `mime` to its stdout."""
    if tool == "wl-paste":
        return ["wl-paste", "--no-newline", "--type", mime]
    return ["xclip", "-selection", "clipboard", "-t", mime, "-o"]


def run_tool(command: List[str]) -> Optional[bytes]:
    """What the command wrote, or None when it failed or took too long."""
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=CLIPBOARD_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def save_image(data: bytes, mime: str) -> str:
    """A new file of our own (mkstemp: no other file is overwritten); its path."""
    fd, path = tempfile.mkstemp(prefix="miniagent-clipboard-", suffix=IMAGE_TYPES[mime])
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path
