"""A wrong solution of EXERCISES.md step 7 (ex_gate): recursive spelled -r, -rf or
--recursive only: "rm -Rf" and "rm -fr" get through.
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
        for words in filter(None, map(rm_words, commands(event["args"].get("command", "")))):
            flags = [w for w in words[1:] if w.startswith("-")]
            recursive = any(f in ("-r", "-rf", "--recursive") for f in flags)
            targets = [w for w in words[1:] if w not in flags]
            if recursive and any(map(outside, targets)):
                return {"block": True, "reason": f"`{' '.join(words)}` would delete outside the "
                        f"project {project}, so it was blocked. Delete only paths inside it."}
        return None

    api.before_tool_call(gate)
