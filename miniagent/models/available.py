"""The models a running session can move to: what /model lists and rpc's
get_available_models answers, one list for both.

    the current server's own list   when the model runs on a local or custom server
                                    (--base-url, Ollama, a provider of your models.json,
                                    a registry provider moved elsewhere): GET {base}/models
                                    (served.py), each id a model of the current provider
    the registry's models           every provider, built in and yours (registry.py)
    the current model               first, when neither lists it (an id given by hand)

The usable models come first, in that order: the current provider's, those of a
provider whose key is set (or that needs none), Ollama's when its server answers (it
is asked too when the model runs elsewhere, and then lists what it serves). The
others follow, and `missing` says for each of their providers what it lacks ("no key:
set ANTHROPIC_API_KEY"), so a model that would fail for want of a key is never offered
without saying so.

A server that does not answer within LIST_TIMEOUT costs only its part: the list still
holds the registry's models, and `problem` says in one line why the server's are
missing. A cloud provider's list is the registry's: its /models names hundreds of
models the registry knows nothing about (prices, windows), so it is not asked.

Left out: pi's filter on providers whose key is set (a model whose key is missing is
listed last, marked; choosing it says which key to set), and remembering a server's
list between calls (a local server's models change as you pull and load them).
"""

import os
from dataclasses import replace
from typing import Dict, List, NamedTuple, Optional

from ..core.provider import Model
from .choose import key_to_set, ollama_base_url
from .registry import load_providers, registry_models
from .served import ProbeFailed, served_models

LIST_TIMEOUT = 2.0  # seconds: a command waits for it, so far less than start-up's 10


class Available(NamedTuple):
    models: List[Model]  # the usable ones first (the current one is usable)
    problem: Optional[str]  # why the server's own list is missing, in one line
    missing: Dict[str, str]  # provider -> why its models cannot be used now, in a few words


def available_models(current: Model, api_key: Optional[str]) -> Available:
    """The models to offer (see the module docstring), the current one among them."""
    registry = registry_models()
    models, problem = [], None
    if runs_on_own_server(current):
        try:
            models = own_server_models(current, api_key, registry)
        except ProbeFailed as failed:
            problem = f"the server at {current.base_url} did not list its models ({failed.reason})"
    missing = keys_missing(current)
    if current.provider != "ollama":  # its models can be used when its server answers
        ollama = Model("", "ollama", "openai-completions", ollama_base_url(os.environ))
        try:
            models += own_server_models(ollama, None, registry)
        except ProbeFailed as failed:
            missing["ollama"] = f"no Ollama server at {ollama.base_url} ({failed.reason})"
    listed = {(model.provider, model.id) for model in models}
    models += [model for model in registry if (model.provider, model.id) not in listed]
    if not any((model.provider, model.id) == (current.provider, current.id) for model in models):
        models.insert(0, current)
    models.sort(key=lambda model: model.provider in missing)  # stable: the usable ones first
    return Available(models, problem, missing)


def keys_missing(current: Model) -> Dict[str, str]:
    """The providers that cannot be called for want of a key: provider -> what to set.
    The current model's provider is not among them: it runs."""
    missing = {}
    for name, entry in load_providers().items():
        hint = key_to_set(entry, os.environ)
        if hint and name != current.provider:
            missing[name] = f"no key: set {hint}"
    return missing


def own_server_models(current: Model, api_key: Optional[str],
                      registry: List[Model]) -> List[Model]:
    """The models the current model's server serves (GET {base}/models); raises
    ProbeFailed when it does not say."""
    served = served_models(current.base_url, api_key, LIST_TIMEOUT)
    return [server_model(current, model_id, registry) for model_id in served]


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
