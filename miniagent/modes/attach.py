"""Attachments: `@path` in a prompt sends that file along with it.

Typing "explain @src/app.py" is shorter than asking the model to read the file, and
saves a round trip: the file travels in the prompt itself. Each `@path` word that
names a file adds it to the message, as pi does:

    text file   a tagged block before the prompt, within the read tool's limits
                (2000 lines or 50 KB; the read tool's own notice says how to go on):
                    <file name="/abs/src/app.py">
                    ...the file...
                    </file>
    image       an image block (PNG, JPEG, GIF, WebP), announced by an empty tag
    anything else (missing, a directory, binary, too big): the word stays as typed and
    a one-line warning says why, so "mail @bob" still reaches the model.

A path with spaces is written in double quotes, `@"my shot.png"` (as the REPL puts
a dropped image's path, pasted.py).

The `@path` words themselves stay in the prompt: "explain @src/app.py" still reads
naturally next to the attached block.

The file is read by the read tool itself (tools/read.py), so an attachment is cut,
decoded and refused exactly as a `read` call would be.

`expand_prompt` adds the one other thing a typed prompt may hold, a leading
`/skill:name`, so print, JSON and rpc modes expand prompts exactly as the terminal does.

Left out: directories (no listing is attached), globs, paths with a double quote, `@`
inside a word (an e-mail address is never an attachment), resizing images.
"""

import re
from typing import Any, Dict, List, Sequence, Tuple, Union

from ..core.messages import Message, text_of, user_message
from ..core.tools import ToolContext, ToolError
from ..tools.hardening.binary import SNIFF_BYTES, is_binary
from ..tools.hardening.paths import resolve_read_path
from ..tools.read import execute as read_file
from ..project.wrappers import defuse_closing_tags

# `@` at the start of a word, then the path in double quotes, or up to the next space.
# Punctuation that ends a sentence ("look at @app.py.") is not part of an unquoted path.
ATTACHMENT = re.compile(r'(?:(?<=\s)|^)@(?:"([^"\n]+)"|(\S+))')
TRAILING = ".,;:!?)'\""


def expand_attachments(text: str, cwd: str,
                       sees_images: bool = True) -> Tuple[Union[str, Message], List[str]]:
    """The prompt with its `@path` files attached, and a warning per file that is not:
    the text itself when nothing was attached, else a user message. An image is
    attached for any model (the session keeps it), and a warning says so when the
    model in use takes no images (`sees_images` False), since it will not see it.

    Examples:
        expand_attachments("explain @hello.py", "/demo") ->
            ({"role": "user", "content": [{"type": "text", "text": '<file name=
              "/demo/hello.py">\\nprint("hi")\\n</file>\\n\\nexplain @hello.py'}], ...}, [])
        expand_attachments("mail @bob", "/demo") ->
            ("mail @bob", ["@bob is not attached: File not found: /demo/bob."])
    """
    blocks: List[str] = []
    images: List[Dict[str, Any]] = []
    warnings: List[str] = []
    for quoted, word in ATTACHMENT.findall(text):
        path = quoted or word.rstrip(TRAILING) or word
        try:
            attached = attach_file(path, cwd)
        except ToolError as problem:
            warnings.append(f"@{path} is not attached: {reason_without_advice(str(problem))}")
            continue
        tag, image = attached
        blocks.append(tag)
        images += image
        if image and not sees_images:
            warnings.append(f"@{path}: this model takes no images, so it will not see this "
                            f"one (in models.json, \"input\": [\"text\", \"image\"] says "
                            f"a model does)")
    if not blocks:
        return text, warnings
    body = "".join(block + "\n" for block in blocks) + "\n" + text
    return user_message(body, images), warnings


# The attached blocks expand_attachments puts before the typed text.
ATTACHED_BLOCKS = re.compile(r'\A(?:<file name="[^"\n]*">(?:\n.*?\n)?</file>\n)+\n', re.DOTALL)


def typed_text(text: str) -> str:
    """A sent prompt's text without the files attached to it, as the user typed it (for
    /fork and /tree, which give a prompt back to edit; resending attaches them again).

    Example: '<file name="/d/a.py">\nx = 1\n</file>\n\nlook at @a.py' -> 'look at @a.py'
    """
    return ATTACHED_BLOCKS.sub("", text, count=1)


def attach_file(path: str, cwd: str) -> Tuple[str, List[Dict[str, Any]]]:
    """(the tagged text block, the image blocks) for one file, read as `read` does."""
    result = read_file("attachment", {"path": path}, ToolContext(cwd=cwd))  # or ToolError
    full = str(resolve_read_path(path, cwd))
    images = [block for block in result.content if block.get("type") == "image"]
    if images:
        return f'<file name="{full}"></file>', images
    with open(full, "rb") as f:  # read describes a binary file; we refuse to attach it
        if is_binary(f.read(SNIFF_BYTES)):
            raise ToolError("a binary file; ask the model to inspect it with bash")
    content = text_of({"content": result.content}).removesuffix("\n")
    return f'<file name="{full}">\n{defuse_closing_tags(content)}\n</file>', []


def reason_without_advice(text: str) -> str:
    """The tool's reason without its advice to the model. Example: "File not found: a.py.
    Check the path; ..." -> "File not found: a.py." """
    return text.strip().split("\n")[0].split(". ")[0].rstrip(".") + "."


def expand_prompt(text: str, cwd: str, skills: Sequence[Any] = (),
                  sees_images: bool = True) -> Tuple[Union[str, Message], List[str]]:
    """What a prompt given to -p, --mode json or rpc becomes, as in the terminal: a
    leading `/skill:name args` replaced by that skill (errors.SkillError for an unknown
    one), then its `@path` files attached; with a warning per file that is not.

    Example: "/skill:review @diff.txt" -> (a user message holding the skill's text,
    the diff as a tagged block, and "@diff.txt"), [].
    """
    expanded = None
    if text.lstrip().startswith("/skill:"):  # the skills' reader loads for this alone
        from ..project.skills import expand_skill_command
        expanded = expand_skill_command(text.lstrip(), skills)
    return expand_attachments(text if expanded is None else expanded, cwd, sees_images)
