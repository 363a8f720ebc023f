"""write, hardened: the core's write tool (core/write.py) with safe files.

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

Under a sandbox (sandbox/confine.py), a path outside its writable roots, after links are
resolved, is refused with a tool error that names the sandbox: the in-process tools
follow the rule the confined commands do.

Left out: writing to a temp file and renaming (an interrupted write can leave a partial
file, as in pi), and keeping a backup of what was overwritten.
"""

from ..core.tools import Tool, ToolError
from . import Unconfined
from ..core.write import WriteFiles, create_write_tool
from .hardening.paths import describe_os_error, refuse_special_file, resolve_path


class SafeWriteFiles(WriteFiles):
    """The core write's `files` seam, hardened: no pipe or device, nothing outside the
    sandbox's roots, failures worded."""

    def __init__(self, sandbox: Unconfined = Unconfined()):
        self.sandbox = sandbox

    def resolve(self, path: str, cwd: str) -> str:
        return resolve_path(path, cwd)

    def describe_error(self, exc: OSError, path: str) -> ToolError:
        return describe_os_error(exc, path)

    def save(self, path: str, data: bytes) -> None:
        refused = self.sandbox.refuse_write(path)
        if refused:
            raise ToolError(refused)
        # Opening a named pipe to write waits for a reader, maybe forever.
        refuse_special_file(path, "write")
        super().save(path, data)


def create_tool(sandbox: Unconfined = Unconfined()) -> Tool:
    """The core's write tool with the hardened `files`, within `sandbox`'s roots."""
    return create_write_tool(SafeWriteFiles(sandbox))
