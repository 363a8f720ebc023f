"""Where the harness meets the extensions: what they add to a prompt and to a run.

An extension may add to what the model receives, and when (project/extensions.py):

    before_agent_start    sections of the system prompt for this prompt
    api.add_message       a custom message: with the next prompt, or, during a run,
                          steered in before the next model call
    api.send_user_message a prompt of its own, run once the current one is over

`ExtensionHooks` is a part of the Harness (harness.py), kept in its own file because it
is its own idea: the harness runs prompts, these are the places an extension's words
join them. Each method is called from the harness's run; none runs without a project.

Left out: an extension replacing the prompt or the model's reply (pi's input and
message-transform hooks).
"""

from typing import Any

from ..core.messages import user_message
from ..project.system_prompt import render_sections


class ExtensionHooks:
    """The Harness's calls into its extensions (a mixin: it uses the Harness's agent,
    project, prompt builder and compaction check)."""

    def _ask_extensions_for_sections(self, text: Any) -> None:
        """before_agent_start: the extensions' sections for this prompt (they may also
        change the active tools there); the prompt is rebuilt with them."""
        if self.project is None or self.prompt_for is None:
            return
        self.extension_sections = self.project.extensions.before_agent_start(text)
        self.agent.system_prompt = render_sections(self.prompt_sections())

    def _with_extension_messages(self, text: Any) -> Any:
        """The prompt, followed by the messages extensions added (api.add_message) since
        the last one: they reach the model with it (as user text, session/convert.py) and
        the session keeps them."""
        added = self.project.extensions.take_pending_messages() if self.project else []
        if not added:
            return text
        return [user_message(text) if isinstance(text, str) else text] + added

    def _next_extension_prompt(self) -> Any:
        """The prompt an extension sent while the last one ran (api.send_user_message:
        plan mode's "run the plan"), or None."""
        return self.project.extensions.take_next_prompt() if self.project else None

    def _between_turns(self) -> None:
        """Tool results are in and another call follows: compact if needed; what the
        extensions added meanwhile (after that compaction, say) is steered in, so the next
        call carries it, as pi delivers an extension's message during a run."""
        self.check_compaction()
        for message in self.project.extensions.take_pending_messages() if self.project else []:
            self.agent.steer(message)
