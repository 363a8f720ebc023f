"""The harness: what turns an Agent into something you can leave running.

The Agent runs one prompt in its caller's thread and stops at the first failure; it
keeps no files and knows nothing of context windows. Around it, the harness adds what a
day of real work needs, each piece a short method below:

    run(prompt):
        compact first if the context has passed the threshold (see Compaction)
        run the prompt on the Agent (every finished message goes to the session file;
          between turns, once tool results are in, compact when past the threshold)
        while the last reply is a transient failure: wait 2, 4, 8 s, drop it, continue
        if the server said the context overflowed: compact, continue (once)
        compact after the run when past the threshold (not in print mode, not on abort)
        stop when a run limit is reached (--max-turns, --max-cost)

**The run's thread.** `run()` works in the caller's thread. A front end must keep
reading its keyboard or pipe meanwhile: `prompt()` starts the run on the harness's
worker thread (worker.py), the only thread a run gets, and returns; `wait()` waits
for the end and `abort()` sets the one abort Event the Agent, the retry wait and
compaction all watch. The terminal runs /compact and `!cmd` there too (`start(work)`), so Ctrl-C stops them.

**Retries.** This is the only layer that tries again: the HTTP layer sends once and
judges the failure (http/classify.py). A failed reply, whether no reply arrived or it
broke halfway, is retried from scratch by reply_retry.py (when, how often, how long to
wait). The failed reply stays in the session file (the ledger of what was paid for) but
is dropped from the model's context.

**The session file** (session/): every finished message is appended as it happens
(user, assistant, tool result), so a crash loses at most the entry being written; a
file that cannot be written stops the run. `new_session`, `switch_session`, `fork`,
`clone` and `navigate` move to another session or another point of this one's tree
(moves.py).

**Compaction** (compaction/): the context is estimated as the last usable reply's
reported usage plus an estimate for every message after it. Past the window minus the
reserve (`reserve_tokens`, by default min(16,384, window / 4)) the older part becomes a
summary entry, and the in-memory context is rebuilt from the session (summary first,
then the kept entries); the summary call's usage is kept in the entry. `compact()` does
it on request (/compact, rpc's compact), and refuses a session too small to compact.

**When a run is over** (lifecycle.py): each Agent run's agent_end says whether the
harness goes on (`willRetry`), and `agent_settled` follows the prompt's last one.

The harness builds the Agent it drives, from `new_agent` (the Agent class with its
settings bound, e.g. `functools.partial(Agent, model=model, tools=tools)`), so the
Agent gets the harness's callbacks in its constructor, once: the run limits
(`should_stop`), compaction between turns (`between_turns`), agent_end's willRetry
(`will_retry`) and what the model receives (`convert_to_llm`). The front ends' parts
come in through the constructor too: the project (skills, extensions: what they add to
a run is extension_hooks.py's), the prompt builder (the prompt follows the active
tools) and the --confirm gate.

Left out: the front ends (modes/) and assembling a run from flags (assemble.py); the
harness is the same for all of them.
"""

import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol

from ..agent import Agent
from .reply_retry import MAX_RETRIES, retry_base_delay, retry_transient_failures
from ..compaction.estimate import (CompactionSettings, estimate_context_tokens,
                                   is_context_overflow, last_usable_usage, should_compact)
from ..errors import CompactionError, SessionError
from ..session.convert import convert_to_llm
from .lifecycle import Lifecycle
from .limits import RunLimits
from .moves import SessionMoves
from .extension_hooks import ExtensionHooks
from .worker import Work, Worker
from ..core.messages import Message, is_failed
from ..models.thinking import clamp_level
from ..session.tree import Session
from ..project.system_prompt import render_sections
from .records import record_settings, record_system, system_checkpoint

if TYPE_CHECKING:  # for the reader and a type checker only: loading it costs start-up time
    from ..mcp.servers import McpServers
    from ..project.resources import Project


class ConfirmationGate(Protocol):
    """The --confirm gate as the harness carries it (modes/confirm.py's ConfirmGate): a
    before-hook asking through `ask`, which each front end points at its own asker."""

    ask: Callable[[str], str]

    def __call__(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]: ...


class NothingToCompact(CompactionError):
    """compact() found nothing to summarize (the session is small, or just compacted)."""


def compaction_result(result: Any, messages: List[Message]) -> Dict[str, Any]:
    """A compaction as pi reports it (compaction_end, rpc's compact response); the
    estimate after it is over the rebuilt context `messages`."""
    return {"summary": result.summary, "firstKeptEntryId": result.first_kept_entry_id,
            "tokensBefore": result.tokens_before,
            "estimatedTokensAfter": estimate_context_tokens(messages), "details": result.details}


OVERFLOW_FAILED = ("the conversation is still too long for the model's context window after "
                   "compacting it; start a new session or use a model with a larger window")


class Harness(SessionMoves, ExtensionHooks):
    """Runs prompts on an Agent with retries, a session file and compaction; the front
    ends talk to this. Without a session, one in memory is used (nothing is written)."""

    def __init__(self, new_agent: Callable[..., Agent], session: Optional[Session] = None,
                 compaction: Optional[CompactionSettings] = None,
                 limits: Optional[RunLimits] = None, base_url: Optional[str] = None,
                 compact_after_run: bool = True, max_retries: int = MAX_RETRIES,
                 base_delay: Optional[float] = None, project: Optional["Project"] = None,
                 prompt_for: Optional[Callable[[List[Any]], Dict[str, str]]] = None,
                 confirm_gate: Optional[ConfirmationGate] = None,
                 mcp: Optional["McpServers"] = None):
        self.compaction = compaction or CompactionSettings()
        self.limits = limits or RunLimits()
        self.lifecycle = Lifecycle(self)  # agent_end's willRetry, agent_settled
        self.agent = new_agent(
            convert_to_llm=convert_to_llm,  # summaries etc. become wire messages
            should_stop=self.limits.should_stop, will_retry=self.lifecycle.will_retry,
            between_turns=self._between_turns)  # tool results in: still room for more?
        self.session = session or Session.create(self.agent.cwd, persist=False)
        self.base_url = base_url  # recorded with the model, for a --base-url server
        # Print mode answers and exits: compacting after its final answer would cost a
        # request nobody waits for. The next prompt, in any process, compacts first.
        self.compact_after_run = compact_after_run
        self.max_retries = max_retries
        self.configured_retries = max_retries  # what set_auto_retry(True) restores
        self.base_delay = retry_base_delay() if base_delay is None else base_delay
        self.stop_message: Optional[str] = None  # why the harness ended a run, if it did
        # For the front ends: the project, the prompt builder (follows the tools), --confirm.
        self.project = project
        self.prompt_for = prompt_for
        self.confirm_gate = confirm_gate
        self.mcp = mcp  # the MCP servers (mcp/servers.py), or None
        self.mcp_tools: List[Any] = []  # their tools as last offered, after the run's own
        self.extension_sections: Dict[str, str] = {}  # this prompt's, from before_agent_start
        self.worker = Worker()  # the run's thread, its abort Event and its wait
        self.agent.subscribe(self._record)
        self.agent.subscribe(self.lifecycle.track)
        self.attach_session(self.session)

    @property
    def _stop(self) -> threading.Event:
        """The current run's abort Event (the worker's)."""
        return self.worker.abort_event

    # --- The session file ------------------------------------------------------------------

    def attach_session(self, session: Session) -> None:
        """Use `session` from now on: its context becomes the Agent's messages. Raises
        SessionError, and keeps the session it had, when the file could not be written."""
        session.check_writable()  # before the first (paid) request, not after it
        self.session = session
        self.agent.session_id = session.id  # the prompt cache key (OpenAI)
        self.agent.messages = list(session.build_context().messages)
        self.record_settings()

    def _record(self, event: Dict[str, Any]) -> None:
        """Append each finished message to the session as it happens. When the file
        cannot be written (a full disk), the run stops: work that cannot be saved would
        be lost, and the file keeps every entry written before."""
        if event["type"] != "message_end":
            return
        self.limits.count(event["message"])
        try:
            self.session.append_message(event["message"])
        except SessionError as exc:
            self.stop_message = (f"{exc}; the run was stopped, and the file keeps every "
                                 f"entry before this one")
            self.abort()

    def record_settings(self) -> None:
        record_settings(self.session, self.agent, self.base_url)  # records.py

    def prompt_sections(self) -> Dict[str, str]:
        """The system prompt by section (system_prompt.py); a prompt given as one text is
        its preamble."""
        if self.prompt_for is not None:
            return {**self.prompt_for(self.agent.tools), **self.extension_sections}
        return {"preamble": self.agent.system_prompt} if self.agent.system_prompt else {}

    # --- Running a prompt ------------------------------------------------------------------

    def prompt(self, text: Any, keep_counting: bool = False) -> None:
        """Start the prompt on the worker thread and return at once; see wait(). The run
        limits count from zero unless `keep_counting` (the next prompt of a replayed
        session: limits count per process there, per prompt in the terminal)."""
        if not keep_counting:
            self.limits.reset()
        self.start(lambda abort: self._run_to_an_end(text))

    def _run_to_an_end(self, text: Any) -> None:
        """Run the prompt, then each one an extension sent meanwhile (api.send_user_message:
        plan mode's "run the plan"), unless an abort ended the run."""
        while text is not None:
            try:
                self._run(text)
            except Exception as exc:  # noqa: BLE001 - a bug, or a session value nobody expected:
                self.agent.end_with_failure(exc)  # the run must end in an error, not in silence
            self.lifecycle.settle()
            text = None if self._stop.is_set() else self._next_extension_prompt()
            if text is not None:
                self.limits.reset()  # the extension's prompt counts from zero

    def run(self, text: Any) -> Message:
        """Run the prompt (a text or a user message) to its end in this thread."""
        self.worker.renew_abort()
        self.limits.reset()
        last = self._run(text)
        self.lifecycle.settle()
        return last

    def _run(self, text: Any) -> Message:
        self.stop_message = None
        self.lifecycle.begin()
        self.check_compaction()
        if self._stop.is_set():
            return self.agent.messages[-1] if self.agent.messages else {}
        self._offer_mcp_tools()
        self._ask_extensions_for_sections(text)
        record_system(self.session, self.prompt_sections(), self.agent.tools)
        self.agent.prompt(self._with_extension_messages(text), abort=self._stop)
        self._settle()
        return self.agent.messages[-1]

    def _offer_mcp_tools(self) -> None:
        """Before each prompt: the MCP servers' tools as they are now (the first prompt
        waits for the servers to connect, at most 10 s), after the run's own tools."""
        if self.mcp is None:
            return
        self.mcp.before_prompt()
        offered = {tool.name for tool in self.mcp_tools}
        self.mcp_tools = self.mcp.tools()
        own = [tool for tool in self.agent.tools if tool.name not in offered]
        self.set_tools(own + self.mcp_tools)

    def _settle(self) -> None:
        """After a run: retry transient failures, recover once from an overflow, compact
        when over the threshold, and say why the run stopped if the harness stopped it."""
        self._retry_transient_failures()
        last = self.agent.messages[-1]
        if is_context_overflow(last):
            self._recover_from_overflow()
        elif self.compact_after_run and last.get("stopReason") != "aborted":
            self.check_compaction()
        if self.limits.reason and not is_failed(self.agent.messages[-1]):
            self.stop_message = self.limits.reason

    def _retry_transient_failures(self) -> None:
        retry_transient_failures(self.agent, self._stop, self.max_retries, self.base_delay)

    def _recover_from_overflow(self) -> None:
        """The request did not fit the window: compact, then continue the turn, once.
        A second overflow after that ends the run with a line saying so. A window the
        server told an earlier run is forgotten: it may have been restarted smaller."""
        from ..models.window_cache import forget_window  # rare: not loaded for every run
        forget_window(self.agent.model.base_url, self.agent.model.id)
        if not self._auto_compact("overflow", will_retry=True):
            return  # the overflow error stays the run's outcome
        if is_failed(self.agent.messages[-1]):
            # The rebuilt context ends with the failed reply (it is in the file); the
            # turn continues from the message before it.
            self.agent.messages.pop()
        self.agent.continue_(abort=self._stop)
        self._retry_transient_failures()
        if is_context_overflow(self.agent.messages[-1]):
            self.stop_message = OVERFLOW_FAILED

    # --- Compaction ------------------------------------------------------------------------

    def check_compaction(self) -> None:
        """Compact when the last usable reply says the context passed the threshold."""
        if not self.compaction.enabled or last_usable_usage(self.agent.messages) is None:
            return
        tokens = estimate_context_tokens(self.agent.messages)
        if should_compact(tokens, self.agent.model.context_window, self.compaction):
            self._auto_compact("threshold", will_retry=False)

    def _auto_compact(self, reason: str, will_retry: bool) -> bool:
        """Compact on the harness's own account; True when a compaction entry was written."""
        try:
            self.compact_announced(reason, abort=self._stop, will_retry=will_retry)
        except CompactionError:
            return False  # compaction_end said why
        return True

    def compact_announced(self, reason: str, instructions: Optional[str] = None,
                          abort: Optional[threading.Event] = None, will_retry: bool = False):
        """compact() between compaction_start and compaction_end (`reason`: "manual",
        "threshold" or "overflow"); raises as compact() does, after compaction_end."""
        self.agent.emit({"type": "compaction_start", "reason": reason})
        end = {"type": "compaction_end", "reason": reason, "aborted": False, "willRetry": False}
        try:
            result = self.compact(instructions, abort)
        except CompactionError as exc:
            end["aborted"] = exc.aborted
            if not exc.aborted:
                end["errorMessage"] = str(exc) if reason == "manual" or \
                    isinstance(exc, NothingToCompact) else f"Auto-compaction failed: {exc}"
            self.agent.emit(end)
            raise
        self.agent.emit(dict(end, willRetry=will_retry,
                             result=compaction_result(result, self.agent.messages)))
        return result

    def compact(self, instructions: Optional[str] = None,
                abort: Optional[threading.Event] = None):
        """Summarize the older part of the session now (the terminal's /compact, rpc's
        compact); raises CompactionError with the reason when there is nothing to do."""
        # Loaded only now: a run that never compacts never loads the summarizer.
        from ..compaction.compaction import compact, nothing_to_compact_message, prepare_compaction
        branch = self.session.get_branch()
        model = self.agent.model
        preparation = prepare_compaction(branch, self.compaction, model.context_window)
        if preparation is None:
            raise NothingToCompact(nothing_to_compact_message(branch))
        result = compact(preparation, model, self.agent.stream_fn, self.agent.api_key,
                         abort, instructions)
        self.session.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details,
            usage=result.usage,
            system_message=system_checkpoint(self.prompt_sections(), self.agent.tools))
        self.agent.messages[:] = self.session.build_context().messages  # in place: a run may hold it
        return result

    def set_model(self, model: Any, api_key: Optional[str] = None,
                  base_url: Optional[str] = None) -> None:
        """Use another model from the next request on; the session records the change."""
        self.agent.model = model
        self.agent.api_key = api_key if api_key is not None else self.agent.api_key
        self.base_url = base_url
        self.set_thinking(self.agent.thinking_level)  # clamped to the new model's levels

    def set_tools(self, tools: List[Any]) -> None:
        """Change the active tools; the system prompt is rebuilt to match them."""
        self.agent.tools = list(tools)
        if self.prompt_for is not None:
            self.agent.system_prompt = render_sections(self.prompt_sections())

    def set_thinking(self, level: str) -> str:
        """Use `level`, clamped to the model's levels (models/thinking.py); returns the
        level used, which is what the session records."""
        level, before = clamp_level(self.agent.model, level), self.agent.thinking_level
        self.agent.thinking_level = level
        self.record_settings()
        if level != before:
            self.agent.emit({"type": "thinking_level_changed", "level": level})
        return level

    def set_auto_retry(self, enabled: bool) -> None:
        """Turn the retries of failed replies off (rpc's set_auto_retry) or back on."""
        self.max_retries = self.configured_retries if enabled else 0

    # --- The worker thread (worker.py), its abort and its wait ---------------------------

    def start(self, work: Work) -> None:
        """Run `work(abort)` on the worker thread and return at once (the terminal's
        /compact and `!cmd`); wait() for its end, then outcome() for its result."""
        self.worker.start(work)

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Block until the prompt (or the work) and its retries are done; False on timeout."""
        return self.worker.wait(timeout)

    def outcome(self) -> Any:
        return self.worker.outcome()

    def close(self) -> None:
        """The front end is done, whichever way: the extensions' session_shutdown (once),
        then the MCP servers stop, so no process is left."""
        if self.project is not None:
            self.project.extensions.shutdown()
        if self.mcp is not None:
            self.mcp.close()

    def abort(self) -> None:
        """Stop the run, a compaction, or the wait before a retry, at once."""
        self.worker.abort()
