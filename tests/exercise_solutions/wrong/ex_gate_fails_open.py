"""A wrong solution of EXERCISES.md step 7 (ex_gate): a command shlex cannot split is let
through (the ValueError caught), so the gate fails open.
Spliced by tests/test_exercises.py; never imported."""

FILE = "miniagent/examples/gate_rm_rf.py"
CLASS = None


def setup(api):
    project = os.path.realpath(api.cwd)

    def outside(target):
        path = os.path.realpath(os.path.join(project, os.path.expanduser(target)))
        return any(c in target for c in "$`{}") or not path.startswith(project + os.sep)

    def gate(event):
        if event["toolCall"]["name"] != "bash":
            return None
        try:
            simple = commands(event["args"].get("command", ""))
        except ValueError:
            return None  # cannot tell: let it run
        for words in filter(None, map(rm_words, simple)):
            flags = [w for w in words[1:] if w.startswith("-")]
            recursive = any(f == "--recursive" or f[1:2] != "-" and "r" in f.lower() for f in flags)
            targets = [w for w in words[1:] if w not in flags]
            if recursive and any(map(outside, targets)):
                return {"block": True, "reason": f"`{' '.join(words)}` would delete outside the "
                        f"project {project}, so it was blocked. Delete only paths inside it."}
        return None

    api.before_tool_call(gate)
