"""The model registry and how a model is chosen (models.py).

Every resolve() call gets its environment as a dict, so the developer's own keys and
~/.miniagent never leak in; servers are the scripted test server on 127.0.0.1.
"""

import json
import socket

import pytest

from fake_server import MODEL as FAKE_MODEL, FakeServer
from miniagent.models import (
    DEFAULT_CONTEXT_WINDOW,
    DEFAULT_MAX_TOKENS,
    ConfigError,
    Model,
    list_models,
    load_providers,
    ollama_base_url,
    probe_first_model,
    read_key,
    registry_models,
    resolve,
)


def closed_port() -> int:
    """A port nobody listens on: connecting to it is refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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


def test_a_broken_user_file_is_an_error_naming_it(env):
    with open(f"{env['MINIAGENT_HOME']}/models.json", "w") as f:
        f.write("{not json")
    with pytest.raises(ConfigError, match="models.json"):
        load_providers(env)


def test_api_key_is_an_env_var_name_or_a_literal():
    assert read_key("MY_KEY", {"MY_KEY": "secret"}) == "secret"
    assert read_key("MY_KEY", {}) is None
    assert read_key("sk-local-123", {}) == "sk-local-123"
    assert read_key(None, {}) is None


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


def test_base_url_without_a_reachable_server_or_model_says_to_name_one(env):
    with pytest.raises(ConfigError, match="--model"):
        resolve(base_url=f"http://127.0.0.1:{closed_port()}/v1", env=env)


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


def test_ollama_host_forms():
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
