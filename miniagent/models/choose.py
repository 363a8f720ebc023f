"""Choosing a model: which provider, model and key a run uses.

The registry (registry.py) knows what models exist. This module answers the command
line's question: given `--provider`, `--model`, `--base-url`, `--api-key` and the
environment, *which model do we call, with which key?* The answer is a `Resolved`
(model, key, warnings), or a ConfigError whose one message says what to do next.

How `resolve()` chooses:

    --provider NAME     that provider; its key from --api-key or its env var;
                        `ollama` needs none and finds the server at OLLAMA_HOST
    --base-url URL      alone: an OpenAI-compatible server (llama.cpp, vLLM, LM Studio,
                        a proxy); the key is optional and sent only when given
    neither             the first of these that applies:
      1. --model ID that providers list: the first of them whose key is set or that
         needs none (no `apiKey`), the user's own first (naming a model in your own
         file is the most specific wish); if all lack their keys, an error names them
      2. the first key set among ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY,
         DEEPSEEK_API_KEY, GROQ_API_KEY
      3. the user's own providers (not a built-in name), the first in the file whose
         key is set or that needs none
      4. a server at OPENAI_BASE_URL; then a running Ollama (asked for 0.5 s only)
      5. an error that names the three ways to start
    --model ID          that model instead of the provider's default (a server that was
                        not told a model is asked for its first one: GET {base}/models)

A server the user named (--base-url, OPENAI_BASE_URL, --provider ollama, a provider of
their own that lists no models) gets PROBE_TIMEOUT to list its models: a remote or busy
one may take seconds. If it cannot, the error says why: nobody answered at that URL
(refused, unknown host, timed out), or it answered without naming a model.

Base URLs must start with http:// or https:// (OLLAMA_HOST alone may be a bare
host:port, as Ollama reads it). A key loses the whitespace around it (a CRLF .env
file leaves a carriage return) and may hold none inside. A key is never printed,
logged or stored: `Resolved` keeps it out of its repr.

Left out: OAuth logins, key files, remembering the last model used.
"""

import os
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Mapping, Optional

from ..files.redaction import add_secret
from .registry import (DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, Provider, default_model,
                       find_model, is_url, load_providers, unknown_provider)
from ..core.provider import Model
from .served import ProbeFailed, first_model, probe_first_model
from .values import is_command, legacy_warning, resolve_value, variables_named
from ..errors import ConfigError

# Without --provider, the first of these whose key is set wins.
KEY_ORDER = ("anthropic", "openai", "openrouter", "deepseek", "groq")
# Each SDK's own variable for moving its API elsewhere (a proxy, a gateway).
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"
# Seconds to wait for GET {base}/models. Looking for an Ollama nobody configured must not
# stall a start without one; a server the user named deserves the time a remote one needs.
DETECT_TIMEOUT = 0.5
PROBE_TIMEOUT = 10.0

NOTHING_CONFIGURED = """No model is configured. Start in one of three ways:
  1. an API key: set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY
     or GROQ_API_KEY (or pass --provider NAME --api-key KEY)
  2. Ollama: run `ollama serve` and `ollama pull qwen2.5-coder:7b` (or --provider ollama)
  3. the offline demo: miniagent --demo"""


@dataclass
class Resolved:
    """The answer of resolve(): the model, its key, and warnings for stderr."""

    model: Model
    api_key: Optional[str] = field(default=None, repr=False)  # never shown
    warnings: List[str] = field(default_factory=list)
    """About a model the registry does not know (moot once its server tells its window)."""
    notices: List[str] = field(default_factory=list)  # always shown: a changed reading
    known: bool = True
    """False for an id neither models.json nor the registry lists: its window is a guess
    (assemble.py then asks the server what it serves)."""


def resolve(provider: Optional[str] = None, model_id: Optional[str] = None,
            base_url: Optional[str] = None, api_key: Optional[str] = None,
            env: Optional[Mapping[str, str]] = None, keyless: bool = False,
            on_ask: Optional[Callable[[str], None]] = None) -> Resolved:
    """Pick the model and key from the command line and the environment (see the
    module docstring for the order). Raises ConfigError with the next step to take.
    `keyless` picks a provider's model without its key (for a server that is not the
    user's own: see is_own_server). `on_ask(url)` is called before a server the user
    named is asked for its models (it may take PROBE_TIMEOUT to answer or fail)."""
    env = os.environ if env is None else env
    providers = load_providers(env)
    for entry in providers.values():  # every key configured is a secret, used or not:
        if entry.api_key and not is_command(entry.api_key):  # (commands run for one only)
            add_secret(resolve_value(entry.api_key, env))  # a command may print the env
    if provider:
        return _resolve_provider(providers, provider, model_id, base_url, api_key, env,
                                 keyless, on_ask)
    if base_url:
        return _resolve_server(providers, _checked_url(base_url, "--base-url"), model_id,
                               api_key, on_ask=on_ask)
    name = _pick_provider(providers, model_id, api_key, env)
    if name:
        return _resolve_provider(providers, name, model_id, None, api_key, env, on_ask=on_ask)
    if env.get("OPENAI_BASE_URL"):
        url = _checked_url(env["OPENAI_BASE_URL"], "OPENAI_BASE_URL")
        return _resolve_server(providers, url, model_id, None, on_ask=on_ask)
    first = probe_first_model(ollama_base_url(env), timeout=DETECT_TIMEOUT)
    if first is not None:
        return _resolve_provider(providers, "ollama", model_id or first, None, None, env)
    own = [p for p in providers.values() if p.own]  # step 3 took none: all lack their keys
    if own:
        raise ConfigError(_no_key(own[0], f"--provider {own[0].name} --api-key KEY"))
    raise ConfigError(NOTHING_CONFIGURED)


def _pick_provider(providers: Dict[str, Provider], model_id: Optional[str],
                   api_key: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    """Steps 1-3 of the order: who lists the model, the first key, the user's own."""
    listing = _listing(providers, model_id)
    if api_key:  # a bare key: the model must say whose it is
        if not listing:
            raise ConfigError("--api-key needs --provider (or a --model the registry knows).")
        return listing[0].name
    if listing:
        ready = [p.name for p in listing if _has_key(p, env)]
        if not ready:
            raise ConfigError(f"{model_id} is served by {', '.join(p.name for p in listing)}: "
                              f"set {' or '.join(_key_hint(p.api_key) for p in listing)} "
                              f"or pass --api-key.")
        return ready[0]
    candidates = [providers[name] for name in KEY_ORDER] + [
        p for p in providers.values() if p.own]
    return next((p.name for p in candidates if _has_key(p, env)), None)


def _listing(providers: Dict[str, Provider], model_id: Optional[str]) -> List[Provider]:
    """The providers that list a model id, the user's own first."""
    found = [p for p in providers.values() if any(m.id == model_id for m in p.models)]
    return sorted(found, key=lambda p: not p.own)  # stable: file order within each group


def _has_key(provider: Provider, env: Mapping[str, str]) -> bool:
    """Can we call it now: its key is set (a command counts: it runs only for the one
    provider used), or it needs none (Ollama, a local server)?"""
    spec = provider.api_key
    return not spec or is_command(spec) or resolve_value(spec, env) is not None


def key_to_set(provider: Provider, env: Mapping[str, str]) -> Optional[str]:
    """What to set before the provider can be called (/model says it beside its models);
    None when it can be called now.

    Example: anthropic without ANTHROPIC_API_KEY -> "ANTHROPIC_API_KEY"; ollama -> None
    """
    return None if _has_key(provider, env) else _key_hint(provider.api_key)


def _resolve_provider(providers: Dict[str, Provider], name: str, model_id: Optional[str],
                      base_url: Optional[str], api_key: Optional[str],
                      env: Mapping[str, str], keyless: bool = False,
                      on_ask: Optional[Callable[[str], None]] = None) -> Resolved:
    if name not in providers:
        if base_url:  # a new name for an OpenAI-compatible server
            return _resolve_server(providers, _checked_url(base_url, "--base-url"), model_id,
                                   api_key, name, on_ask)
        raise ConfigError(unknown_provider(name, providers) +
                          " For any OpenAI-compatible server, pass --base-url instead.")
    entry = providers[name]
    url = _base_url(entry, base_url, env)
    key = None if keyless else _checked_key(api_key or resolve_value(entry.api_key, env), name)
    if entry.api_key and not key and not keyless:
        raise ConfigError(_no_key(entry))
    if model_id is None and (name == "ollama" or not entry.models):
        model_id = _ask_provider(entry, url, key, on_ask)  # what has it pulled, what does it serve?
    model, warnings = _pick_model(entry, model_id)
    notice = None if api_key or keyless else legacy_warning(
        entry.api_key, env, f"providers.{name}.apiKey")
    model = replace(model, base_url=url, headers=_resolved_headers(model.headers, env))
    return Resolved(model, key, warnings, [notice] if notice else [], known=not warnings)


def _resolved_headers(headers: Dict[str, str], env: Mapping[str, str]) -> Dict[str, str]:
    """Header values read like apiKey ($NAME, !command); one that cannot be had now is
    left out, as pi leaves it. Each is kept out of what we write: it may be a token."""
    resolved = {}
    for header, spec in headers.items():
        value = resolve_value(spec, env)
        if value is not None:
            add_secret(value if value != spec else None)  # a literal is no secret of ours
            resolved[header] = value
    return resolved


def _resolve_server(providers: Dict[str, Provider], url: str, model_id: Optional[str],
                    api_key: Optional[str], name: str = "openai-compatible",
                    on_ask: Optional[Callable[[str], None]] = None) -> Resolved:
    """An OpenAI-compatible server given by URL; registry facts are borrowed by id."""
    api_key = _checked_key(api_key, name)
    if not model_id:
        try:
            model_id = _ask_first_model(url, api_key, on_ask)
        except ProbeFailed as failed:
            raise ConfigError(_no_model_listed(url, failed)) from None
    known = find_model(providers, model_id)
    if known is None:
        model = Model(model_id, name, "openai-completions", url, model_id)
        return Resolved(model, api_key, [_unknown_warning(model_id, url)], known=False)
    return Resolved(replace(known, provider=name, api="openai-completions", base_url=url),
                    api_key, [])


def _ask_provider(entry: Provider, url: str, key: Optional[str],
                  on_ask: Optional[Callable[[str], None]]) -> Optional[str]:
    """The first model the server of Ollama (or of a user's provider that lists none)
    serves. If it cannot tell, the error says why and what to do."""
    if entry.api != "openai-completions":
        return None  # GET {base}/models is a Chat Completions route
    try:
        return _ask_first_model(url, key, on_ask)
    except ProbeFailed as failed:
        raise ConfigError(_no_model_listed(url, failed, entry)) from None


def _ask_first_model(url: str, key: Optional[str],
                     on_ask: Optional[Callable[[str], None]]) -> str:
    """A named server's first model, with PROBE_TIMEOUT to answer; on_ask hears first."""
    if on_ask is not None:
        on_ask(url)
    return first_model(url, key, PROBE_TIMEOUT)


def _no_model_listed(url: str, failed: "ProbeFailed", provider: Optional[Provider] = None) -> str:
    """Why GET {url}/models gave no model, and the next step, for a server or a provider.

    Example: "Ollama is not reachable at http://127.0.0.1:11434/v1 (connection refused;
    is `ollama serve` running?)"
    """
    if provider is not None and provider.name == "ollama":
        if not failed.reachable:
            return (f"Ollama is not reachable at {url} ({failed.reason}; is `ollama serve` "
                    f"running?)")
        return (f"Ollama at {url} has no models ({failed.reason}): pull one (`ollama pull "
                f"{default_model(provider).id}`) or name one with --model.")
    text = f"provider '{provider.name}' lists no models, and " if provider else ""
    if failed.reachable:
        text += f"the server at {url} named none ({failed.reason}); name one with --model."
    else:
        text += (f"the server at {url} could not be reached ({failed.reason}): is the base "
                 f"URL right, and the server running?")
    return text[0].upper() + text[1:]


def _pick_model(entry: Provider, model_id: Optional[str]):
    """The named model, else the provider's default; an unknown id gets the defaults."""
    if model_id is None:
        model = default_model(entry)
        if model is None:
            raise ConfigError(f"Provider '{entry.name}' lists no models; name one with --model.")
        return model, []
    model = find_model({entry.name: entry}, model_id)
    if model is not None:
        return model, []
    headers = entry.models[0].headers if entry.models else {}
    return (Model(model_id, entry.name, entry.api, entry.base_url, model_id, headers=headers),
            [_unknown_warning(model_id, entry.name)])


def _unknown_warning(model_id: str, where: str) -> str:
    return (f"warning: model '{model_id}' ({where}) is not in the registry; assuming a "
            f"{DEFAULT_CONTEXT_WINDOW:,}-token context window and {DEFAULT_MAX_TOKENS:,} "
            f"output tokens, no thinking, no cost")


def _no_key(provider: Provider, flags: str = "--api-key") -> str:
    return f"No API key for {provider.name}: set {_key_hint(provider.api_key)} or pass {flags}."


def _base_url(entry: Provider, base_url: Optional[str], env: Mapping[str, str]) -> str:
    """--base-url, else OLLAMA_HOST for Ollama or the SDK's own variable
    (OPENAI_BASE_URL...), else the registry's."""
    variable = BASE_URL_ENV.get(entry.name, "")
    if base_url:
        return _checked_url(base_url, "--base-url")
    if entry.name == "ollama":
        return ollama_base_url(env)
    if env.get(variable):
        return _checked_url(env[variable], variable)
    return entry.base_url


def is_own_server(provider: str, url: str, env: Optional[Mapping[str, str]] = None) -> bool:
    """Is `url` a server the user configured for `provider`: its URL in the registry or
    the user's models.json, OLLAMA_HOST, or the SDK's variable (OPENAI_BASE_URL...)? A
    server named only by --base-url has OPENAI_BASE_URL as its configured one. Only
    such a server gets the user's key when a session file names it: a file someone
    shared could otherwise send the key anywhere.

    Example: ("openai", "https://api.openai.com/v1/") -> True;
             ("openai", "http://collector.example/v1") -> False
    """
    env = os.environ if env is None else env
    entry = load_providers(env).get(provider)
    own = {env.get(BASE_URL_ENV.get(provider, "OPENAI_BASE_URL"))}
    if entry is not None:
        own |= {entry.base_url, ollama_base_url(env) if provider == "ollama" else None}
    return url.strip().rstrip("/") in {u.strip().rstrip("/") for u in own if u}


def own_key(provider: str, api_key: Optional[str],
            env: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The key a provider's calls would carry: --api-key, else its variable."""
    env = os.environ if env is None else env
    entry = load_providers(env).get(provider)
    return api_key or (resolve_value(entry.api_key, env) if entry is not None else None)


def _checked_url(url: str, source: str) -> str:
    """A base URL without its trailing slash. One without a scheme is refused now:
    requests would fail only at the first call, after the prompt was typed."""
    url = url.strip().rstrip("/")
    if not is_url(url):
        raise ConfigError(f"{source}: base URL must start with http:// or https:// (got {url})")
    return url


def _checked_key(key: Optional[str], provider: str) -> Optional[str]:
    """A key without the whitespace around it. One with whitespace or control characters
    inside would be a broken HTTP header: refused, naming the provider, never the key."""
    key = (key or "").strip()
    if any(c.isspace() or not c.isprintable() for c in key):
        raise ConfigError(f"the API key for {provider} contains whitespace or control "
                          f"characters")
    add_secret(key)  # from here on, redacted from stderr and the session file
    return key or None


def _key_hint(spec: str) -> str:
    """What to set: "LMSTUDIO_KEY" for "$LMSTUDIO_KEY", or where the key is written."""
    names = variables_named(spec)
    if names:
        return " and ".join(names)
    return "a command that prints the key (apiKey in models.json)" if is_command(spec) \
        else "the apiKey in models.json"


def ollama_base_url(env: Mapping[str, str]) -> str:
    """OLLAMA_HOST as an OpenAI-style base URL, read the way Ollama reads it: a bare
    host gets port 11434, a URL keeps its scheme's own default port, a path is kept
    (a proxy's), and /v1 is added unless it is there already.

    Examples: unset -> "http://127.0.0.1:11434/v1";  "gpu-box" -> "http://gpu-box:11434/v1";
    "0.0.0.0:8000" -> "http://127.0.0.1:8000/v1" (0.0.0.0 is where a server listens, not
    an address to call);  "https://ollama.example" -> "https://ollama.example/v1";
    "http://h:11434/v1/" -> "http://h:11434/v1" (not .../v1/v1)
    """
    host = (env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST).strip().rstrip("/")
    scheme, separator, rest = host.rpartition("://")
    rest, slash, path = rest.partition("/")
    hostname, colon, port = rest.partition(":")
    if hostname in ("", "0.0.0.0"):
        hostname = "127.0.0.1"
    if colon:
        hostname += f":{port}"
    elif not separator:
        hostname += ":11434"
    path = slash + path
    return f"{scheme or 'http'}://{hostname}{path if path.endswith('/v1') else path + '/v1'}"
