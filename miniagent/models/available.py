"""The models a running session can move to: what /model lists and rpc's
get_available_models answers, one list for both.

    the current server's own list   when the model runs on a local or custom server
                                    (--base-url, Ollama, a provider of your models.json,
                                    a registry provider moved elsewhere): GET {base}/models
                                    (served.py), each id a model of the current provider
    the registry's models           every provider, built in and yours (registry.py)
    the current model               first, when neither lists it (an id given by hand)

A server that does not answer within LIST_TIMEOUT costs only its part: the list still
holds the registry's models, and `problem` says in one line why the server's are
missing. A cloud provider's list is the registry's: its /models names hundreds of
models the registry knows nothing about (prices, windows), so it is not asked.

Left out: pi's filter on providers whose key is set (a model whose key is missing is
listed; choosing it says which key to set), and remembering a server's list between
calls (a local server's models change as you pull and load them).
"""

from dataclasses import replace
from typing import List, NamedTuple, Optional

from ..core.provider import Model
from .registry import load_providers, registry_models
from .served import ProbeFailed, served_models

LIST_TIMEOUT = 2.0  # seconds: a command waits for it, so far less than start-up's 10


class Available(NamedTuple):
    models: List[Model]
    problem: Optional[str]  # why the server's own list is missing, in one line


def available_models(current: Model, api_key: Optional[str]) -> Available:
    """The models to offer (see the module docstring), the current one among them."""
    registry = registry_models()
    models, problem = [], None
    if runs_on_own_server(current):
        try:
            served = served_models(current.base_url, api_key, LIST_TIMEOUT)
            models = [server_model(current, model_id, registry) for model_id in served]
        except ProbeFailed as failed:
            problem = f"the server at {current.base_url} did not list its models ({failed.reason})"
    listed = {(model.provider, model.id) for model in models}
    models += [model for model in registry if (model.provider, model.id) not in listed]
    if not any((model.provider, model.id) == (current.provider, current.id) for model in models):
        models.insert(0, current)
    return Available(models, problem)


def runs_on_own_server(model: Model) -> bool:
    """Is the model served by a server of the user's, which can say what it serves: not
    a registry provider at its registry address (Ollama's is local, so it counts)?

    Example: openai-compatible at http://127.0.0.1:8080/v1 -> True; openai -> False
    """
    if model.api != "openai-completions" or not model.base_url:
        return False
    entry = load_providers().get(model.provider)
    return (entry is None or entry.own or entry.name == "ollama"
            or entry.base_url.rstrip("/") != model.base_url.rstrip("/"))


def server_model(current: Model, model_id: str, registry: List[Model]) -> Model:
    """A model the current server serves, at the current address: with the registry's
    facts when it lists the id for this provider, else a bare entry."""
    for model in registry:
        if (model.provider, model.id) == (current.provider, model_id):
            return replace(model, base_url=current.base_url)
    return Model(model_id, current.provider, current.api, current.base_url, model_id)
