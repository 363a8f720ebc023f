"""A second correct solution of EXERCISES.md step 7 (ex_gate): the checks as small named
functions, the path test by os.path.commonpath. Spliced into a copy of the package by
tests/test_exercises.py; never imported."""

FILE = "miniagent/examples/gate_rm_rf.py"
CLASS = None


def setup(api):
    root = os.path.realpath(api.cwd)

    def escapes(target):
        if set(target) & set("$`{}"):  # a variable, a command or braces could name anything
            return True
        resolved = os.path.realpath(os.path.join(root, os.path.expanduser(target)))
        return resolved == root or os.path.commonpath([root, resolved]) != root

    def recursive(flag):
        return flag == "--recursive" or not flag.startswith("--") and "r" in flag.lower()

    def check(event):
        if event["toolCall"]["name"] != "bash":
            return None
        for words in map(rm_words, commands(event["args"].get("command", ""))):
            if not words:
                continue
            flags = [word for word in words[1:] if word.startswith("-")]
            targets = [word for word in words[1:] if not word.startswith("-")]
            if any(map(recursive, flags)) and any(map(escapes, targets)):
                return {"block": True, "reason": f"`{' '.join(words)}` would delete outside the "
                        f"project {root}, so it was blocked. Delete only paths inside it."}
        return None

    api.before_tool_call(check)
