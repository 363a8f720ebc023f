"""Plan mode: look first, change nothing, answer with a plan; the user decides.

LESSON. A "mode" is not a second agent: it is the same loop with a smaller tool set
and one more paragraph in the system prompt. While planning, the model is offered
read, grep, find, ls and bash, and nothing it runs may change anything:

    /plan (or Shift+Tab)      tools narrowed       api.set_active_tools
                              bash read-only       api.ctx.narrow_sandbox("read-only")
                                                   (else an allow-list, below)
    each prompt               "make a plan"        before_agent_start -> {"sections"}
    each tool call            hidden = refused     api.before_tool_call
    the model answers         run / keep / stop    api.ctx.ui.select, at agent_settled
    "run the plan"            tools back, plan     api.set_active_tools, api.add_message,
                              sent as the prompt   api.send_user_message
    the footer                "plan: planning"     api.ctx.ui.set_status

What the model is offered is only half of it: a model may still call a tool it saw
earlier in the conversation, so the gate refuses, at the call, every tool plan mode
does not allow (opencode #2631: a plan mode that still let writes through). bash runs
under the sandbox's read-only mode where the kernel has Landlock; elsewhere a command
runs only if each part of it starts with one of READ_ONLY_COMMANDS and nothing writes
a file (no `>`, no `find -delete`, only git's reading subcommands).

The plan is kept as a custom message `plan` in the session: the model sees it after a
resume, and after a compaction it is sent again with the next prompt (Claude Code
#24792: a plan lost at compaction). Whether plan mode is on is a custom entry `plan`
({"enabled": bool}), read back on resume, so a `/tree` or `-c` finds the mode it left;
the sub-agents extension reads it too, to start its children with `--plan`.

`--plan` starts in plan mode (print, json and rpc too). With no one to ask (print and
json mode) the plan is the answer: `miniagent -p --plan "..."` prints it, exit 0.
Settings' `planTools` lists more tools to offer while planning (an MCP server's: its
own "read-only" hint is its word, not ours); edit and write never.

Left out: pi's step tracking ([DONE:n] markers, a progress widget), editing the plan
before running it, and a separate model for planning.
"""

import re
import shlex

READ_ONLY_TOOLS = ["read", "grep", "find", "ls", "bash"]
NEVER = {"edit", "write"}  # what planTools cannot bring back
READ_ONLY_COMMANDS = {
    "cat", "head", "tail", "wc", "sort", "uniq", "cut", "diff", "cmp", "file", "stat",
    "du", "df", "tree", "ls", "pwd", "echo", "printf", "grep", "egrep", "fgrep", "rg",
    "find", "which", "type", "whoami", "id", "date", "uname", "basename", "dirname",
    "realpath", "readlink", "true", "false", "test", "[", "git", "nl", "tac", "column"}
GIT_READING = {"status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse",
               "describe", "shortlog"}
FIND_WRITING = {"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf",
                "-fls", "-fprint0"}
HARMLESS_REDIRECT = re.compile(r"\d?>\s*/dev/null|\d?>&\d")  # 2>/dev/null, 2>&1
SEPARATORS = re.compile(r"\|\||&&|[|;&\n]")

PLAN_PROMPT = """You are in plan mode: explore, then propose; change nothing.
- You may only read: read, grep, find, ls, and bash for commands that change nothing.
  Any other tool call is refused.
- Find out what the task needs: the files involved, how they fit, how it is tested.
- Then answer with a plan under a "Plan:" heading: numbered steps, each naming the
  files it touches and what changes, and how to check the result.
- The user reads the plan and decides whether to run it."""

CHOICES = ["Run the plan", "Keep planning", "Stop planning"]
RUN_PROMPT = "Carry out the plan above, step by step, and check the result."


def refusal(command: str) -> str:
    """Why a bash command may not run while planning, or "" when it may."""
    text = HARMLESS_REDIRECT.sub(" ", command)
    if re.search(r"[<>`]|\$\(", text):
        return "it redirects output or runs a command substitution"
    for part in SEPARATORS.split(text):
        try:
            words = shlex.split(part)
        except ValueError:
            return "it cannot be read as simple commands"
        if not words:
            continue
        if words[0] not in READ_ONLY_COMMANDS:
            return f"{words[0]} is not on plan mode's list of read-only commands"
        if words[0] == "git" and (len(words) < 2 or words[1] not in GIT_READING):
            return "only git's reading subcommands run while planning"
        if words[0] == "find" and FIND_WRITING & set(words):
            return "find may not delete, execute or write files while planning"
    return ""


def last_text(messages) -> str:
    """The text of the last assistant message among `messages`."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return "".join(block.get("text", "") for block in message.get("content", [])
                           if block.get("type") == "text").strip()
    return ""


class PlanMode:
    """One run's plan mode: its state and the handlers setup() registers."""

    def __init__(self, api):
        self.api = api
        self.planning = False
        self.tools_before = []  # what the model had before plan mode, given back after
        self.allowed = set(READ_ONLY_TOOLS)
        self.bash_limited = False  # no sandbox: bash checked against the allow-list
        self.answer = ""  # the model's last answer while planning
        self.plan = ""  # the plan being carried out, sent again after a compaction

    # --- Switching ------------------------------------------------------------------------

    def toggle(self, argument: str = "") -> str:
        """/plan and Shift+Tab: on when off, off when on."""
        if self.planning:
            self.leave()
            return "Plan mode off: every tool is back."
        self.enter()
        bash = ("bash runs only read-only commands (no sandbox here)" if self.bash_limited
                else "bash runs in the read-only sandbox")
        return f"Plan mode on: the model reads and plans, nothing changes ({bash})."

    def enter(self, tools_before=None, record: bool = True) -> None:
        ctx = self.api.ctx
        self.planning = True
        self.tools_before = tools_before or self.api.get_active_tools()
        extra = [name for name in ctx.setting("planTools") or [] if name not in NEVER]
        self.allowed = set(READ_ONLY_TOOLS) | set(extra)
        self.narrow_tools()
        self.bash_limited = ctx.narrow_sandbox("read-only", "plan mode") is not None
        ctx.ui.set_status("plan", "planning (read-only; /plan or Shift+Tab to leave)")
        if record:
            self.api.append_entry("plan", {"enabled": True, "toolsBefore": self.tools_before})

    def leave(self, plan: str = "") -> None:
        """Every tool back; `plan`, when it is to be run, kept in the entry (resume)."""
        self.planning, self.plan = False, plan
        self.api.set_active_tools(self.tools_before)
        self.api.ctx.narrow_sandbox(None)
        self.api.ctx.ui.set_status("plan", None)
        self.api.append_entry("plan", {"enabled": False, "plan": plan})

    def narrow_tools(self) -> None:
        """Offer the allowed tools only: the read-only ones first, then planTools that
        are active now (an MCP server's tools come back before each prompt)."""
        active = self.api.get_active_tools()
        extra = [name for name in active if name in self.allowed]
        self.api.set_active_tools(READ_ONLY_TOOLS + extra)

    # --- The handlers ---------------------------------------------------------------------

    def start(self, event) -> None:
        """session_start and session_tree: the mode this point of the session was left
        in (its last `plan` entry), or --plan at start-up; the plan last run, if any."""
        entries = self.api.ctx.session.custom_entries("plan")
        state = (entries[-1].get("data") or {}) if entries else {}
        self.plan = state.get("plan") or ""
        wanted = bool(state.get("enabled")) or (
            event.get("reason") == "startup" and bool(self.api.get_flag("plan")))
        if wanted and not self.planning:
            self.enter(state.get("toolsBefore"), record=not state.get("enabled"))
        elif self.planning and not wanted:
            self.leave(self.plan)

    def prompt_section(self, event):
        """before_agent_start: while planning, the tools narrowed again (the MCP tools
        were just offered anew) and the section that asks for a plan."""
        if not self.planning:
            return None
        self.narrow_tools()
        return {"sections": {"plan_mode": PLAN_PROMPT}}

    def gate(self, event):
        """Every call, while planning: a tool plan mode does not allow is refused, and
        so is bash beyond the allow-list where there is no sandbox."""
        if not self.planning:
            return None
        name = event["toolCall"]["name"]
        if name not in self.allowed:
            return {"block": True, "reason": f"Plan mode: {name} is not available while "
                    f"planning, and nothing was changed. Read and explore only, then answer "
                    f"with the plan; the user decides whether to run it."}
        why = refusal(str(event["args"].get("command", ""))) if (
            name == "bash" and self.bash_limited) else ""
        if why:
            return {"block": True, "reason": f"Plan mode: not run, because {why}. Use "
                    f"read-only commands while planning (see /plan in the docs)."}
        return None

    def remember_answer(self, event) -> None:
        """agent_end: the model's answer, the plan-to-be (a retry's answer replaces it)."""
        if self.planning and not event.get("willRetry"):
            self.answer = last_text(event.get("messages", []))

    def ask(self, event) -> None:
        """agent_settled: the model answered while planning; the user chooses. With no
        one to ask (print, json) the plan is the answer and nothing more happens."""
        answer, self.answer = self.answer, ""
        ui = self.api.ctx.ui
        if not (self.planning and answer and ui.has_ui) or event.get("aborted"):
            return
        choice = ui.select("The plan is ready. What next?", CHOICES)
        if choice == CHOICES[0]:
            self.leave(plan=answer)
            ui.notify("Plan mode off: running the plan.")
            self.api.add_message(answer, "plan")
            self.api.send_user_message(RUN_PROMPT)
        elif choice == CHOICES[2]:
            self.leave()
            ui.notify("Plan mode off; the plan was not run.")

    def after_compaction(self, event) -> None:
        """compaction_end: the plan being carried out goes with the next prompt again."""
        if self.plan and not self.planning and not event.get("aborted"):
            self.api.add_message(self.plan, "plan")


def setup(api):
    mode = PlanMode(api)
    api.register_command("plan", mode.toggle, "plan mode: read-only tools, the model "
                         "answers with a plan (toggles)")
    api.register_shortcut("shift+tab", lambda: api.ctx.ui.notify(mode.toggle()),
                          "plan mode on or off")
    api.on("session_start", mode.start)
    api.on("session_tree", mode.start)
    api.on("before_agent_start", mode.prompt_section)
    api.before_tool_call(mode.gate)
    api.on("agent_end", mode.remember_answer)
    api.on("agent_settled", mode.ask)
    api.on("compaction_end", mode.after_compaction)
