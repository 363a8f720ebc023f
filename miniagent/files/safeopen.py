"""Opening a file someone else may have put there: regular files only, and bounded.

Session files and config files (models.json, settings.json, trust.json) come from
folders other people can write to: a shared session folder, a cloned project. A name
that ends in `.jsonl` or `.json` promises nothing about what is behind it:

    a FIFO        open() itself waits for a writer that never comes: the listing hangs
    /dev/zero     a symlink to it reads forever, until memory runs out
    a directory   read() fails with a confusing error

So every reader of such a file goes through `open_regular`: it opens with O_NONBLOCK
(opening a FIFO then returns at once instead of waiting), asks the open descriptor what
it is (fstat: no race between looking and opening), and refuses anything that is not a
regular file with an OSError whose strerror says so, which the callers already turn into
their one-line errors ("cannot read session FILE: not a regular file (a FIFO)").
`read_regular` adds a size bound for files that are read whole into memory.

`read_json_file` reads a configuration file whole, every failure a ConfigError naming
the file.

Left out: session files have no size bound here (a long session is legitimately large,
and it is read line by line into entries anyway); Windows (no O_NONBLOCK there).
"""

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, Optional

from ..errors import ConfigError

# Config files and instructions (AGENTS.md, SKILL.md) are a few KB; a megabyte leaves
# room for a models.json listing hundreds of models while keeping a file someone planted
# from filling memory or stalling start-up.
TEXT_LIMIT = 1024 * 1024

KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device",
         stat.S_IFDIR: "a directory", stat.S_IFSOCK: "a socket"}


def open_regular(path: str) -> BinaryIO:
    """The file opened for binary reading, if it is a regular file. Raises OSError
    (strerror "not a regular file (a FIFO)") for anything else, without blocking."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = KINDS.get(stat.S_IFMT(mode), "not a file")
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", path)
        os.set_blocking(fd, True)  # a regular file never blocks; plain reads from here on
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str, limit: Optional[int] = None) -> bytes:
    """The whole regular file; with `limit`, one larger than `limit` bytes is refused
    (OSError "larger than N bytes"). We read one byte past the limit rather than trust
    the size fstat gave: the file may grow while we read."""
    with open_regular(path) as file:
        data = file.read() if limit is None else file.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise OSError(errno.EFBIG, f"larger than {limit} bytes", path)
    return data


def read_json_file(path: Path) -> Any:
    """Parse a JSON configuration file (models.json, settings.json, trust.json): a regular
    file of at most TEXT_LIMIT bytes. Every failure is a ConfigError naming the file."""
    try:  # utf-8-sig: Windows editors may start the file with a byte order mark
        return json.loads(read_regular(str(path), TEXT_LIMIT).decode("utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                          f"{exc.msg}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except ValueError:  # Python 3.11+ refuses integers of thousands of digits
        raise ConfigError(f"{path}: invalid JSON: a number too long to read") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid JSON: nested too deeply") from None
    except OSError as exc:  # a directory, a FIFO, too large, no permission
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
