"""Landlock: how a process confines itself and everything it will start (Linux).

Landlock is a Linux security module that any process, privileged or not, uses to
restrict *itself*. It builds a ruleset ("these kinds of access are handled: refused
unless a rule allows them"), adds rules ("beneath this folder, these accesses are
allowed"), then enforces it on itself. The restriction is inherited by every child
and survives execve, and it can never be undone: a later ruleset only narrows it.
So the launcher (launch.py) restricts itself, then executes the shell: the shell and
everything the shell starts inherit the walls. Root is confined too, once it has
promised not to gain privileges (no_new_privs).

It takes four system calls (the numbers are the same on x86_64 and aarch64):

    landlock_create_ruleset (444)  the handled accesses -> a ruleset file descriptor;
                                   with the VERSION flag, the kernel's ABI instead
    landlock_add_rule       (445)  "allow these accesses beneath this open folder"
    prctl(PR_SET_NO_NEW_PRIVS)     no setuid binary may widen what we are given
    landlock_restrict_self  (446)  enforce the ruleset on this process, for good

Each kernel speaks an ABI version, and each version knows more kinds of access:

    1  files: write, remove, make (Linux 5.13)    5  ioctl on devices (6.10)
    2  refer: rename and link across folders      6  scoping: abstract Unix sockets
    3  truncate (6.2)                                and signals stay inside (6.12)
    4  TCP bind and connect (6.7)                 7  audit logging flags (6.15)

An access the ruleset does not handle stays allowed; that is how one program runs on
every kernel: it handles what this kernel's ABI knows, and no more.

Our choice: reading and executing are not handled, so commands read everything the
user can (a build needs the compiler, the libraries, the user's config). Every write-ish
access is handled and granted beneath the writable roots only. With the network off,
TCP bind and connect are handled with no rule at all: every one is refused.

What Landlock cannot do: it does not cover UDP or raw sockets, nor connecting to a Unix
socket *file* (a Docker or D-Bus socket is a way out); it does not hide what a process
may read; a root process keeps its capabilities. Standard library only: ctypes.
"""

import ctypes
import os
import stat
import sys
from typing import Iterable

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1  # the flag that asks for the ABI version instead
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# Filesystem accesses (LANDLOCK_ACCESS_FS_*), and the ABI that first knows each.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
WRITES_ABI_1 = (WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG
                | MAKE_SOCK | MAKE_FIFO | MAKE_BLOCK | MAKE_SYM)
WRITES_FROM_ABI = ((1, WRITES_ABI_1), (2, REFER), (3, TRUNCATE), (5, IOCTL_DEV))
# Only these make sense on a file (not a folder); the kernel refuses the others there.
FILE_ACCESSES = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

# Network (ABI 4) and scoping (ABI 6).
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

# Device files every mode keeps writable: `> /dev/null` must work in read-only too.
DEVICES = ("/dev/null", "/dev/zero", "/dev/full")

TEST_ABI = "MINIAGENT_SANDBOX_ABI"  # a test switch: the ABI to report (0: no Landlock)


class RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr. An older kernel reads only the fields it knows and
    accepts the rest as long as they are zero."""
    _fields_ = [("handled_access_fs", ctypes.c_uint64),
                ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class PathBeneathAttr(ctypes.Structure):
    """struct landlock_path_beneath_attr: packed, 12 bytes."""
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def libc():
    """The C library, with errno kept so a failure can say why."""
    return ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The Landlock ABI version this kernel speaks; 0 when there is none (not Linux,
    too old, or landlock not in the kernel's LSM list). MINIAGENT_SANDBOX_ABI=N makes
    it report N, so tests can play an older kernel or none.

    Example: abi() -> 7 on Linux 6.15 and later
    """
    forced = os.environ.get(TEST_ABI, "")
    if forced.isdigit():
        return int(forced)
    if not sys.platform.startswith("linux"):
        return 0
    version = libc().syscall(CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    return max(version, 0)


def write_accesses(version: int) -> int:
    """Every write-ish access the ABI `version` knows."""
    return sum(bits for since, bits in WRITES_FROM_ABI if version >= since)


def restrict(writable_roots: Iterable[str], network: bool) -> None:
    """Confine this process and its future children for good: writes only beneath
    `writable_roots` (and to /dev/null, /dev/zero, /dev/full); no TCP unless `network`;
    signals and abstract Unix sockets kept inside (ABI 6). Raises OSError naming the
    step that failed (the launcher then runs nothing)."""
    version = abi()
    if version < 1:
        raise OSError("this kernel has no Landlock")
    writes = write_accesses(version)
    attr = RulesetAttr(handled_access_fs=writes)
    if not network and version >= 4:
        attr.handled_access_net = BIND_TCP | CONNECT_TCP  # handled, and no rule allows any
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    ruleset = call(CREATE_RULESET, "create the ruleset", ctypes.byref(attr), ctypes.sizeof(attr), 0)
    try:
        for path in (*writable_roots, *DEVICES):
            allow_writes(ruleset, path, writes)
        call_libc("prctl", "set no_new_privs", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        call(RESTRICT_SELF, "enforce the ruleset", ruleset, 0)
    finally:
        os.close(ruleset)


def allow_writes(ruleset: int, path: str, writes: int) -> None:
    """Add the rule "writes allowed beneath `path`" (on a file: only file accesses).
    A root that does not exist is skipped: it allows nothing to write into."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)  # O_PATH: a handle, not an opening
    except FileNotFoundError:
        return
    try:
        allowed = writes if stat.S_ISDIR(os.fstat(fd).st_mode) else writes & FILE_ACCESSES
        rule = PathBeneathAttr(allowed_access=allowed, parent_fd=fd)
        call(ADD_RULE, f"allow writes beneath {path}", ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
    finally:
        os.close(fd)


def call(number: int, step: str, *args) -> int:
    """One Landlock system call; OSError naming `step` when it fails."""
    return call_libc("syscall", step, number, *args)


def call_libc(function: str, step: str, *args) -> int:
    """One C library call that returns -1 and sets errno on failure. Both are variadic
    in C, so every number is passed as a long, the width the kernel reads."""
    args = [ctypes.c_long(arg) if isinstance(arg, int) else arg for arg in args]
    result = getattr(libc(), function)(*args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"cannot {step}: {os.strerror(errno)}")
    return result
