"""Sub-agents: another agent run whose final answer becomes a tool result.

THE LESSON. A sub-agent is not a new kind of machinery: it is the same loop, started
again with a fresh context and a narrower job. The model calls a `task` tool with a
description and a prompt; the tool starts miniagent itself as a child process (as
pi's example starts pi), sends the prompt, waits for the child's last answer and
returns it. The parent's context gains one tool result instead of every file the
child read: that is the whole point (a search through forty files costs the parent
a paragraph).

    task {"description": "find the config loader", "prompt": "Where is settings.json read?"}
      -> python -m miniagent --mode rpc --provider ... --tools read,grep,find,ls
           --session <parent's session folder>/<parent>/<time>_find-the-config-loader.jsonl
      -> "project/settings.py, load_settings (line 138)"

How the API carries it:
    api.register_tool(task)       the tool; not sequential, so several task calls of one
                                  reply run side by side (core/toolcalls.py), each in
                                  its own process, and come back in call order
    ctx.start_program(argv)               the child, started as bash's commands are and watched
                                  by the reaper: it never outlives us
    ctx.agent_flags()             the parent's model, provider, sandbox and trust, as flags
    api.get_active_tools()        a child gets read-only tools, and others only if the
                                  parent has them now: plan mode holds for children too
    ctx.confirm_gate              --confirm's questions of the child, asked up here
    ctx.session.file              where the parent's session is, so the child's file
                                  goes in a folder named for it, and the tool result's
                                  details link it (`stats` counts its cost from there)
    ctx.ui.set_widget             one live line per running child
    ctx.config_dirs("agents")     agent definitions (agents.py)
    api.register_command          /review: the uncommitted diff, reviewed by a child

Depth: a child gets no `task` tool, so no grandchildren, unless
MINIAGENT_SUBAGENT_MAX_DEPTH (default 1) allows more levels; the depth travels in
MINIAGENT_SUBAGENT_DEPTH.

Left out: children that share the parent's context (fork-style), chains and parallel
fan-out as one call (pi's example has them; several calls in one reply do the fan-out
here), a key given with --api-key (the child reads the provider's variable), and
MCP tools in children.
"""

import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from miniagent.core.tools import Tool, ToolError, ToolResult, text_result
from miniagent.extensions.subagents.agents import AgentDefinition, load_agents
from miniagent.extensions.subagents.child import run_child

DEPTH_VAR, MAX_DEPTH_VAR = "MINIAGENT_SUBAGENT_DEPTH", "MINIAGENT_SUBAGENT_MAX_DEPTH"
READ_ONLY = ["read", "grep", "find", "ls"]
MAX_DIFF_BYTES = 200_000  # of /review's diff: a child's window is not endless

DESCRIPTION = (
    "Hand a self-contained job to a sub-agent: it runs with its own fresh context and "
    "read-only tools by default, and its final answer comes back as this tool's result. "
    "Use it for searches and investigations that would fill your context; several task "
    "calls in one reply run in parallel. The prompt must say everything the sub-agent "
    "needs: it sees nothing of this conversation.")
PARAMETERS = {"type": "object", "required": ["description", "prompt"], "properties": {
    "description": {"type": "string", "description": "A few words naming the job"},
    "prompt": {"type": "string", "description": "The whole job, as the sub-agent reads it"},
    "agent": {"type": "string", "description": "An agent definition's name (optional)"}}}
CHILD_PROMPT = ("You are a sub-agent. Another agent gave you the job below; your final "
                "answer is all it will see, so make it complete and concise.\nYour job: ")


def setup(api: Any) -> None:
    depth = env_number(DEPTH_VAR, 0)
    limit = env_number(MAX_DEPTH_VAR, 1)
    if depth >= limit:  # a child at the limit gets no task tool: no grandchildren
        return
    agents = SubAgents(api, depth, limit)
    api.register_tool(Tool("task", DESCRIPTION, PARAMETERS, agents.execute))
    api.register_command("review", agents.review,
                         "review the uncommitted changes (git diff) in a sub-agent")


def env_number(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() else default


class SubAgents:
    """The task tool and /review, sharing the live lines of the running children."""

    def __init__(self, api: Any, depth: int, limit: int):
        self.api, self.depth, self.limit = api, depth, limit
        self.lines: Dict[str, str] = {}  # call id -> its child's live line
        self.lock = threading.Lock()

    def execute(self, call_id: str, args: Dict[str, Any], tool_ctx: Any) -> ToolResult:
        agent = self.find_agent(args.get("agent"))
        description = " ".join(args["description"].split())[:80] or "task"
        run, link = self.run(call_id, description, args["prompt"], agent, tool_ctx.abort)
        details = {"description": description, "agent": agent.name, "childSession": link,
                   "turns": run.turns, "toolCalls": run.tool_calls, "usage": run.usage}
        if run.aborted:
            return ToolResult([{"type": "text", "text": "The sub-agent was stopped."}],
                              details, is_error=True)
        if run.error:
            return ToolResult([{"type": "text", "text": f"The sub-agent failed: {run.error}"}],
                              details, is_error=True)
        return text_result(run.answer, details)

    def find_agent(self, name: Optional[str]) -> AgentDefinition:
        if not name:
            return AgentDefinition("default")
        agents, _ = load_agents(self.api.ctx.config_dirs("agents"))
        if name not in agents:
            known = ", ".join(sorted(agents)) or "none are defined"
            raise ToolError(f"No agent named {name!r} (known: {known}). Leave `agent` out "
                            f"for the default one.")
        return agents[name]

    def run(self, key: str, description: str, prompt: str, agent: AgentDefinition,
            abort: threading.Event):
        """Run one child; (its ChildRun, the link to its session file or None)."""
        ctx = self.api.ctx
        session, link = self.child_session(description)
        argv = [sys.executable, "-m", "miniagent", "--mode", "rpc",
                *self.flags(agent), *session, "--no-mcp",
                "--append-system-prompt", CHILD_PROMPT + description + "\n\n" + agent.prompt]
        env = {DEPTH_VAR: str(self.depth + 1), MAX_DEPTH_VAR: str(self.limit)}
        self.show(key, f"{description}: starting")
        try:
            run = run_child(ctx, argv, env, prompt, abort,
                            lambda step: self.show(key, f"{description}: {step}"), self.confirm)
        finally:
            self.show(key, None)
        return run, link

    def flags(self, agent: AgentDefinition) -> List[str]:
        """The parent's set-up, the agent's model, tools within the parent's, the gates."""
        flags = self.api.ctx.agent_flags()
        if agent.model:
            at = flags.index("--model") if "--model" in flags else len(flags)
            flags[at:at + 2] = ["--model", agent.model]
        allowed = self.api.get_active_tools()
        tools = [tool for tool in agent.tools or READ_ONLY  # read-only ones, or the parent's
                 if (tool in READ_ONLY or tool in allowed) and tool != "task"]
        flags += ["--tools", ",".join(tools)] if tools else ["--no-tools"]
        if "task" in agent.tools and "task" in allowed and self.depth + 1 < self.limit:
            flags += ["-e", "subagents"]  # its own sub-agents, a level down
        if self.api.ctx.confirm_gate is not None:
            flags.append("--confirm")  # its questions come up here (self.confirm)
        if self.planning():
            flags.append("--plan")  # read-only tools and bash, in the child too
        return flags

    def planning(self) -> bool:
        """Whether plan mode is on here: the plan extension's last `plan` entry on this
        branch says so (extensions read each other through the session, not imports)."""
        entries = self.api.ctx.session.custom_entries("plan")
        return bool(entries) and bool((entries[-1].get("data") or {}).get("enabled"))

    def child_session(self, description: str):
        """(flags, link): the child's file in a folder named for the parent's session,
        and its path relative to the parent's folder; --no-session for a parent without."""
        parent = self.api.ctx.session.file
        if not parent:
            return ["--no-session"], None
        folder = Path(parent).with_suffix("")
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # the parent may not be written yet
        slug = re.sub(r"[^a-z0-9]+", "-", description.lower()).strip("-")[:40] or "task"
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime())
        name = f"{stamp}_{slug}_{os.urandom(3).hex()}.jsonl"
        return ["--session", str(folder / name)], f"{folder.name}/{name}"

    def confirm(self, request: Dict[str, Any]) -> bool:
        """A child's question: --confirm's, asked as the parent asks its own; any other
        goes to the parent's UI (no UI: no)."""
        ctx = self.api.ctx
        if request.get("toolName") and ctx.confirm_gate is not None:
            return ctx.confirm_gate(request["toolName"], request.get("args") or {})
        return ctx.ui.confirm(str(request.get("title", "")), str(request.get("message", "")))

    def show(self, key: str, line: Optional[str]) -> None:
        """The live lines: one per running child, cleared when none runs."""
        with self.lock:
            if line is None:
                self.lines.pop(key, None)
            else:
                self.lines[key] = line
            lines = [f"sub-agent {text}" for text in self.lines.values()]
            self.api.ctx.ui.set_widget("subagents", lines or None)

    def review(self, argument: str) -> str:
        """/review: the uncommitted diff, reviewed by a read-only child; its findings."""
        diff = self.uncommitted_diff()
        if not diff.strip():
            return "Nothing to review: no uncommitted changes (git diff HEAD is empty)."
        prompt = ("Review these uncommitted changes. List real problems (bugs, missing "
                  "tests, unclear code) with file and line, most important first; say "
                  "so if there are none." + (f"\nFocus: {argument}" if argument else "") +
                  f"\n\n```diff\n{diff}\n```")
        run, link = self.run("review", "review the uncommitted changes", prompt,
                             AgentDefinition("reviewer"), threading.Event())
        self.api.append_entry("subagent", {"childSession": link, "usage": run.usage})
        return run.answer if not run.error else f"/review failed: {run.error}"

    def uncommitted_diff(self) -> str:
        proc = self.api.ctx.start_program(["git", "diff", "HEAD"])
        with proc.stdout:
            data = proc.stdout.read(MAX_DIFF_BYTES + 1)
        proc.kill()  # a huge diff is cut, not waited for
        proc.wait()
        text = data[:MAX_DIFF_BYTES].decode("utf-8", "replace")
        return text + ("\n[... the diff was cut here]" if len(data) > MAX_DIFF_BYTES else "")
