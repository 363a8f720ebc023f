"""write: create or overwrite a whole file.

    write("src/new/app.py", "print('hi')\\n")
      -> creates src/new/ if needed, writes the file, "Wrote 12 bytes to /repo/src/new/app.py"

The count is of UTF-8 bytes, what lands on disk. The seam: `files` (plain `WriteFiles`:
create the parents, open, write); the product's tools/write.py refuses pipes and devices
and words every failure. Left out: atomic writes (writing beside, then renaming).
"""

import os
from typing import Dict

from .read import describe_os_error, resolve_path
from .tools import Tool, ToolContext, ToolError, ToolResult, check_not_aborted, text_result

DESCRIPTION = (
    "Write a file with the given content, creating it (and any missing parent "
    "directories) or replacing everything in it. To change part of an existing file, "
    "prefer edit.")

PARAMETERS = {"type": "object", "required": ["path", "content"], "properties": {
    "path": {"type": "string",
             "description": "File to write, absolute or relative to the working directory"},
    "content": {"type": "string", "description": "The complete new content of the file"},
}}


class WriteFiles:
    """write's seam: where a path leads, and the bytes put there (edit's extends it)."""

    def resolve(self, path: str, cwd: str) -> str:
        return resolve_path(path, cwd)

    def describe_error(self, exc: OSError, path: str) -> ToolError:
        return describe_os_error(exc, path)

    def save(self, path: str, data: bytes) -> None:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)  # saves the model a `mkdir -p`
            with open(path, "wb") as f:
                f.write(data)
        except OSError as exc:
            raise self.describe_error(exc, path) from exc


def create_write_tool(files: WriteFiles = WriteFiles()) -> Tool:
    """The write tool; `files` is the seam (see the module docstring)."""
    def paths(args: Dict, cwd: str):
        return [], [files.resolve(args["path"], cwd)]  # reads nothing, writes one file

    def execute(call_id: str, args: Dict, ctx: ToolContext) -> ToolResult:
        check_not_aborted(ctx.abort)
        if args["path"].endswith("/"):  # resolving drops the "/": it would become a FILE
            raise ToolError(f"Cannot write {args['path']!r}: the path ends with '/', so it "
                            f"names a directory. Give the file name to write, for example "
                            f"{args['path']}file.txt (missing directories are created).")
        path, data = files.resolve(args["path"], ctx.cwd), args["content"].encode("utf-8")
        files.save(path, data)
        return text_result(f"Wrote {len(data)} bytes to {path}")

    return Tool("write", DESCRIPTION, PARAMETERS, execute, paths=paths)
