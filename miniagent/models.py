"""Models: which LLM to call, where it lives, what it can do and what it costs.

A provider call needs more than a model name. It needs the wire protocol to speak
(`api`), the server (`base_url`), a key, and facts the agent plans with: how many tokens
fit in the context window (compaction), how many the model may write (`max_tokens`),
whether it can think, and its prices (every assistant message carries its cost). This
module keeps those facts in a registry and answers one question for the command line:
*which model do we use, with which key?*

The registry is `models.json` beside this file, merged with the user's own
`~/.miniagent/models.json` (the folder moves with `MINIAGENT_HOME`). Both use pi's
shape:

    {"providers": {
       "lmstudio": {
         "baseUrl": "http://127.0.0.1:1234/v1",     # OpenAI-style: includes /v1
         "api": "openai-completions",                # or "anthropic-messages"
         "apiKey": "LMSTUDIO_KEY",                   # optional: an env var NAME or a literal
         "headers": {"X-Team": "tools"},             # optional, sent with every request
         "models": [
           {"id": "qwen3-coder-30b", "name": "Qwen3 Coder",   # only "id" is required
            "contextWindow": 262144, "maxTokens": 16384,      # tokens
            "reasoning": false, "input": ["text"],            # "image" if it sees images
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},  # USD / M
            "compat": {"maxTokensField": "max_tokens"},       # quirk overrides (openai.py)
            "default": true}]}}}                              # used when --model is absent

An `apiKey` written in capitals and underscores (`MY_KEY`) names an environment
variable; anything else is the key itself. A user provider with a built-in name
(`"openai": {"baseUrl": ...}`) changes that provider: its fields win and its models are
added to (or replace, by id) the built-in ones. A model id the registry does not know
still works, with a one-line warning and the defaults below.

How `resolve()` chooses (the command line's `--provider`, `--model`, `--base-url`,
`--api-key`):

    --provider NAME     that provider; its key from --api-key or its env var;
                        `ollama` needs none and finds the server at OLLAMA_HOST
    --base-url URL      alone: an OpenAI-compatible server (llama.cpp, vLLM, LM Studio,
                        a proxy); the key is optional and sent only when given
    nothing             the first key set among ANTHROPIC_API_KEY, OPENAI_API_KEY,
                        OPENROUTER_API_KEY, DEEPSEEK_API_KEY, GROQ_API_KEY; else a
                        server at OPENAI_BASE_URL; else a running Ollama; else an error
                        that names the three ways to start
    --model ID          that model instead of the provider's default (a server that was
                        not told a model is asked for its first one: GET {base}/models)

A key is never printed, logged or stored: `Resolved` keeps it out of its repr.

Left out: OAuth logins, key files, per-model retry settings, fetching live price lists.
"""

import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import requests

BUILTIN_REGISTRY = Path(__file__).with_name("models.json")
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384
# Without --provider, the first of these whose key is set wins.
KEY_ORDER = ("anthropic", "openai", "openrouter", "deepseek", "groq")
# Each SDK's own variable for moving its API elsewhere (a proxy, a gateway).
BASE_URL_ENV = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}
OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"
PROBE_TIMEOUT = 0.5  # seconds: a local server answers at once, a missing one must not stall
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

NOTHING_CONFIGURED = """No model is configured. Start in one of three ways:
  1. an API key: set ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY
     or GROQ_API_KEY (or pass --provider NAME --api-key KEY)
  2. Ollama: run `ollama serve` and `ollama pull qwen2.5-coder:7b` (or --provider ollama)
  3. the offline demo: miniagent --demo"""


@dataclass
class Model:
    """One model as the providers see it."""

    id: str
    """The name the server knows it by, e.g. "gpt-4.1" or "qwen2.5-coder:7b"."""
    provider: str
    """Who serves it: "openai", "anthropic", "ollama", "openai-compatible", "scripted"..."""
    api: str
    """The wire protocol: "openai-completions", "anthropic-messages" or "scripted"."""
    base_url: str = ""
    """OpenAI style includes the version path (.../v1); Anthropic style does not."""
    name: str = ""
    """A human name for listings."""
    context_window: int = DEFAULT_CONTEXT_WINDOW
    """Tokens the model can read in one request (input plus output)."""
    max_tokens: int = DEFAULT_MAX_TOKENS
    """Tokens the model may write in one reply."""
    reasoning: bool = False
    """Can it think (OpenAI reasoning effort, Anthropic thinking budget)?"""
    input: List[str] = field(default_factory=lambda: ["text"])
    """What it reads: "text", and "image" if it sees images."""
    cost: Dict[str, float] = field(default_factory=lambda: {
        "input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0})
    """USD per million tokens, per usage kind."""
    compat: Dict[str, Any] = field(default_factory=dict)
    """Overrides of the provider's auto-detected quirk flags, field by field."""
    headers: Dict[str, str] = field(default_factory=dict)
    """Extra HTTP headers sent with every request."""
    default: bool = False
    """The model its provider uses when none is named."""
    script: Optional[Any] = None
    """The scripted provider's turns (api "scripted" only)."""


@dataclass
class Provider:
    """A registry entry: where a family of models is served and how to authenticate."""

    name: str
    base_url: str
    api: str
    api_key: Optional[str]  # as written in models.json: an env var name or a literal
    models: List[Model]


@dataclass
class Resolved:
    """The answer of resolve(): the model, its key, and warnings for stderr."""

    model: Model
    api_key: Optional[str] = field(default=None, repr=False)  # never shown
    warnings: List[str] = field(default_factory=list)


class ConfigError(Exception):
    """No usable model: the message says what to do (the CLI prints it and exits 2)."""


# --- The registry ----------------------------------------------------------------------


def miniagent_home(env: Optional[Mapping[str, str]] = None) -> Path:
    """~/.miniagent, or $MINIAGENT_HOME."""
    env = os.environ if env is None else env
    return Path(env.get("MINIAGENT_HOME") or Path.home() / ".miniagent")


def load_providers(env: Optional[Mapping[str, str]] = None) -> Dict[str, Provider]:
    """The built-in registry merged with the user's models.json."""
    raw = json.loads(BUILTIN_REGISTRY.read_text(encoding="utf-8"))["providers"]
    user_file = miniagent_home(env) / "models.json"
    if user_file.is_file():
        try:
            user = json.loads(user_file.read_text(encoding="utf-8"))
            _merge_providers(raw, user["providers"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConfigError(f"{user_file}: not a valid models file "
                              f"({type(exc).__name__}: {exc})") from None
    return {name: _parse_provider(name, entry, str(user_file)) for name, entry in raw.items()}


def _merge_providers(builtin: Dict[str, Any], user: Dict[str, Any]) -> None:
    """User entries win field by field; their models replace built-in ones by id."""
    for name, entry in user.items():
        if name not in builtin:
            builtin[name] = entry
            continue
        merged = {**builtin[name], **{k: v for k, v in entry.items() if k != "models"}}
        models = {m["id"]: m for m in builtin[name].get("models", [])}
        models.update({m["id"]: m for m in entry.get("models", [])})
        merged["models"] = list(models.values())
        builtin[name] = merged


def _parse_provider(name: str, entry: Dict[str, Any], source: str) -> Provider:
    api = entry.get("api", "openai-completions")
    base_url = (entry.get("baseUrl") or "").rstrip("/")
    models = []
    for item in entry.get("models", []):
        if not isinstance(item, dict) or not item.get("id"):
            raise ConfigError(f"{source}: every model of provider '{name}' needs an \"id\"")
        models.append(Model(
            id=item["id"], provider=name, api=item.get("api", api), base_url=base_url,
            name=item.get("name", item["id"]),
            context_window=int(item.get("contextWindow", DEFAULT_CONTEXT_WINDOW)),
            max_tokens=int(item.get("maxTokens", DEFAULT_MAX_TOKENS)),
            reasoning=bool(item.get("reasoning", False)),
            input=list(item.get("input", ["text"])),
            cost={**Model("", "", "").cost, **item.get("cost", {})},
            compat=dict(item.get("compat", {})),
            headers={**entry.get("headers", {}), **item.get("headers", {})},
            default=bool(item.get("default", False))))
    return Provider(name, base_url, api, entry.get("apiKey"), models)


def registry_models(env: Optional[Mapping[str, str]] = None) -> List[Model]:
    """Every model of every provider, built-in and the user's."""
    return [m for p in load_providers(env).values() for m in p.models]


def list_models(env: Optional[Mapping[str, str]] = None) -> str:
    """The registry as a table for --list-models, one line per model, e.g.
    `anthropic   claude-sonnet-4-5   ctx 200000  out 64000  thinking  $3/$15 per M  (default)`"""
    return format_models(registry_models(env))


def format_models(models: List[Model]) -> str:
    lines = []
    for m in models:
        price = f"${m.cost['input']:g}/${m.cost['output']:g} per M"
        lines.append(f"{m.provider:<11} {m.id:<34} ctx {m.context_window:<8} "
                     f"out {m.max_tokens:<7} {'thinking' if m.reasoning else '        '}  "
                     f"{price}{'  (default)' if m.default else ''}")
    return "\n".join(lines)


def find_model(providers: Dict[str, Provider], model_id: str,
               provider: Optional[str] = None) -> Optional[Model]:
    """The registry entry for an id, in one provider or in any."""
    for p in providers.values():
        if provider in (None, p.name):
            for m in p.models:
                if m.id == model_id:
                    return m
    return None


def default_model(provider: Provider) -> Optional[Model]:
    """The model marked default (a user's mark wins: it comes later), else the first."""
    marked = [m for m in provider.models if m.default]
    return marked[-1] if marked else (provider.models[0] if provider.models else None)


# --- Choosing a model ------------------------------------------------------------------


def resolve(provider: Optional[str] = None, model_id: Optional[str] = None,
            base_url: Optional[str] = None, api_key: Optional[str] = None,
            env: Optional[Mapping[str, str]] = None) -> Resolved:
    """Pick the model and key from the command line and the environment (see the
    module docstring for the order). Raises ConfigError with the next step to take."""
    env = os.environ if env is None else env
    providers = load_providers(env)
    if provider:
        return _resolve_provider(providers, provider, model_id, base_url, api_key, env)
    if base_url:
        return _resolve_server(providers, base_url, model_id, api_key)
    if api_key:  # a bare key: the model must say whose it is
        known = find_model(providers, model_id) if model_id else None
        if known is None:
            raise ConfigError("--api-key needs --provider (or a --model the registry knows).")
        return _resolve_provider(providers, known.provider, model_id, None, api_key, env)
    with_key = [name for name in KEY_ORDER if name in providers
                and read_key(providers[name].api_key, env)]
    if with_key:
        # A named model picks the provider that has it; else the first key wins.
        owner = next((n for n in with_key if model_id and find_model(providers, model_id, n)),
                     with_key[0])
        return _resolve_provider(providers, owner, model_id, None, None, env)
    if env.get("OPENAI_BASE_URL"):
        return _resolve_server(providers, env["OPENAI_BASE_URL"], model_id, None)
    ollama_url = ollama_base_url(env)
    first = probe_first_model(ollama_url)
    if first is not None and "ollama" in providers:
        return _resolve_provider(providers, "ollama", model_id or first, None, None, env)
    raise ConfigError(NOTHING_CONFIGURED)


def _resolve_provider(providers: Dict[str, Provider], name: str, model_id: Optional[str],
                      base_url: Optional[str], api_key: Optional[str],
                      env: Mapping[str, str]) -> Resolved:
    if name not in providers:
        if base_url:  # a new name for an OpenAI-compatible server
            return _resolve_server(providers, base_url, model_id, api_key, name)
        raise ConfigError(f"Unknown provider '{name}'. Known: {', '.join(providers)}. "
                          f"For any OpenAI-compatible server, pass --base-url instead.")
    entry = providers[name]
    if name == "ollama":
        url = base_url or ollama_base_url(env)
        model_id = model_id or probe_first_model(url)
    else:
        url = base_url or env.get(BASE_URL_ENV.get(name, ""), "") or entry.base_url
    key = api_key or read_key(entry.api_key, env)
    if entry.api_key and not key:
        raise ConfigError(f"No API key for {name}: set {_key_hint(entry.api_key)} "
                          f"or pass --api-key.")
    model, warnings = _pick_model(entry, model_id)
    return Resolved(replace(model, base_url=url.rstrip("/")), key, warnings)


def _resolve_server(providers: Dict[str, Provider], base_url: str, model_id: Optional[str],
                    api_key: Optional[str], name: str = "openai-compatible") -> Resolved:
    """An OpenAI-compatible server given by URL; registry facts are borrowed by id."""
    url = base_url.rstrip("/")
    model_id = model_id or probe_first_model(url, api_key)
    if not model_id:
        raise ConfigError(f"Could not ask {url}/models which model it serves; "
                          f"name one with --model.")
    known = find_model(providers, model_id)
    if known is None:
        model = Model(model_id, name, "openai-completions", url, model_id)
        return Resolved(model, api_key, [_unknown_warning(model_id, url)])
    return Resolved(replace(known, provider=name, api="openai-completions", base_url=url),
                    api_key, [])


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


def read_key(spec: Optional[str], env: Mapping[str, str]) -> Optional[str]:
    """models.json's apiKey: an env var name (capitals) is looked up, else a literal.

    Examples: "OPENAI_API_KEY" -> env value or None;  "sk-local-123" -> "sk-local-123"
    """
    if not spec:
        return None
    if ENV_NAME.match(spec):
        return env.get(spec) or None
    return spec


def _key_hint(spec: str) -> str:
    return spec if ENV_NAME.match(spec) else "the apiKey in models.json"


def ollama_base_url(env: Mapping[str, str]) -> str:
    """OLLAMA_HOST as an OpenAI-style base URL, read the way Ollama reads it: a bare
    host gets port 11434, a URL keeps its scheme's own default port.

    Examples: unset -> "http://127.0.0.1:11434/v1";  "gpu-box" -> "http://gpu-box:11434/v1";
    "0.0.0.0:8000" -> "http://127.0.0.1:8000/v1" (0.0.0.0 is where a server listens, not
    an address to call);  "https://ollama.example" -> "https://ollama.example/v1"
    """
    host = (env.get("OLLAMA_HOST") or OLLAMA_DEFAULT_HOST).strip().rstrip("/")
    scheme, separator, rest = host.rpartition("://")
    hostname, colon, port = rest.partition(":")
    if hostname in ("", "0.0.0.0"):
        hostname = "127.0.0.1"
    if colon:
        hostname += f":{port}"
    elif not separator:
        hostname += ":11434"
    return f"{scheme or 'http'}://{hostname}/v1"


def probe_first_model(base_url: str, api_key: Optional[str] = None,
                      timeout: float = PROBE_TIMEOUT) -> Optional[str]:
    """Ask an OpenAI-compatible server which models it serves (GET {base}/models, the
    route Ollama, llama.cpp, vLLM and LM Studio all answer) and return the first id,
    or None if nobody answers in time. Never raises."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = requests.get(f"{base_url.rstrip('/')}/models", headers=headers,
                                timeout=timeout)
        if response.status_code != 200:
            return None
        models = response.json().get("data") or []
        return str(models[0]["id"]) if models else None
    except (requests.RequestException, ValueError, KeyError, TypeError, AttributeError):
        return None
