"""Example extension: refuse a recursive `rm` aimed outside the project.

`miniagent -e miniagent/examples/gate_rm_rf.py` loads it for one run. `rm -rf build`
runs; `rm -rf ~`, `rm -r ../x`, `/bin/rm -rf /`, `sudo rm -rf .`, `rm -rf $DIR` and
`rm -rf {a,b}` are refused, and the model reads why. Not caught: rm inside a script,
`sh -c` or `eval`, after a `cd`, or behind an alias or a function.
"""
import os
import shlex

WRAPPERS = {"sudo", "doas", "command", "env", "exec", "nice", "nohup", "time", "xargs"}


def commands(text):
    """The simple commands of a command line: 'rm -rf a; ls' -> [['rm', '-rf', 'a'], ['ls']]."""
    lexer = shlex.shlex(text.replace("\n", ";"), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True  # split on spaces, and around ; & | ( ) and newlines
    result = [[]]
    for word in lexer:  # an unclosed quote raises ValueError, which blocks the call
        if set(word) <= set(";&|()"):
            result.append([])
        else:
            result[-1].append(word)
    return [words for words in result if words]


def rm_words(words):
    """The words from `rm` on, when this simple command runs rm (also as /bin/rm, or
    behind sudo, env, xargs, ...); else None."""
    names = [os.path.basename(word) for word in words]
    if names[0] == "rm":
        return words
    if names[0] in WRAPPERS and "rm" in names:
        rest = words[names.index("rm"):]
        # xargs adds targets from its input, which nobody can see here: one unknown more.
        return rest + ["$XARGS_INPUT"] if names[0] == "xargs" else rest
    return None


def setup(api):
    project = os.path.realpath(api.cwd)

    def outside(target):  # $VARIABLES, `commands` and {braces} could name anything
        path = os.path.realpath(os.path.join(project, os.path.expanduser(target)))
        return any(c in target for c in "$`{}") or not path.startswith(project + os.sep)

    def gate(event):
        command = event["args"].get("command", "")
        if event["toolCall"]["name"] != "bash" or "rm" not in command:
            return None
        for words in filter(None, map(rm_words, commands(command))):
            flags = [w for w in words[1:] if w.startswith("-")]  # -rf, -R, --recursive, ...
            recursive = any(f == "--recursive" or f[1:2] != "-" and "r" in f.lower() for f in flags)
            targets = [w for w in words[1:] if w not in flags]
            if recursive and any(map(outside, targets)):
                return {"block": True, "reason": f"`{' '.join(words)}` would delete outside the "
                        f"project {project}, so it was blocked. Delete only paths inside it."}
        return None

    api.before_tool_call(gate)
