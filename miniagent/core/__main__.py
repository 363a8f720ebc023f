"""python -m miniagent.core: the core alone, as a program.

    python -m miniagent.core --demo                                   # offline
    python -m miniagent.core --base-url http://localhost:11434/v1 --model qwen3 "fix hello.py"

Everything a coding agent is, wired in a few lines: a model (the scripted one, or any
OpenAI-compatible server), the four plain tools, an Agent, and one subscriber that
prints the steps: the model's words and its tool calls on stderr, the final answer on
stdout. The demo copies a small project with a bug into a temporary folder and lets
a recorded model fix it there.

Left out: everything the product adds (sessions, retries, compaction, trust, the
hardened tools and transport, the terminal UI): that is `python -m miniagent`.
"""

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from .agent import Agent
from .bash import create_bash_tool
from .edit import create_edit_tool
from .messages import text_of, tool_calls
from .provider import Model
from .read import create_read_tool
from .scripted import demo_script, scripted_model
from .write import create_write_tool

SHOWN_LINES = 6  # lines of each tool result shown; the model sees them all


def show_step(event) -> None:
    """Print one event as a step on stderr: commentary, a tool call, its result."""
    if event["type"] == "message_end" and tool_calls(event["message"]):
        print(text_of(event["message"]).strip(), file=sys.stderr)
    elif event["type"] == "tool_execution_start":
        args = event["args"]
        call = "$ " + args["command"] if "command" in args else f"{event['toolName']} {args.get('path', '')}"
        print("  " + call, file=sys.stderr)
    elif event["type"] == "tool_execution_end":
        # A failure's cause is at its end (the traceback's last line): show the tail.
        lines = [line for line in text_of(event["result"]).splitlines() if line.strip()]
        shown = lines[-SHOWN_LINES:] if event["isError"] else lines[:SHOWN_LINES]
        if len(lines) > SHOWN_LINES:
            print(f"    … {len(lines) - SHOWN_LINES} lines not shown", file=sys.stderr)
        for line in shown:
            print(("    ! " if event["isError"] else "    ") + line, file=sys.stderr)


def plain_tools():
    """read, bash, edit and write in their plain form."""
    return [create_read_tool(), create_bash_tool(), create_edit_tool(), create_write_tool()]


def demo_project() -> str:
    """A fresh copy of the demo project, in a new temporary folder."""
    target = tempfile.mkdtemp(prefix="miniagent-demo-")
    source = Path(__file__).parent / "demo" / "project"
    shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    print(f"Demo project copied to {target}", file=sys.stderr)
    return target


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m miniagent.core",
                                     description="The core agent alone: the offline demo, or one prompt "
                                                 "to an OpenAI-compatible server.")
    parser.add_argument("--demo", action="store_true", help="a scripted model fixes a bug offline")
    parser.add_argument("--base-url", help="the server, e.g. http://localhost:11434/v1")
    parser.add_argument("--model", help="the model's name on that server")
    parser.add_argument("--api-key", help="the server's key, if it wants one")
    parser.add_argument("prompt", nargs="*", help="what to ask")
    args = parser.parse_args(argv)
    if args.demo:
        script = demo_script()
        model, prompt, cwd = scripted_model(script), script.prompt, demo_project()
    elif args.base_url and args.model and args.prompt:
        model = Model(id=args.model, provider="openai-compatible", api="openai-completions",
                      base_url=args.base_url.rstrip("/"))
        prompt, cwd = " ".join(args.prompt), str(Path.cwd())
    else:
        parser.error("give --demo, or --base-url, --model and a prompt")
    agent = Agent(model=model, tools=plain_tools(), api_key=args.api_key, cwd=cwd,
                  system_prompt="You are a coding agent. Use the tools to work in " + cwd)
    agent.subscribe(show_step)
    agent.prompt(prompt)
    answer = agent.messages[-1]
    if answer.get("stopReason") in ("error", "aborted"):
        print(f"Error: {answer.get('errorMessage')}", file=sys.stderr)
        return 1
    print(text_of(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
