"""The rpc mode's knobs: the model, the thinking level, the queue modes, the automatic
compaction and retries.

Each command is a short method that changes one setting of the running Harness and
answers with pi's shape (handlers.py dispatches to them):

    set_model {provider, modelId}     -> the model object (fields.model_object)
    cycle_model                       -> {model, thinkingLevel, isScoped}, or null
    get_available_models              -> {models: [model object, ...]}
    set_thinking_level {level}        clamped to the model's levels (models/thinking.py)
    cycle_thinking_level              -> {level}, or null for a model that does not reason
    get_available_thinking_levels     -> {levels}: ["off"] for a model that does not reason
    set_steering_mode / set_follow_up_mode {mode}   "all" or "one-at-a-time"
    set_auto_compaction / set_auto_retry {enabled}
    abort_retry                       stop a retry that is waiting for its delay

Every setting lasts for this process: nothing is written to settings.json (pi writes
some of them there; a program driving us must not change what the user's terminal
starts with). The session records the model and thinking level, as for /model.

Left out: pi's scoped models (--models); cycle_model goes round the models of the
current provider, which keep its server and key.
"""

from typing import Any, Dict, List, Optional

from ...assemble import model_for, probe_window_or_warn
from ...harness.harness import Harness
from ...models.available import available_models
from ...models.registry import load_providers
from ..output import say
from ...models.thinking import LEVELS, next_level, supported_levels
from .fields import choice_field, flag_field, model_object, text_field

QUEUE_MODES = ["all", "one-at-a-time"]


class ModelCommands:
    """The commands that turn the Harness's knobs (see the module docstring)."""

    def __init__(self, harness: Harness):
        self.harness = harness
        self.agent = harness.agent

    def table(self) -> Dict[str, Any]:
        return {"set_model": self.set_model, "cycle_model": self.cycle_model,
                "get_available_models": self.get_available_models,
                "set_thinking_level": self.set_thinking_level,
                "cycle_thinking_level": self.cycle_thinking_level,
                "get_available_thinking_levels": self.get_available_thinking_levels,
                "set_steering_mode": self.set_steering_mode,
                "set_follow_up_mode": self.set_follow_up_mode,
                "set_auto_compaction": self.set_auto_compaction,
                "set_auto_retry": self.set_auto_retry, "abort_retry": self.abort_retry}

    # --- The model -----------------------------------------------------------------------

    def set_model(self, request: dict) -> Dict[str, Any]:
        """The model for the next request, chosen as --provider and --model would (an
        id the registry does not know works, with a warning on stderr); a model of the
        current provider keeps its server and key, as /model does."""
        self._use(text_field(request, "provider"), text_field(request, "modelId"))
        return model_object(self.agent.model)

    def cycle_model(self, request: dict) -> Optional[Dict[str, Any]]:
        """The next model of the current provider; null when it has only this one."""
        current = self.agent.model
        provider = load_providers().get(current.provider)
        ids = [model.id for model in provider.models] if provider else []
        if len(ids) < 2:
            return None
        at = ids.index(current.id) if current.id in ids else -1
        self._use(current.provider, ids[(at + 1) % len(ids)])
        return {"model": model_object(self.agent.model),
                "thinkingLevel": self.agent.thinking_level, "isScoped": False}

    def get_available_models(self, request: dict) -> Dict[str, Any]:
        """The list /model shows (models/available.py): what a local or custom server
        serves, the registry's models, and the model in use when neither lists it. A
        server that does not answer costs only its part (one line on stderr)."""
        available = available_models(self.agent.model, self.agent.api_key)
        if available.problem:
            say(f"miniagent: {available.problem}")
        return {"models": [model_object(model) for model in available.models]}

    def _use(self, provider: str, model_id: str) -> None:
        chosen, base_url = model_for(self.harness, provider, model_id)
        model, api_key = probe_window_or_warn(chosen, compaction=self.harness.compaction)
        self.harness.set_model(model, api_key, base_url)  # clamps the thinking level too

    # --- Thinking --------------------------------------------------------------------------

    def set_thinking_level(self, request: dict) -> None:
        self.harness.set_thinking(choice_field(request, "level", list(LEVELS)))

    def cycle_thinking_level(self, request: dict) -> Optional[Dict[str, str]]:
        model = self.agent.model
        if not model.reasoning:
            return None
        return {"level": self.harness.set_thinking(next_level(model, self.agent.thinking_level))}

    def get_available_thinking_levels(self, request: dict) -> Dict[str, List[str]]:
        return {"levels": supported_levels(self.agent.model)}

    # --- Queues, compaction, retries ---------------------------------------------------------

    def set_steering_mode(self, request: dict) -> None:
        self.agent.steering_mode = choice_field(request, "mode", QUEUE_MODES)

    def set_follow_up_mode(self, request: dict) -> None:
        self.agent.follow_up_mode = choice_field(request, "mode", QUEUE_MODES)

    def set_auto_compaction(self, request: dict) -> None:
        self.harness.compaction.enabled = flag_field(request, "enabled")

    def set_auto_retry(self, request: dict) -> None:
        self.harness.set_auto_retry(flag_field(request, "enabled"))

    def abort_retry(self, request: dict) -> None:
        """Only a retry waiting for its delay is stopped (the run ends with its error);
        otherwise there is nothing to do, and that is no error (as in pi)."""
        if self.harness.lifecycle.retry_waiting:
            self.harness.abort()
