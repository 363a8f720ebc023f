"""write: create or overwrite a whole file.

    write("src/new/app.py", "print('hi')\\n")
      -> creates src/new/ if needed, writes the file,
         "Wrote 12 bytes to /repo/src/new/app.py"

The count is of UTF-8 bytes, what lands on disk ("é" is 2), not of characters. The
content is written as given: no line-ending conversion, no byte order mark. For a small
change to an existing file, `edit` is cheaper for the model (it sends only the change)
and safer (it fails if the file is not what the model thinks). A path ending in "/" is
refused: it names a directory, and dropping the "/" would create a file where the model
wanted a directory.

write declares the file it writes (`paths`), so in a batch of parallel calls a read,
write or edit of that file runs before or after it, in the order of the calls
(toolcalls.py), never in the middle of it.

Left out: writing to a temp file and renaming (an interrupted write can leave a partial
file, as in pi), and keeping a backup of what was overwritten.
"""

import os
from typing import Dict

from ..core.tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result
from .hardening.paths import describe_os_error, refuse_special_file, resolve_path

DESCRIPTION = (
    "Write a file with the given content, creating it (and any missing parent "
    "directories) or replacing everything in it. To change part of an existing file, "
    "prefer edit.")

PARAMETERS = {
    "type": "object",
    "required": ["path", "content"],
    "properties": {
        "path": {"type": "string",
                 "description": "File to write, absolute or relative to the working directory"},
        "content": {"type": "string", "description": "The complete new content of the file"},
    },
}


def create_tool() -> Tool:
    return Tool("write", DESCRIPTION, PARAMETERS, execute, paths=paths)


def paths(args: Dict, cwd: str):
    """write reads nothing and writes one file."""
    return [], [resolve_path(args["path"], cwd)]


def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
    check_not_aborted(ctx.abort)
    path = resolve_path(args["path"], ctx.cwd)
    if args["path"].endswith("/"):
        # resolve_path drops the "/", so "newdir/" would become a FILE named newdir:
        # the opposite of what the model meant.
        raise ToolError(f"Cannot write {args['path']!r}: the path ends with '/', so it "
                        f"names a directory. Give the file name to write, for example "
                        f"{args['path']}file.txt (missing directories are created).")
    data = args["content"].encode("utf-8")
    # Opening a named pipe to write waits for a reader, maybe forever.
    refuse_special_file(path, "write")
    try:
        # Creating the parents (as pi does) lets a model write src/new/app.py in one
        # call; otherwise it would need a bash `mkdir -p` first, a turn for nothing.
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise describe_os_error(exc, path) from exc
    return text_result(f"Wrote {len(data)} bytes to {path}")
