"""The harness: what turns an Agent into something you can leave running.

The Agent runs one prompt in its caller's thread and stops at the first failure; it
keeps no files and knows nothing of context windows. Around it, the harness adds what a
day of real work needs, each piece a short method below:

    run(prompt):
        compact first if the context has passed the threshold (see Compaction)
        run the prompt on the Agent (every finished message goes to the session file)
        while the last reply is a transient failure: wait 2, 4, 8 s, drop it, continue
        if the server said the context overflowed: compact, continue (once)
        compact after the run when past the threshold (not in print mode, not on abort)
        stop when a run limit is reached (--max-turns, --max-cost)

**The run's thread.** `run()` works in the caller's thread. A front end must keep
reading its keyboard or pipe meanwhile: `prompt()` starts the run on the harness's
worker thread (worker.py), the only thread a run gets, and returns; `wait()` waits
for the end and `abort()` sets the one abort Event the Agent, the retry wait and
compaction all watch. The terminal runs /compact and `!cmd` there too (`start(work)`), so Ctrl-C stops them.

**Retries.** The HTTP layer (http/retry.py) already repeats a request that failed
*before* any reply arrived. A reply that breaks *after* it started streaming cannot be
resumed, so it is retried here from scratch; and so is a failure the HTTP layer gave up
on. What is transient is reply_retry.py's decision. The failed reply stays in the session
file (the ledger of what was paid for) but is dropped from the model's context.

**The session file** (session/): every finished message is appended as it happens
(user, assistant, tool result), so a crash loses at most the entry being written; a
file that cannot be written stops the run. `new_session`, `switch_session`, `fork` and
`navigate` move to another session or another point of this one's tree.

**Compaction** (compaction/): the context is estimated as the last usable reply's
reported usage plus an estimate for every message after it. Past the window minus the
reserve (`reserve_tokens`, by default min(16,384, window / 4)) the older part becomes a
summary entry, and the in-memory context is rebuilt from the session (summary first,
then the kept entries). Nothing is deleted from the file. `compact()` does it on
request (/compact, rpc's compact).

The front ends' parts come in through the constructor: the project (skills, extensions),
the prompt builder (the prompt follows the active tools) and the --confirm gate.

Left out: the front ends (modes/) and assembling a run from flags (assemble.py); the
harness is the same for all of them.
"""

import os
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol

from ..agent import Agent
from .reply_retry import MAX_RETRIES, is_retryable, retry_base_delay
from ..compaction.branch_summary import (collect_entries_to_summarize, prepare_branch_summary,
                             summarize_branch)
from ..compaction.compaction import (CompactionSettings, compact, estimate_context_tokens,
                                     is_context_overflow, last_usable_usage, nothing_to_compact_message,
                                     prepare_compaction, should_compact)
from ..errors import CompactionError, SessionError
from ..session.convert import convert_to_llm
from .limits import RunLimits
from .worker import Work, Worker
from ..messages import Message, is_failed, text_of, user_message
from ..http.retry import wait_or_abort
from ..session.tree import Session
from ..project.system_prompt import render_sections
from .records import record_settings, record_system, system_checkpoint

if TYPE_CHECKING:  # for the reader and a type checker only: loading it costs start-up time
    from ..project.resources import Project


class ConfirmationGate(Protocol):
    """The --confirm gate as the harness carries it (modes/confirm.py's ConfirmGate): a
    before-hook asking through `ask`, which each front end points at its own asker."""

    ask: Callable[[str], str]

    def __call__(self, event: Dict[str, Any]) -> Optional[Dict[str, Any]]: ...


class NothingToCompact(CompactionError):
    """compact() found nothing to summarize (the session is small, or just compacted)."""


OVERFLOW_FAILED = ("the conversation is still too long for the model's context window after "
                   "compacting it; start a new session or use a model with a larger window")


class Harness:
    """Runs prompts on an Agent with retries, a session file and compaction; the front
    ends talk to this. Without a session, one in memory is used (nothing is written)."""

    def __init__(self, agent: Agent, session: Optional[Session] = None,
                 compaction: Optional[CompactionSettings] = None,
                 limits: Optional[RunLimits] = None, base_url: Optional[str] = None,
                 compact_after_run: bool = True, max_retries: int = MAX_RETRIES,
                 base_delay: Optional[float] = None, project: Optional["Project"] = None,
                 prompt_for: Optional[Callable[[List[Any]], Dict[str, str]]] = None,
                 confirm_gate: Optional[ConfirmationGate] = None):
        self.agent = agent
        self.session = session or Session.create(agent.cwd, persist=False)
        self.compaction = compaction or CompactionSettings()
        self.limits = limits or RunLimits()
        self.base_url = base_url  # recorded with the model, for a --base-url server
        # Print mode answers and exits: compacting after its final answer would cost a
        # request nobody waits for. The next prompt, in any process, compacts first.
        self.compact_after_run = compact_after_run
        self.max_retries = max_retries
        self.base_delay = retry_base_delay() if base_delay is None else base_delay
        self.stop_message: Optional[str] = None  # why the harness ended a run, if it did
        # For the front ends: the project's context, the prompt builder (the prompt
        # follows the active tools), the --confirm gate.
        self.project = project
        self.prompt_for = prompt_for
        self.confirm_gate = confirm_gate
        self.worker = Worker()  # the run's thread, its abort Event and its wait
        agent.convert_to_llm = convert_to_llm  # summaries etc. become wire messages
        agent.should_stop = self.limits.should_stop
        agent.subscribe(self._record)
        self.session.check_writable()  # before the first (paid) request, not after it
        self.attach_session(self.session)

    @property
    def _stop(self) -> threading.Event:
        """The current run's abort Event (the worker's)."""
        return self.worker.abort_event

    # --- The session file ------------------------------------------------------------------

    def attach_session(self, session: Session) -> None:
        """Use `session` from now on: its context becomes the Agent's messages."""
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
            return self.prompt_for(self.agent.tools)
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
        try:
            self._run(text)
        except Exception as exc:  # noqa: BLE001 - a bug, or a session value nobody expected:
            self.agent.end_with_failure(exc)  # the run must end in an error, not in silence

    def run(self, text: Any) -> Message:
        """Run the prompt (a text or a user message) to its end in this thread."""
        self.worker.renew_abort()
        self.limits.reset()
        return self._run(text)

    def _run(self, text: Any) -> Message:
        self.stop_message = None
        self.check_compaction()
        if self._stop.is_set():
            return self.agent.messages[-1] if self.agent.messages else {}
        record_system(self.session, self.prompt_sections(), self.agent.tools)
        self.agent.prompt(self._with_extension_messages(text), abort=self._stop)
        self._settle()
        return self.agent.messages[-1]

    def _with_extension_messages(self, text: Any) -> Any:
        """The prompt, followed by the messages extensions added (api.add_message) since
        the last one: they reach the model with it (as user text, session/convert.py) and
        the session keeps them."""
        added = self.project.extensions.take_pending_messages() if self.project else []
        if not added:
            return text
        return [user_message(text) if isinstance(text, str) else text] + added

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
        attempt, cancelled = 0, False
        while attempt < self.max_retries and is_retryable(self.agent.messages[-1]):
            attempt += 1
            cancelled = not self._retry(attempt)
            if cancelled:
                break
        if attempt:
            last = self.agent.messages[-1]
            success = not cancelled and not is_failed(last)
            self.agent.emit({"type": "auto_retry_end", "attempt": attempt, "success": success,
                             "finalError": "Retry cancelled" if cancelled
                             else last.get("errorMessage")})

    def _retry(self, attempt: int) -> bool:
        """Wait, drop the failed message and continue; False if abort cancelled the wait."""
        failed = self.agent.messages[-1]
        delay = self.base_delay * 2 ** (attempt - 1)
        self.agent.emit({"type": "auto_retry_start", "attempt": attempt,
                         "maxAttempts": self.max_retries, "delayMs": int(delay * 1000),
                         "errorMessage": failed.get("errorMessage")})
        if wait_or_abort(delay, self._stop):
            return False
        # The failed reply is useless to the model (possibly half a sentence); it is
        # dropped from the context so the retry starts from the same place.
        self.agent.messages.pop()
        self.agent.continue_(abort=self._stop)
        return True

    def _recover_from_overflow(self) -> None:
        """The request did not fit the window: compact, then continue the turn, once.
        A second overflow after that ends the run with a line saying so."""
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
        """Compact, announcing it; True when a compaction entry was written."""
        self.agent.emit({"type": "auto_compaction_start", "reason": reason})
        try:
            result = self.compact(abort=self._stop)
        except CompactionError as exc:
            reason = str(exc) if isinstance(exc, NothingToCompact) \
                else f"Auto-compaction failed: {exc}"
            self.agent.emit({"type": "auto_compaction_end", "result": None,
                             "aborted": exc.aborted, "willRetry": False,
                             "errorMessage": reason})
            return False
        self.agent.emit({"type": "auto_compaction_end", "aborted": False,
                         "willRetry": will_retry,
                         "result": {"summary": result.summary, "tokensBefore": result.tokens_before,
                                    "firstKeptEntryId": result.first_kept_entry_id,
                                    "details": result.details}})
        return True

    def compact(self, instructions: Optional[str] = None,
                abort: Optional[threading.Event] = None):
        """Summarize the older part of the session now (the terminal's /compact, rpc's
        compact); raises CompactionError with the reason when there is nothing to do."""
        branch = self.session.get_branch()
        model = self.agent.model
        preparation = prepare_compaction(branch, self.compaction, model.context_window)
        if preparation is None:
            raise NothingToCompact(nothing_to_compact_message(branch))
        result = compact(preparation, model, self.agent.stream_fn, self.agent.api_key,
                         abort, instructions)
        self.session.append_compaction(
            result.summary, result.first_kept_entry_id, result.tokens_before, result.details,
            system_message=system_checkpoint(self.prompt_sections(), self.agent.tools))
        self.agent.messages = list(self.session.build_context().messages)
        return result

    # --- Moving around: new, switch, fork, the tree (the terminal's and rpc's commands) ----

    def new_session(self) -> None:
        """Start a new, empty session in the same folder (or in memory)."""
        self.attach_session(Session.create(self.agent.cwd, self._folder(),
                                           persist=self.session.persist))

    def switch_session(self, path: str) -> None:
        """Continue another session file (raises SessionError for one that is not)."""
        self.attach_session(Session.open(path, cwd=self.agent.cwd, session_dir=self._folder()))

    def fork(self, entry_id: str) -> str:
        """A new session that ends just before the user prompt `entry_id`, as pi's /fork;
        returns that prompt's text, for the user to edit and send again."""
        entry = self.session.get_entry(entry_id)
        message = (entry or {}).get("message") or {}
        if message.get("role") != "user":
            raise ValueError(f"Entry {entry_id} is not a user prompt: choose one to fork from")
        if entry.get("parentId") is None:  # the first prompt: nothing comes before it
            forked = Session.create(self.agent.cwd, self._folder(), self.session.persist,
                                    parent_session=self.session.path)
        else:
            forked = self.session.create_branched_session(entry["parentId"])
        self.attach_session(forked)
        return text_of(message)

    def navigate(self, target_id: str, summarize: bool = False,
                 instructions: Optional[str] = None) -> Optional[str]:
        """Move to another point of this session's tree (/tree ID). Going to a user
        prompt lands just before it and returns its text for the input line. With
        `summarize`, the branch being left is summarized into a branch_summary entry."""
        target = self.session.get_entry(target_id)
        if target is None:
            raise ValueError(f"Entry {target_id} not found")
        if target_id == self.session.leaf_id:
            return None
        message = target.get("message") or {}
        to_prompt = target["type"] == "message" and message.get("role") == "user"
        new_leaf = target.get("parentId") if to_prompt else target_id
        if summarize:
            summary, details = self._summarize_branch_left(target_id, instructions)
            self.session.branch_with_summary(new_leaf, summary, details)
        elif new_leaf is None:
            self.session.reset_leaf()
        else:
            self.session.branch(new_leaf)
        self.agent.messages = list(self.session.build_context().messages)
        return text_of(message) if to_prompt else None

    def _summarize_branch_left(self, target_id: str, instructions: Optional[str]):
        by_id = {entry["id"]: entry for entry in self.session.entries}
        left = collect_entries_to_summarize(by_id, self.session.leaf_id, target_id)
        model = self.agent.model
        preparation = prepare_branch_summary(left, model.context_window, self.compaction)
        summary = summarize_branch(preparation, model, self.agent.stream_fn,
                                   self.agent.api_key, self._stop, instructions)
        return summary, preparation.details

    def set_model(self, model: Any, api_key: Optional[str] = None,
                  base_url: Optional[str] = None) -> None:
        """Use another model from the next request on; the session records the change."""
        self.agent.model = model
        self.agent.api_key = api_key if api_key is not None else self.agent.api_key
        self.base_url = base_url
        self.record_settings()

    def set_tools(self, tools: List[Any]) -> None:
        """Change the active tools; the system prompt is rebuilt to match them."""
        self.agent.tools = list(tools)
        if self.prompt_for is not None:
            self.agent.system_prompt = render_sections(self.prompt_for(self.agent.tools))

    def set_thinking(self, level: str) -> None:
        self.agent.thinking_level = level
        self.record_settings()

    def _folder(self) -> Optional[str]:
        """The folder of this session's file, where new and forked sessions go too."""
        return os.path.dirname(self.session.file_path) if self.session.file_path else None

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

    def abort(self) -> None:
        """Stop the run, a compaction, or the wait before a retry, at once."""
        self.worker.abort()
