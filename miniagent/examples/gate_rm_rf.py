"""Example extension: refuse a recursive `rm` aimed outside the project.

`miniagent -e miniagent/examples/gate_rm_rf.py` loads it for one run. `rm -rf build`
runs; `rm -rf ~`, `rm -r ../x`, `rm -rf .` and `rm -rf $DIR` are refused, and the
model reads why. Not caught: rm inside a script or `sh -c`, or after a `cd`.
"""
import os
import shlex


def commands(text):
    """The simple commands of a command line: 'rm -rf a; ls' -> [['rm', '-rf', 'a'], ['ls']]."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True  # split on spaces, and around ; & | ( )
    result = [[]]
    for word in lexer:  # an unclosed quote raises ValueError, which blocks the call
        if set(word) <= set(";&|()"):
            result.append([])
        else:
            result[-1].append(word)
    return [words[1:] if words[0] == "sudo" else words for words in result if words]


def setup(api):
    project = os.path.realpath(api.cwd)

    def outside(target):  # $VARIABLES could point anywhere; the project itself is outside too
        path = os.path.realpath(os.path.join(project, os.path.expanduser(target)))
        return "$" in target or "`" in target or not path.startswith(project + os.sep)

    def gate(event):
        command = event["args"].get("command", "")
        if event["toolCall"]["name"] != "bash" or "rm" not in command:
            return None
        for words in commands(command):
            flags = [w for w in words[1:] if w.startswith("-")]  # -rf, -R, --recursive, ...
            recursive = any(f == "--recursive" or f[1:2] != "-" and "r" in f.lower() for f in flags)
            targets = [w for w in words[1:] if w not in flags]
            if words[:1] == ["rm"] and recursive and any(map(outside, targets)):
                return {"block": True, "reason": f"`{' '.join(words)}` would delete outside the "
                        f"project {project}, so it was blocked. Delete only paths inside it."}
        return None

    api.before_tool_call(gate)
