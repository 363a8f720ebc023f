"""The model registry and how a model is chosen (models.py).

Every resolve() call gets its environment as a dict, so the developer's own keys and
~/.miniagent never leak in; servers are the scripted test server on 127.0.0.1.
"""

import json
import socket
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from fake_server import MODEL as FAKE_MODEL, FakeServer
from helpers import models_server
from miniagent.models import choose
from miniagent.models.choose import ollama_base_url, probe_first_model, resolve
from miniagent.models.registry import (BUILTIN_REGISTRY, DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS,
                                       unknown_max_tokens, list_models, load_providers,
                                       registry_models, validate)
from miniagent.core.provider import Model
from miniagent.errors import ConfigError


def closed_port() -> int:
    """A port nobody listens on: connecting to it is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def silent_port():
    """A port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def unknown_hosts(monkeypatch):
    """Host names ending in .invalid do not resolve, as a typo would not; the others do."""
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if str(host).endswith(".invalid"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.fixture
def env(tmp_path):
    """No keys, an empty home, and an Ollama address where nothing listens."""
    return {"MINIAGENT_HOME": str(tmp_path), "OLLAMA_HOST": f"127.0.0.1:{closed_port()}"}


def write_user_models(env, data):
    with open(f"{env['MINIAGENT_HOME']}/models.json", "w") as f:
        json.dump(data, f)


# --- The registry ---------------------------------------------------------------------------


def test_registry_covers_the_providers_with_one_default_each(env):
    providers = load_providers(env)
    for name in ("openai", "anthropic", "deepseek", "groq", "openrouter", "ollama"):
        assert name in providers
        assert sum(m.default for m in providers[name].models) == 1, name
    ids = {m.id for m in registry_models(env)}
    assert {"gpt-4.1", "gpt-4o-mini", "o3", "gpt-5", "claude-sonnet-4-5", "claude-haiku-4-5",
            "deepseek-chat", "deepseek-reasoner", "qwen2.5-coder:7b", "llama3.1:8b"} <= ids


def test_an_unknown_models_reply_cap_is_a_quarter_of_its_window_within_the_reserve():
    assert unknown_max_tokens(8192, 2048) == 2048
    assert unknown_max_tokens(128_000, 16_384) == 16_384
    assert unknown_max_tokens(1_000_000, 50_000) == 16_384  # never above the default
    assert unknown_max_tokens(128_000, 4_000) == 4_000  # compaction keeps no more free
    assert unknown_max_tokens(8192, 0) == 2048  # a reserve of 0 bounds nothing


def test_every_model_has_sane_limits_and_prices(env):
    for m in registry_models(env):
        assert m.context_window > m.max_tokens > 0, m.id
        assert set(m.cost) == {"input", "output", "cacheRead", "cacheWrite"}, m.id
        assert all(v >= 0 for v in m.cost.values()), m.id
        assert m.api in ("openai-completions", "anthropic-messages")
        assert m.base_url.startswith("http")
    sonnet = next(m for m in registry_models(env) if m.id == "claude-sonnet-4-5")
    assert sonnet.cost["input"] == 3.0 and sonnet.cost["output"] == 15.0 and sonnet.reasoning
    assert "image" in sonnet.input and sonnet.base_url == "https://api.anthropic.com"


def test_list_formatting_shows_provider_id_and_default(env):
    text = list_models(env)
    line = next(l for l in text.splitlines() if "claude-sonnet-4-5 " in l)
    assert line.startswith("anthropic") and "(default)" in line and "$3/$15" in line


def test_user_models_add_providers_and_override_builtin_ones(env):
    write_user_models(env, {"providers": {
        "lmstudio": {"baseUrl": "http://127.0.0.1:1234/v1/", "api": "openai-completions",
                     "models": [{"id": "qwen3-coder-30b", "contextWindow": 262144, "maxTokens": 16384,
                                 "cost": {"input": 0.5}, "compat": {"maxTokensField": "max_tokens"}}]},
        "openai": {"baseUrl": "https://proxy.example/v1",
                   "models": [{"id": "gpt-4.1", "contextWindow": 1000, "maxTokens": 100},
                              {"id": "my-tuned", "default": True}]}}})
    providers = load_providers(env)
    local = providers["lmstudio"].models[0]
    assert local.base_url == "http://127.0.0.1:1234/v1" and local.context_window == 262144
    assert local.cost == {"input": 0.5, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0}
    assert local.compat == {"maxTokensField": "max_tokens"}
    openai = providers["openai"]
    assert openai.base_url == "https://proxy.example/v1"
    assert next(m for m in openai.models if m.id == "gpt-4.1").context_window == 1000
    assert any(m.id == "gpt-4o" for m in openai.models)  # the other built-ins stay
    chosen = resolve(provider="openai", env={**env, "OPENAI_API_KEY": "k"})
    assert chosen.model.id == "my-tuned"  # the user's default mark wins


def test_a_broken_user_file_is_an_error_naming_it_and_where(env):
    path = f"{env['MINIAGENT_HOME']}/models.json"
    with open(path, "w") as f:
        f.write('{"providers": {\n  "x": {,}}}')
    with pytest.raises(ConfigError, match=r"models.json: invalid JSON at line 2, column 9"):
        load_providers(env)


def test_a_models_json_that_is_a_directory_is_an_error(env):
    (Path(env["MINIAGENT_HOME"]) / "models.json").mkdir()
    with pytest.raises(ConfigError, match="models.json: cannot be read"):
        load_providers(env)


LMSTUDIO = {"baseUrl": "http://127.0.0.1:1234/v1", "api": "openai-completions",
            "models": [{"id": "qwen3-coder-30b", "default": True}]}


def lmstudio_with(provider=None, **model):
    """docs/models.md's lmstudio provider with fields changed: the provider's (a dict), or
    those of its one model (keywords)."""
    models = [{**LMSTUDIO["models"][0], **model}]
    return {"providers": {"lmstudio": {**LMSTUDIO, "models": models, **(provider or {})}}}


M0 = "providers.lmstudio.models[0]"


@pytest.mark.parametrize("data, error", [
    (lmstudio_with(cost={"input": "free"}), f'{M0}.cost.input must be a number >= 0 (got "free")'),
    # Python's json reads NaN and Infinity; they would make the JSON we write invalid.
    (lmstudio_with(cost={"output": float("nan")}), f"{M0}.cost.output must be a number >= 0 (got NaN)"),
    (lmstudio_with(cost={"cacheRead": float("inf")}),
     f"{M0}.cost.cacheRead must be a number >= 0 (got Infinity)"),
    (lmstudio_with(cost={"input": -0.5}), f"{M0}.cost.input must be a number >= 0 (got -0.5)"),
    (lmstudio_with(contextWindow=float("nan")), f"{M0}.contextWindow must be a positive integer (got NaN)"),
    (lmstudio_with(maxTokens=float("-inf")), f"{M0}.maxTokens must be a positive integer (got -Infinity)"),
    (lmstudio_with({"models": [{"id": "a"}, {"id": "b"}, {"id": "a"}]}),
     'providers.lmstudio.models[2].id must be unique in its provider ("a" is also models[0].id)'),
    (lmstudio_with({"models": [{"id": "a", "default": True}, {"id": "b", "default": False},
                               {"id": "c", "default": True}]}),
     "providers.lmstudio.models[2].default may be true for one model only (models[0] is the "
     "default already)"),
    (lmstudio_with(cost=[1]), f"{M0}.cost must be an object (got [1])"),
    (lmstudio_with(compat="notadict"), f'{M0}.compat must be an object (got "notadict")'),
    (lmstudio_with(contextWindow="big"),
     f'{M0}.contextWindow must be a positive integer (got "big")'),
    (lmstudio_with(maxTokens=-5), f"{M0}.maxTokens must be a positive integer (got -5)"),
    (lmstudio_with(maxTokens=True), f"{M0}.maxTokens must be a positive integer (got true)"),
    (lmstudio_with(id=3), f"{M0}.id must be a non-empty string (got 3)"),
    (lmstudio_with(id=""), f'{M0}.id must be a non-empty string (got "")'),
    (lmstudio_with(name=["Qwen"]), f'{M0}.name must be a string (got ["Qwen"])'),
    (lmstudio_with(reasoning="yes"), f'{M0}.reasoning must be true or false (got "yes")'),
    (lmstudio_with(default=1), f"{M0}.default must be true or false (got 1)"),
    (lmstudio_with(input=["text", "audio"]), f'{M0}.input must be a list of "text" and "image"'),
    (lmstudio_with(headers={"X-N": 1}), f"{M0}.headers must be an object of strings"),
    (lmstudio_with({"api": "bogus-api"}),
     "providers.lmstudio.api must be one of openai-completions, anthropic-messages "
     '(got "bogus-api")'),
    (lmstudio_with({"apiKey": 5}), "providers.lmstudio.apiKey must be a non-empty string (got 5)"),
    (lmstudio_with({"headers": ["X: 1"]}),
     "providers.lmstudio.headers must be an object of strings"),
    (lmstudio_with({"baseUrl": "127.0.0.1:1234/v1"}), "providers.lmstudio.baseUrl must start "
                                                       'with http:// or https:// (got "127.0.0.1'),
    ({"providers": {"lmstudio": {"api": "openai-completions"}}},
     "providers.lmstudio.baseUrl must start with http:// or https:// (missing)"),
    (lmstudio_with({"models": [{"name": "x"}]}), f"{M0}.id must be a non-empty string (missing)"),
    (lmstudio_with({"models": ["qwen"]}), f'{M0} must be an object (got "qwen")'),
    (lmstudio_with({"models": {}}), "providers.lmstudio.models must be a list (got {})"),
    ({"providers": {"lmstudio": "http://x"}},
     'providers.lmstudio must be an object (got "http://x")'),
    ({"providers": []}, "providers must be an object (got [])"),
    ({}, "providers must be an object (missing)"),
    ([], "the file must be an object (got [])"),
    (lmstudio_with(name=["x" * 200]), f'{M0}.name must be a string (got ["xxxxxxxx'),  # cut
])
def test_the_user_file_is_checked_field_by_field_when_read(env, data, error):
    write_user_models(env, data)
    with pytest.raises(ConfigError) as raised:
        load_providers(env)
    message = str(raised.value)
    assert message.startswith(f"{env['MINIAGENT_HOME']}/models.json: ") and "\n" not in message
    assert error in message and len(message) < len(env["MINIAGENT_HOME"]) + 150


def test_a_built_in_name_needs_no_base_url_and_unknown_fields_are_ignored(env):
    write_user_models(env, {"_comment": "mine", "providers": {"groq": {
        "models": [{"id": "my-llama", "tags": ["pi-only field"]}]}}})
    assert load_providers(env)["groq"].models[-1].base_url == "https://api.groq.com/openai/v1"


def test_a_byte_order_mark_is_accepted(env):  # Notepad's "UTF-8 with BOM"
    text = json.dumps(lmstudio_with())
    (Path(env["MINIAGENT_HOME"]) / "models.json").write_text("\ufeff" + text, encoding="utf-8")
    assert load_providers(env)["lmstudio"].models[0].id == "qwen3-coder-30b"


def test_the_users_default_replaces_the_built_in_one_and_only_it_is_listed(env):
    write_user_models(env, {"providers": {
        "anthropic": {"models": [{"id": "claude-haiku-4-5", "default": True}]},
        "openai": {"models": [{"id": "gpt-5-mini", "contextWindow": 1000}]}}})  # no mark
    shown = [line.split()[:2] for line in list_models(env).splitlines() if "(default)" in line]
    assert sorted(provider for provider, _ in shown) == sorted(load_providers(env))  # one each
    assert ["anthropic", "claude-haiku-4-5"] in shown
    assert ["openai", "gpt-5-mini"] in shown  # replaced by id: still the one used
    keys = {**env, "ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}
    assert resolve(provider="anthropic", env=keys).model.id == "claude-haiku-4-5"
    assert resolve(provider="openai", env=keys).model.id == "gpt-5-mini"


def test_the_built_in_registry_passes_the_same_check():
    validate(json.loads(BUILTIN_REGISTRY.read_text()), str(BUILTIN_REGISTRY))


def test_an_old_style_capitalised_key_is_read_literally_with_a_warning(env):
    write_user_models(env, lmstudio_with({"apiKey": "LMSTUDIO_KEY"}))
    chosen = resolve(env={**env, "LMSTUDIO_KEY": "sk-from-env"})
    assert chosen.api_key == "LMSTUDIO_KEY"  # pi 1.6 reads it so: the key itself
    assert chosen.notices == ['warning: models.json providers.lmstudio.apiKey "LMSTUDIO_KEY" '
                               'is now the key itself, not the variable LMSTUDIO_KEY; write '
                               '"$LMSTUDIO_KEY" to read the variable']
    assert resolve(env=env).notices == []  # no such variable: nothing changed for this user


def test_a_key_from_a_command_in_the_users_models_json(env):
    write_user_models(env, lmstudio_with({"apiKey": "!printf 'sk-cmd-%s' 42"}))
    assert resolve(env=env).api_key == "sk-cmd-42"


def test_a_command_that_prints_nothing_is_named_as_the_missing_key(env):
    write_user_models(env, lmstudio_with({"apiKey": "!true"}))
    with pytest.raises(ConfigError) as raised:
        resolve(provider="lmstudio", env=env)
    assert str(raised.value) == ("No API key for lmstudio: set a command that prints the key "
                                 "(apiKey in models.json) or pass --api-key.")


def test_header_values_read_like_the_key(env):
    write_user_models(env, lmstudio_with({"headers": {
        "X-Team": "tools", "X-Token": "Bearer ${TEAM_TOKEN}", "X-Run": "!echo run-7",
        "X-Gone": "$NOT_SET"}}))
    headers = resolve(env={**env, "TEAM_TOKEN": "t0k3n-abcdef"}).model.headers
    assert headers == {"X-Team": "tools", "X-Token": "Bearer t0k3n-abcdef", "X-Run": "run-7"}


# --- Choosing ---------------------------------------------------------------------------------


def test_the_first_key_in_order_picks_the_provider_and_its_default(env):
    chosen = resolve(env={**env, "OPENAI_API_KEY": "sk-o", "GROQ_API_KEY": "g"})
    assert (chosen.model.provider, chosen.model.id, chosen.api_key) == ("openai", "gpt-5-mini", "sk-o")
    chosen = resolve(env={**env, "OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"})
    assert chosen.model.provider == "anthropic" and chosen.model.id == "claude-sonnet-4-5"
    chosen = resolve(env={**env, "DEEPSEEK_API_KEY": "d"})
    assert chosen.model.id == "deepseek-chat" and chosen.model.base_url == "https://api.deepseek.com"


def test_a_named_model_picks_the_provider_that_has_it(env):
    keys = {**env, "ANTHROPIC_API_KEY": "sk-a", "OPENAI_API_KEY": "sk-o"}
    chosen = resolve(model_id="gpt-4.1", env=keys)
    assert chosen.model.provider == "openai" and chosen.api_key == "sk-o"
    assert chosen.model.context_window == 1047576 and not chosen.warnings


def test_base_url_env_vars_move_the_provider(env):
    chosen = resolve(env={**env, "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://proxy:9/v1/"})
    assert chosen.model.base_url == "http://proxy:9/v1"
    chosen = resolve(provider="anthropic", env={**env, "ANTHROPIC_API_KEY": "k",
                                                "ANTHROPIC_BASE_URL": "http://gw:8"})
    assert chosen.model.base_url == "http://gw:8"


def test_an_explicit_provider_needs_its_key(env):
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        resolve(provider="anthropic", env=env)
    chosen = resolve(provider="anthropic", api_key="sk-given", env=env)
    assert chosen.api_key == "sk-given"


def test_the_key_never_shows_in_a_repr(env):
    chosen = resolve(provider="openai", api_key="sk-very-secret", env=env)
    assert "sk-very-secret" not in repr(chosen) and "sk-very-secret" not in str(chosen.model)


def test_an_unknown_model_works_with_defaults_and_one_warning(env):
    chosen = resolve(provider="openai", model_id="gpt-next", api_key="k", env=env)
    assert chosen.model.id == "gpt-next" and chosen.model.api == "openai-completions"
    assert chosen.model.context_window == DEFAULT_CONTEXT_WINDOW == 128_000
    assert chosen.model.max_tokens == DEFAULT_MAX_TOKENS == 16_384
    assert len(chosen.warnings) == 1 and "\n" not in chosen.warnings[0]
    assert "gpt-next" in chosen.warnings[0] and "128,000" in chosen.warnings[0]


def test_an_unknown_provider_is_an_error_unless_a_base_url_says_where(env):
    with pytest.raises(ConfigError, match="Unknown provider 'nope'"):
        resolve(provider="nope", env=env)
    chosen = resolve(provider="mybox", base_url="http://10.0.0.1:8000/v1", model_id="m", env=env)
    assert chosen.model.provider == "mybox" and chosen.model.api == "openai-completions"


def test_base_url_alone_is_an_openai_compatible_server_asked_for_its_model(env):
    with FakeServer([]) as srv:
        chosen = resolve(base_url=srv.base_url + "/v1", env=env)
    assert chosen.model.id == FAKE_MODEL and chosen.model.provider == "openai-compatible"
    assert chosen.model.base_url == srv.base_url + "/v1" and chosen.api_key is None
    assert chosen.warnings  # the fake model is not in the registry


def test_base_url_borrows_registry_facts_for_a_known_id(env):
    chosen = resolve(base_url="http://127.0.0.1:9/v1", model_id="llama3.1:8b", api_key="k", env=env)
    assert chosen.model.context_window == 131072 and chosen.model.base_url == "http://127.0.0.1:9/v1"
    assert chosen.api_key == "k" and not chosen.warnings


def test_a_named_server_gets_time_to_list_its_models_and_a_guess_at_ollama_does_not(env, monkeypatch):
    waits = []
    real_get = requests.get  # choose imports requests only when it asks a server
    monkeypatch.setattr(requests, "get", lambda url, **kw: waits.append(kw["timeout"])
                        or real_get(url, **kw))
    with FakeServer([]) as srv:
        write_user_models(env, {"providers": {"box": {"baseUrl": srv.base_url + "/v1"}}})
        host = {**env, "OLLAMA_HOST": srv.base_url}
        assert resolve(base_url=srv.base_url + "/v1", env=env).model.id == FAKE_MODEL
        assert resolve(env={**env, "OPENAI_BASE_URL": srv.base_url + "/v1"}).model.id == FAKE_MODEL
        assert resolve(provider="ollama", env=host).model.id == FAKE_MODEL
        assert resolve(provider="box", env=env).model.id == FAKE_MODEL  # a provider without models
        named = len(waits)
        resolve(env={**host, "MINIAGENT_HOME": env["MINIAGENT_HOME"] + "/none"})  # nothing configured
    assert waits == [choose.PROBE_TIMEOUT] * named + [choose.DETECT_TIMEOUT] and named == 4
    assert choose.PROBE_TIMEOUT >= 5 and choose.DETECT_TIMEOUT <= 0.5


def test_base_url_nobody_answers_at_is_named_with_the_reason(env, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(ConfigError) as raised:
        resolve(base_url=url, env=env)
    assert str(raised.value) == (f"The server at {url} could not be reached (connection refused): "
                                 f"is the base URL right, and the server running?")
    unknown_hosts(monkeypatch)
    with pytest.raises(ConfigError, match=r"at http://gpu-box.invalid:8000/v1 could not be "
                                          r"reached \(unknown host name\)"):
        resolve(env={**env, "OPENAI_BASE_URL": "http://gpu-box.invalid:8000/v1"})
    monkeypatch.setattr(choose, "PROBE_TIMEOUT", 0.2)
    with silent_port() as port:
        with pytest.raises(ConfigError, match=rf"127.0.0.1:{port}/v1 could not be reached "
                                              rf"\(timed out: no answer within 0.2 s\)"):
            resolve(base_url=f"http://127.0.0.1:{port}/v1", env=env)


@pytest.mark.parametrize("status, body, reason", [
    (200, '{"object": "list", "data": []}', "its list of models is empty"),
    (404, "404 page not found", "it answered 404 page not found"),
    (401, '{"error": {"message": "Invalid API key"}}', "it answered 401 Invalid API key"),
    (200, "<html>Open WebUI</html>", "its answer is not a list of models"),
])
def test_a_server_that_answers_without_a_model_says_so_and_to_name_one(env, status, body, reason):
    with models_server(status, body) as url:
        with pytest.raises(ConfigError) as raised:
            resolve(base_url=url + "/v1", env=env)
    assert str(raised.value) == (f"The server at {url}/v1 named none ({reason}); "
                                 f"name one with --model.")


def test_provider_ollama_that_is_not_running_says_so_instead_of_guessing_a_model(env, monkeypatch):
    url = ollama_base_url(env)
    with pytest.raises(ConfigError) as raised:
        resolve(provider="ollama", env=env)
    assert str(raised.value) == (f"Ollama is not reachable at {url} (connection refused; "
                                 f"is `ollama serve` running?)")
    unknown_hosts(monkeypatch)
    with pytest.raises(ConfigError, match=r"^Ollama is not reachable at http://gpu.invalid:11434/v1 "
                                          r"\(unknown host name; is `ollama serve` running\?\)"):
        resolve(provider="ollama", env={**env, "OLLAMA_HOST": "gpu.invalid"})
    with models_server(200, '{"object": "list", "data": []}') as url:
        with pytest.raises(ConfigError) as raised:
            resolve(provider="ollama", env={**env, "OLLAMA_HOST": url})
    assert str(raised.value) == (f"Ollama at {url}/v1 has no models (its list of models is empty): "
                                 f"pull one (`ollama pull qwen2.5-coder:7b`) or name one with --model.")
    assert resolve(provider="ollama", model_id="llama3.1:8b", env=env).model.id == "llama3.1:8b"


def test_a_user_provider_without_models_asks_its_server(env):
    with FakeServer([]) as srv:
        write_user_models(env, {"providers": {"box": {"baseUrl": srv.base_url + "/v1",
                                                      "apiKey": "sk-box-literal"}}})
        chosen = resolve(env=env)  # step 3: the user's own provider
    assert (chosen.model.provider, chosen.model.id, chosen.api_key) == ("box", FAKE_MODEL,
                                                                         "sk-box-literal")
    url = f"http://127.0.0.1:{closed_port()}/v1"
    write_user_models(env, {"providers": {"box": {"baseUrl": url}}})
    with pytest.raises(ConfigError) as raised:
        resolve(provider="box", env=env)
    assert str(raised.value) == (f"Provider 'box' lists no models, and the server at {url} could "
                                 f"not be reached (connection refused): is the base URL right, "
                                 f"and the server running?")


def test_provider_ollama_uses_ollama_host_and_no_key(env):
    with FakeServer([]) as srv:
        chosen = resolve(provider="ollama", env={**env, "OLLAMA_HOST": srv.base_url})
    assert chosen.model.base_url == srv.base_url + "/v1" and chosen.api_key is None
    assert chosen.model.id == FAKE_MODEL  # asked the server which models it has


def test_nothing_configured_finds_a_running_ollama(env):
    with FakeServer([]) as srv:
        host = srv.base_url.replace("http://", "")
        chosen = resolve(env={**env, "OLLAMA_HOST": host})
    assert (chosen.model.provider, chosen.model.id) == ("ollama", FAKE_MODEL)


def test_nothing_configured_names_the_three_ways_to_start(env):
    with pytest.raises(ConfigError) as error:
        resolve(env=env)
    text = str(error.value)
    assert "ANTHROPIC_API_KEY" in text and "OPENAI_API_KEY" in text
    assert "ollama" in text.lower() and "--demo" in text


def test_openai_base_url_without_a_key_means_a_compatible_server(env):
    with FakeServer([]) as srv:
        chosen = resolve(env={**env, "OPENAI_BASE_URL": srv.base_url + "/v1"})
    assert chosen.model.provider == "openai-compatible" and chosen.api_key is None


def test_a_bare_api_key_needs_to_know_whose_it_is(env):
    with pytest.raises(ConfigError, match="--provider"):
        resolve(api_key="k", env=env)
    assert resolve(api_key="k", model_id="claude-haiku-4-5", env=env).model.provider == "anthropic"


def test_a_user_provider_needs_no_flags(env):
    write_user_models(env, lmstudio_with())  # docs/models.md's example, without apiKey
    for chosen in (resolve(env=env), resolve(model_id="qwen3-coder-30b", env=env)):
        assert (chosen.model.provider, chosen.model.id) == ("lmstudio", "qwen3-coder-30b")
        assert chosen.model.base_url == "http://127.0.0.1:1234/v1" and chosen.api_key is None


def test_a_key_in_the_environment_comes_before_the_users_providers_unless_a_model_is_named(env):
    write_user_models(env, lmstudio_with())
    keys = {**env, "ANTHROPIC_API_KEY": "sk-a"}
    assert resolve(env=keys).model.provider == "anthropic"
    assert resolve(model_id="qwen3-coder-30b", env=keys).model.provider == "lmstudio"


def test_the_first_usable_user_provider_in_file_order_wins(env):
    write_user_models(env, {"providers": {
        "locked": {**LMSTUDIO, "apiKey": "$LOCKED_KEY", "models": [{"id": "a"}]},
        "open": {**LMSTUDIO, "models": [{"id": "b"}]},
        "later": {**LMSTUDIO, "models": [{"id": "c"}]}}})
    assert resolve(env=env).model.provider == "open"
    chosen = resolve(env={**env, "LOCKED_KEY": "k"})
    assert (chosen.model.provider, chosen.api_key) == ("locked", "k")


def test_a_user_provider_without_its_key_is_named_when_nothing_else_works(env):
    write_user_models(env, lmstudio_with({"apiKey": "$LMSTUDIO_KEY"}))
    with pytest.raises(ConfigError) as raised:
        resolve(env=env)
    assert str(raised.value) == ("No API key for lmstudio: set LMSTUDIO_KEY or pass "
                                 "--provider lmstudio --api-key KEY.")


def test_a_named_model_whose_provider_lacks_its_key_says_which_key(env):
    with pytest.raises(ConfigError, match="gpt-4.1 is served by openai: set OPENAI_API_KEY "
                                          "or pass --api-key"):
        resolve(model_id="gpt-4.1", env={**env, "GROQ_API_KEY": "g"})


def test_a_named_model_of_a_keyless_provider_needs_no_key(env):
    chosen = resolve(model_id="llama3.1:8b", env={**env, "OPENAI_API_KEY": "sk-o"})
    assert chosen.model.provider == "ollama" and chosen.api_key is None
    assert chosen.model.base_url == ollama_base_url(env)


def test_a_model_in_the_users_own_provider_wins_over_a_built_in_one(env):
    write_user_models(env, {"providers": {"gateway": {
        "baseUrl": "https://gw.example/v1", "apiKey": "${GW_KEY}", "models": [{"id": "gpt-4.1"}]}}})
    keys = {**env, "OPENAI_API_KEY": "sk-o", "GW_KEY": "sk-gw"}
    chosen = resolve(model_id="gpt-4.1", env=keys)
    assert (chosen.model.provider, chosen.api_key) == ("gateway", "sk-gw")
    del keys["GW_KEY"]  # not usable now: the next provider that lists it is
    assert resolve(model_id="gpt-4.1", env=keys).model.provider == "openai"


@pytest.mark.parametrize("call, source", [
    (dict(base_url="127.0.0.1:8080/v1"), "--base-url"),
    (dict(provider="mybox", base_url="127.0.0.1:8080/v1", model_id="m"), "--base-url"),
    (dict(provider="ollama", base_url="127.0.0.1:8080/v1", model_id="m"), "--base-url"),
    (dict(provider="openai", base_url="127.0.0.1:8080/v1", api_key="k"), "--base-url"),
    (dict(env={"OPENAI_BASE_URL": "127.0.0.1:8080/v1"}), "OPENAI_BASE_URL"),
    (dict(env={"OPENAI_BASE_URL": "127.0.0.1:8080/v1", "OPENAI_API_KEY": "k"}), "OPENAI_BASE_URL"),
    (dict(env={"ANTHROPIC_BASE_URL": "127.0.0.1:8080/v1", "ANTHROPIC_API_KEY": "k"}),
     "ANTHROPIC_BASE_URL"),
])
def test_a_base_url_without_a_scheme_fails_at_once(env, call, source):
    call = {**call, "env": {**env, **call.get("env", {})}}
    with pytest.raises(ConfigError) as raised:
        resolve(**call)
    assert str(raised.value) == (f"{source}: base URL must start with http:// or https:// "
                                 f"(got 127.0.0.1:8080/v1)")


def test_keys_lose_surrounding_whitespace(env):
    chosen = resolve(env={**env, "OPENAI_API_KEY": "sk-o\r\n"})  # from a CRLF .env file
    assert chosen.api_key == "sk-o"
    assert resolve(provider="openai", api_key=" sk-given ", env=env).api_key == "sk-given"
    assert resolve(base_url="http://h:1/v1", model_id="m", api_key="k\n", env=env).api_key == "k"
    blank = {**env, "OPENAI_API_KEY": " \r", "GROQ_API_KEY": "g"}  # blank counts as unset
    assert resolve(env=blank).model.provider == "groq"


@pytest.mark.parametrize("call", [
    dict(provider="openai", api_key="sk-sec ret"),
    dict(provider="openai", api_key="sk-sec\x00ret"),
    dict(env={"OPENAI_API_KEY": "sk-sec\tret"}),
    dict(base_url="http://h:1/v1", model_id="m", api_key="sk-sec\rret"),
])
def test_a_key_with_whitespace_or_control_characters_inside_is_refused(env, call):
    call = {**call, "env": {**env, **call.get("env", {})}}
    with pytest.raises(ConfigError) as raised:
        resolve(**call)
    assert "contains whitespace or control characters" in str(raised.value)
    assert "sec" not in str(raised.value)  # the key itself is never shown


def test_a_literal_key_in_models_json_is_checked_too(env):
    write_user_models(env, lmstudio_with({"apiKey": "sk-local 123"}))
    with pytest.raises(ConfigError, match="the API key for lmstudio contains whitespace"):
        resolve(env=env)


def test_list_models_of_one_provider(env):
    lines = list_models(env, provider="openai").splitlines()
    assert lines and all(line.startswith("openai ") for line in lines)
    assert any("gpt-4.1 " in line for line in lines)
    write_user_models(env, lmstudio_with())
    assert list_models(env, provider="lmstudio").split()[:2] == ["lmstudio", "qwen3-coder-30b"]
    with pytest.raises(ConfigError, match="Unknown provider 'nope'. Known: anthropic, openai"):
        list_models(env, provider="nope")


def test_ollama_host_forms():
    assert ollama_base_url({"OLLAMA_HOST": "http://h:11434/v1"}) == "http://h:11434/v1"  # not /v1/v1
    assert ollama_base_url({"OLLAMA_HOST": "h:11434/v1/"}) == "http://h:11434/v1"
    assert ollama_base_url({"OLLAMA_HOST": "https://proxy.example/ollama"}) == (
        "https://proxy.example/ollama/v1")
    assert ollama_base_url({}) == "http://127.0.0.1:11434/v1"
    assert ollama_base_url({"OLLAMA_HOST": "0.0.0.0:8000"}) == "http://127.0.0.1:8000/v1"
    assert ollama_base_url({"OLLAMA_HOST": "gpu-box"}) == "http://gpu-box:11434/v1"
    assert ollama_base_url({"OLLAMA_HOST": "https://ollama.example/"}) == "https://ollama.example/v1"
    assert ollama_base_url({"OLLAMA_HOST": "http://h:1/"}) == "http://h:1/v1"


def test_probe_never_raises():
    assert probe_first_model(f"http://127.0.0.1:{closed_port()}/v1") is None
    assert probe_first_model("not a url") is None


def test_model_defaults_match_the_stated_ones():
    model = Model("x", "p", "openai-completions")
    assert (model.context_window, model.max_tokens) == (128_000, 16_384)
