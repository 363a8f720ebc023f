"""Models: which LLM to call, where it lives, what it can do and what it costs.

A provider call needs more than a model name. It needs the wire protocol to speak
(`api`), the server (`base_url`), a key, and facts the agent plans with: how many tokens
fit in the context window (compaction), how many the model may write (`max_tokens`),
whether it can think, and its prices (every assistant message carries its cost). This
module keeps those facts in a registry; choose.py answers the command line's question
*which model do we use, with which key?* from it.

The registry is `models.json` beside this file, merged with the user's own
`~/.miniagent/models.json` (the folder moves with `MINIAGENT_HOME`). Both use pi's
shape:

    {"providers": {
       "lmstudio": {
         "baseUrl": "http://127.0.0.1:1234/v1",     # OpenAI-style: includes /v1
         "api": "openai-completions",                # or "anthropic-messages"
         "apiKey": "$LMSTUDIO_KEY",                  # optional: $VAR, !command or a literal
         "headers": {"X-Team": "tools"},             # optional, sent with every request
         "models": [
           {"id": "qwen3-coder-30b", "name": "Qwen3 Coder",   # only "id" is required
            "contextWindow": 262144, "maxTokens": 16384,      # tokens
            "reasoning": false, "input": ["text"],            # "image" if it sees images
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},  # USD / M
            "compat": {"maxTokensField": "max_tokens"},       # quirk overrides (openai.py)
            "default": true}]}}}                              # used when --model is absent

An `apiKey` or header value is read as pi 1.6 reads it (values.py): `$MY_KEY` is an
environment variable, `!cmd` a command's output, anything else the value itself. A user provider with a built-in name
(`"openai": {"baseUrl": ...}`) changes that provider: its fields win, its models are
added to (or replace, by id) the built-in ones, and its `default` mark replaces the
built-in one; a new name needs a `baseUrl`. The user's file is checked when it is read,
field by field (`validate()`): a price written as "free" (or NaN, or below zero), an id
listed twice or a second `default` in one provider is reported then, naming the file
and the field, not after the model has answered. A model id the registry does not know
still works, with a one-line warning and the defaults below.

Left out: OAuth logins, key files, per-model retry settings, fetching live price lists.
"""

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Dict, List, Mapping, Optional

from ..core.provider import DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS, Model
from ..errors import ConfigError
from ..files.home import models_file
from ..files.safeopen import read_json_file

BUILTIN_REGISTRY = Path(__file__).with_name("models.json")
APIS = ("openai-completions", "anthropic-messages")


@dataclass
class Provider:
    """A registry entry: where a family of models is served and how to authenticate."""

    name: str
    base_url: str
    api: str
    api_key: Optional[str]  # as written in models.json: an env var name or a literal
    models: List[Model]
    own: bool = False  # defined by the user's models.json alone, not a built-in name


def unknown_max_tokens(context_window: int, reserve: int) -> int:
    """What one reply may write when the registry does not know the model: a quarter of
    its window, at most DEFAULT_MAX_TOKENS, and never more than compaction keeps free for
    a reply (`reserve`; 0 keeps nothing free and bounds nothing). A small local model on
    a slow CPU asked for most of an 8k window may ramble for minutes.

    Examples: (8192, 2048) -> 2048;  (128000, 16384) -> 16384;  (128000, 4000) -> 4000
    """
    return min([DEFAULT_MAX_TOKENS, max(1, context_window // 4)] + ([reserve] if reserve > 0 else []))


# --- Checking a models.json ------------------------------------------------------------


def is_url(value: Any) -> bool:
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


# What each field must be: a test, and the words for the error. A table, not a JSON
# Schema engine: the shape is small and fixed, and the error must name the one field.
_MISSING = object()  # fails every test below: a required field that is absent
_OBJECT = (lambda v: isinstance(v, dict), "be an object")
_NAME = (lambda v: isinstance(v, str) and v.strip() != "", "be a non-empty string")
_FLAG = (lambda v: isinstance(v, bool), "be true or false")
_COUNT = (lambda v: type(v) is int and v > 0, "be a positive integer")  # True is an int
_API = (lambda v: v in APIS, "be one of " + ", ".join(APIS))
_HEADERS = (lambda v: isinstance(v, dict)
            and all(isinstance(name, str) and isinstance(value, str) for name, value in v.items()),
            "be an object of strings")
PROVIDER_FIELDS = {
    "baseUrl": (is_url, "start with http:// or https://"),
    "api": _API, "apiKey": _NAME, "headers": _HEADERS,
    "models": (lambda v: isinstance(v, list), "be a list")}
MODEL_FIELDS = {
    "id": _NAME, "name": (lambda v: isinstance(v, str), "be a string"), "api": _API,
    "contextWindow": _COUNT, "maxTokens": _COUNT, "reasoning": _FLAG,
    "input": (lambda v: isinstance(v, list) and all(k in ("text", "image") for k in v),
              'be a list of "text" and "image"'),
    "cost": _OBJECT, "compat": _OBJECT, "headers": _HEADERS, "default": _FLAG,
    "thinkingLevelMap": _OBJECT}
# Python's json reads NaN and Infinity; a cost made of them would later be written out
# as invalid JSON (and a negative price is a typo), so a price is a finite number >= 0.
COST_FIELDS = dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), (
    lambda v: type(v) in (int, float) and math.isfinite(v) and v >= 0,
    "be a number >= 0"))


def validate(data: Any, source: str, builtin: Collection[str] = ()) -> None:
    """Check a models.json document; raise ConfigError naming the first bad field, e.g.
    `/home/me/.miniagent/models.json: providers.lmstudio.models[0].cost.input must be a
    number >= 0 (got "free")`. Unknown fields are ignored: pi's files may carry more. A new
    provider needs a baseUrl; one with a built-in name (in `builtin`) has one already."""
    def check(value: Any, rule: Any, path: str) -> None:
        ok, what = rule
        if not ok(value):
            got = "missing" if value is _MISSING else "got " + json.dumps(value, ensure_ascii=False)
            got = got if len(got) < 60 else got[:56] + "..."
            raise ConfigError(f"{source}: {path} must {what} ({got})")

    def check_fields(obj: Any, fields: Dict[str, Any], where: str, required=()) -> None:
        check(obj, _OBJECT, where)
        for key, rule in fields.items():
            if key in obj or key in required:
                check(obj.get(key, _MISSING), rule, f"{where}.{key}")

    check(data, _OBJECT, "the file")
    check(data.get("providers", _MISSING), _OBJECT, "providers")
    for name, entry in data["providers"].items():
        where = f"providers.{name}"
        check_fields(entry, PROVIDER_FIELDS, where, () if name in builtin else ("baseUrl",))
        for i, item in enumerate(entry.get("models", [])):
            check_fields(item, MODEL_FIELDS, f"{where}.models[{i}]", ("id",))
            check_fields(item.get("cost", {}), COST_FIELDS, f"{where}.models[{i}].cost")
        _check_unique(entry.get("models", []), source, where)


def _check_unique(models: List[Dict[str, Any]], source: str, where: str) -> None:
    """One entry per id and at most one default in a provider: with two, which one
    wins would depend on the order in the file, silently."""
    first: Dict[str, int] = {}  # id -> the index of its first entry
    default: Optional[int] = None
    for i, item in enumerate(models):
        path = f"{source}: {where}.models[{i}]"
        if item["id"] in first:
            shown = json.dumps(item["id"], ensure_ascii=False)
            raise ConfigError(f"{path}.id must be unique in its provider ({shown} is also "
                              f"models[{first[item['id']]}].id)")
        first[item["id"]] = i
        if item.get("default") and default is not None:
            raise ConfigError(f"{path}.default may be true for one model only (models[{default}] "
                              f"is the default already)")
        if item.get("default"):
            default = i


# --- The registry ----------------------------------------------------------------------


def load_providers(env: Optional[Mapping[str, str]] = None) -> Dict[str, Provider]:
    """The built-in registry merged with the user's models.json."""
    raw = json.loads(BUILTIN_REGISTRY.read_text(encoding="utf-8-sig"))["providers"]
    builtin = set(raw)
    user_file = models_file(env)
    if user_file.exists():
        _merge_providers(raw, _read_user_file(user_file, builtin))
    return {name: _parse_provider(name, entry, name not in builtin)
            for name, entry in raw.items()}


def _read_user_file(path: Path, builtin: Collection[str]) -> Dict[str, Any]:
    """The "providers" of the user's file, checked: every mistake is a ConfigError now."""
    source = str(path)
    data = read_json_file(path)
    validate(data, source, builtin)
    return data["providers"]


def _merge_providers(builtin: Dict[str, Any], user: Dict[str, Any]) -> None:
    """User entries win field by field; their models replace built-in ones by id, and
    a default the user marks replaces the built-in mark."""
    for name, entry in user.items():
        if name not in builtin:
            builtin[name] = entry
            continue
        merged = {**builtin[name], **{k: v for k, v in entry.items() if k != "models"}}
        models = {m["id"]: m for m in builtin[name].get("models", [])}
        if any(m.get("default") for m in entry.get("models", [])):
            models = {key: {**m, "default": False} for key, m in models.items()}
        models.update({m["id"]: m for m in entry.get("models", [])})
        merged["models"] = list(models.values())
        builtin[name] = merged


def _parse_provider(name: str, entry: Dict[str, Any], own: bool) -> Provider:
    """A checked entry as a Provider; every model field absent gets its default."""
    api = entry.get("api", "openai-completions")
    base_url = entry.get("baseUrl", "").rstrip("/")
    models = [Model(
        id=item["id"], provider=name, api=item.get("api", api), base_url=base_url,
        name=item.get("name", item["id"]),
        context_window=item.get("contextWindow", DEFAULT_CONTEXT_WINDOW),
        max_tokens=item.get("maxTokens", DEFAULT_MAX_TOKENS),
        reasoning=item.get("reasoning", False),
        input=list(item.get("input", ["text"])),
        cost={**Model("", "", "").cost, **item.get("cost", {})},
        compat=dict(item.get("compat", {})),
        headers={**entry.get("headers", {}), **item.get("headers", {})},
        thinking_level_map=dict(item.get("thinkingLevelMap", {})),
        default=item.get("default", False)) for item in entry.get("models", [])]
    provider = Provider(name, base_url, api, entry.get("apiKey"), models, own)
    used = default_model(provider)
    for model in models:  # exactly one mark, on the model used: --list-models shows it
        model.default = model is used
    return provider


def registry_models(env: Optional[Mapping[str, str]] = None) -> List[Model]:
    """Every model of every provider, built-in and the user's."""
    return [m for p in load_providers(env).values() for m in p.models]


def list_models(env: Optional[Mapping[str, str]] = None, provider: Optional[str] = None) -> str:
    """The registry, or one provider's part of it, as a table for --list-models, e.g.
    `anthropic   claude-sonnet-4-5   ctx 200000  out 64000  thinking  $3/$15 per M  (default)`"""
    providers = load_providers(env)
    if provider is not None and provider not in providers:
        raise ConfigError(unknown_provider(provider, providers))
    return format_models([m for p in providers.values() if provider in (None, p.name)
                          for m in p.models])


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
    """The model marked default, else the first (a loaded provider has one mark at most:
    the user's replaces the built-in one, see _merge_providers)."""
    marked = [m for m in provider.models if m.default]
    return marked[0] if marked else (provider.models[0] if provider.models else None)


def unknown_provider(name: str, providers: Dict[str, Provider]) -> str:
    return f"Unknown provider '{name}'. Known: {', '.join(providers)}."
