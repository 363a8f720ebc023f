"""Remembering the window a server serves: asked once a day, not on every run.

Asking a local server for its window (window.py) costs up to four requests before the
first prompt is sent, and a server seldom changes its size between two runs. So the
answer is kept in the miniagent home, one entry per server and model:

    ~/.miniagent/windows.json
    {"http://127.0.0.1:8080/v1 qwen2.5-coder": {"window": 4096, "askedAt": 1764662400000},
     "https://api.example.com/v1 big-model": {"window": 0, "askedAt": 1764662400000},
     "http://127.0.0.1:8081/v1 smol": {"window": 8192, "askedAt": 1764662400000,
                                       "tools": false}}

    known_window(url, model)            the window asked less than a day ago, or None
    remember_window(url, model, 4096)   after the server answered
    remember_window(url, model, 0)      after it answered none: a server that says
                                        nothing (vLLM, a hosted API) is not asked again
                                        either, and the run plans with the guess
    remember_window(url, model, 8192, tools=False)
                                        its chat template cannot call tools (llama.cpp's
                                        /props said so): every run warns, not just the
                                        one that asked; known_tools(url, model) -> False
    forget_window(url, model)           after a request overflowed: the server was
                                        restarted smaller, so the next run asks again
    first_warning(url, model)           True once: the "not in the registry" warning
                                        is said the first time a model is used, not on
                                        every start ("warned": true, kept when the
                                        window is asked again; an entry of a server
                                        never asked has no "window")

`askedAt` is milliseconds since 1970, as pi writes times. A day is the longest a stale
answer lives; an overflow ends it sooner. The file keeps the 200 most recently asked
entries, so a user who tries many models does not grow it for ever.

The file is ours, but anything may be at its name: not JSON, the wrong shape, a FIFO,
a directory. A cache is never worth a failed start-up, so whatever cannot be read is
treated as empty (and rewritten on the next answer), entries of the wrong shape are
skipped, and a write that fails (a read-only home) is skipped too: the next run asks
the server again, which is what it did before this file existed.

Left out: a lock. Two runs answering at the same moment each rewrite the file with
their own entry added; the later rename wins, and the other's answer is asked again
next time. Losing a cache entry costs a few requests, never a wrong answer. And a
server restarted with a larger window: nothing overflows to say so, so the smaller
window is planned with until the day is over (deleting windows.json asks at once).
"""

import json
import time
from typing import Any, Dict, Optional

from ..files.atomic import replace_atomically
from ..files.home import windows_file
from ..files.safeopen import TEXT_LIMIT, read_regular

ASK_AGAIN_MS = 24 * 60 * 60 * 1000  # a day
MAX_ENTRIES = 200

Entries = Dict[str, Dict[str, Any]]


def known_window(base_url: str, model_id: str) -> Optional[int]:
    """The window remembered for this server and model (0: it serves none), if it was
    asked within a day; None when it must be asked."""
    entry = read_entries().get(entry_key(base_url, model_id))
    if entry is None or now_ms() - entry["askedAt"] > ASK_AGAIN_MS:
        return None
    return entry.get("window")


def known_tools(base_url: str, model_id: str) -> bool:
    """False when the server was remembered saying its template cannot call tools."""
    entry = read_entries().get(entry_key(base_url, model_id)) or {}
    return entry.get("tools") is not False


def remember_window(base_url: str, model_id: str, window: int, tools: bool = True) -> None:
    """Keep the server's answer, asked now."""
    entries = read_entries()
    key = entry_key(base_url, model_id)
    entry = {"window": window, "askedAt": now_ms()}
    if not tools:
        entry["tools"] = False
    if entries.get(key, {}).get("warned") is True:
        entry["warned"] = True
    entries[key] = entry
    write_entries(entries)


def first_warning(base_url: str, model_id: str) -> bool:
    """True the first time: the model's warning is to be said, and it is remembered as
    said; False once it was (or when the file cannot be written: said each run then)."""
    entries = read_entries()
    key = entry_key(base_url, model_id)
    entry = entries.get(key) or {"askedAt": now_ms()}
    if entry.get("warned") is True:
        return False
    entries[key] = {**entry, "warned": True}
    write_entries(entries)
    return True


def forget_window(base_url: str, model_id: str) -> None:
    """Drop the remembered window (a request overflowed it); nothing to do without one."""
    entries = read_entries()
    if entries.pop(entry_key(base_url, model_id), None) is not None:
        write_entries(entries)


def entry_key(base_url: str, model_id: str) -> str:
    """Example: ("http://127.0.0.1:8080/v1/", "qwen") -> "http://127.0.0.1:8080/v1 qwen"."""
    return f"{base_url.rstrip('/')} {model_id}"


def now_ms() -> int:
    return int(time.time() * 1000)


def read_entries() -> Entries:
    """The file's well-formed entries; an unreadable file is an empty cache."""
    try:
        data = json.loads(read_regular(str(windows_file()), TEXT_LIMIT))
    except (OSError, ValueError, RecursionError):  # missing, a FIFO, too large, not JSON
        return {}
    if not isinstance(data, dict):
        return {}
    return {key: entry for key, entry in data.items() if is_entry(entry)}


def is_entry(entry: Any) -> bool:
    """{"window": 4096, "askedAt": 1764662400000}: whole numbers, the window 0 or more
    (or no window: a model warned about whose server was never asked)."""
    return (isinstance(entry, dict) and type(entry.get("askedAt")) is int
            and entry["askedAt"] >= 1 and ("window" not in entry or (
                type(entry["window"]) is int and entry["window"] >= 0)))


def write_entries(entries: Entries) -> None:
    """The newest MAX_ENTRIES entries, written atomically; a failed write is skipped."""
    newest = sorted(entries.items(), key=lambda item: item[1]["askedAt"])[-MAX_ENTRIES:]
    path = windows_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_atomically(path, json.dumps(dict(newest), indent=1) + "\n")
    except OSError:  # a read-only home, a directory at the name: asked again next run
        pass
