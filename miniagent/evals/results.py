"""The results of an eval run: one JSON line per finished trial, and folders merged.

An eval run writes its results the way a session is written (session/file.py): an
append-only JSONL file, one line per trial the moment it finishes, never rewritten.
So a run stopped by Ctrl-C, a crash or a batch system's time limit keeps every trial
it finished, and running it again into the same folder skips them (`done_trials`).

    OUT/results.jsonl                  {"suite": "basic", "task": "fix-typo", "trial": 1,
                                        "passed": true, "stop_reason": "stop", ...}
    OUT/sessions/TASK/trial-N.jsonl    the trial's session; the record names it
                                       relative to OUT, so a folder copied from another
                                       machine still finds it

Three rules make the lines safe to add up:

1. **One write per line, on disk before we go on.** A line goes to the kernel in one
   `os.write` on a descriptor opened with O_APPEND, then `fsync`: a trial that took
   minutes of model time is not lost to a power cut a second later.
2. **A torn line is skipped with a warning, not fatal.** A crash can leave half a line
   at the end; reading skips any line that is not a record (`FILE:LINE: skipped a
   malformed line` on stderr), and the next append first ends the torn line, so the new
   record starts on a line of its own.
3. **The later line wins.** A resumed run that tried a failed trial again appends a
   second line for the same (task, trial); the later one counts. Across folders
   (`merge_results`: the shards of one run, made on several machines) the later folder
   wins, and one warning line names both folders.

Left out: what the numbers mean (report.py) and how trials are run (runner.py).
"""

import json
import os
from typing import Any, Dict, List, Sequence, Set, Tuple

from ..files.safeopen import open_regular
from ..files.text import to_json
from ..modes.output import say
from ..session.file import MALFORMED

RESULTS_FILE = "results.jsonl"


def append_result(folder: str, record: Dict[str, Any]) -> None:
    """Add one trial's record to FOLDER/results.jsonl (both made on demand), in one write,
    fsynced. Raises OSError when it cannot be written."""
    os.makedirs(folder, exist_ok=True)
    line = (to_json(record) + "\n").encode("utf-8")
    # Read and write: reading the last byte tells whether a crash left a torn line.
    fd = os.open(os.path.join(folder, RESULTS_FILE), os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # end the torn line: it stays alone on its line, skipped
        os.write(fd, line)  # one write: a regular file takes it whole
        os.fsync(fd)  # a finished trial survives a power cut
    finally:
        os.close(fd)


def read_results(folder: str) -> List[Dict[str, Any]]:
    """Every record of FOLDER/results.jsonl in file order; [] when there is no file.
    A line that is not a record is skipped with one warning line on stderr. Raises
    OSError when the file is there but cannot be read."""
    path = os.path.join(folder, RESULTS_FILE)
    records = []
    try:
        file = open_regular(path)  # a FIFO planted there is refused, not waited on
    except FileNotFoundError:
        return []
    with file:
        for number, line in enumerate(file, 1):
            record = parse_record(line)
            if record is not None:
                records.append(record)
            elif line.strip():  # a blank line is not damage
                warn(f"{path}:{number}: {MALFORMED}")
    return records


def parse_record(line: bytes) -> Any:
    """The record on one line, or None when the line holds none: a record is an object
    with a task name, a trial number and whether it passed (the rest is read leniently).

    Example: b'{"task": "t", "trial": 1, "passed": false}' -> that dict;  b'{"task": "t'
    -> None
    """
    try:
        record = json.loads(line.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    trial = record.get("trial")
    is_number = isinstance(trial, int) and not isinstance(trial, bool)
    if isinstance(record.get("task"), str) and is_number and isinstance(record.get("passed"), bool):
        return record
    return None


def latest(records: List[Dict[str, Any]]) -> Dict[Tuple[Any, str, int], Dict[str, Any]]:
    """The records keyed by (suite, task, trial), a later record replacing an earlier one."""
    return {trial_key(record): record for record in records}


def trial_key(record: Dict[str, Any]) -> Tuple[Any, str, int]:
    return (str(record.get("suite")), record["task"], record["trial"])


def merge_results(folders: Sequence[str]) -> List[Dict[str, Any]]:
    """The records of every folder, sorted by suite, task and trial, each with the key
    "folder" added (the folder as given), so its session is at
    os.path.join(record["folder"], record["session"]). A trial held by two folders is
    taken from the later one, with one warning line per pair of folders."""
    merged: Dict[Tuple[Any, str, int], Dict[str, Any]] = {}
    for folder in folders:
        clashes: Dict[str, List[Tuple[Any, str, int]]] = {}
        for key, record in latest(read_results(folder)).items():
            if key in merged:
                clashes.setdefault(merged[key]["folder"], []).append(key)
            merged[key] = dict(record, folder=folder)
        for earlier, keys in clashes.items():
            warn(clash_line(earlier, folder, keys))
    return [merged[key] for key in sorted(merged)]


def clash_line(earlier: str, later: str, keys: List[Tuple[Any, str, int]]) -> str:
    """Example: "2 trials (fix-typo trial 1, ...) in both runs/a and runs/b: kept from runs/b"."""
    _, task, trial = keys[0]
    more = ", ..." if len(keys) > 1 else ""
    count = "1 trial" if len(keys) == 1 else f"{len(keys)} trials"
    return f"{count} ({task} trial {trial}{more}) in both {earlier} and {later}: kept from {later}"


def done_trials(folder: str) -> Set[Tuple[str, int]]:
    """The (task, trial) pairs a resumed run skips: those whose latest record has no
    failure outside the agent (a failed setup or a crash is worth trying again; a
    trial the agent failed is a result)."""
    return {(record["task"], record["trial"]) for record in latest(read_results(folder)).values()
            if record.get("failure") is None}


def warn(line: str) -> None:
    say(f"miniagent eval: {line}")  # say: a closed stderr is no crash
