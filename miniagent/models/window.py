"""The real context window: asking a local server how much it actually serves.

Compaction is only as good as the window it assumes. A model's card says what it was
trained for; a local server serves what it was started with, often far less. A
llama.cpp server started with `-c 4096` answers a 5,000-token request with an error,
however large the model's trained window. So when neither the user's models.json nor
the registry knows a model, the harness asks the server, once per run:

    llama.cpp   GET  {root}/props      -> default_generation_settings.n_ctx
                (the n_ctx_train of /v1/models is only an upper bound)
    Ollama      POST {root}/api/show   -> "num_ctx" in parameters, when the model sets it;
                else GET {root}/api/ps -> the context_length it was loaded with;
                else Ollama's smallest default, 4,096 (OLLAMA_DEFAULT_CONTEXT);
                never more than model_info's *.context_length (what it was trained for)
    LM Studio   GET  {root}/api/v0/models -> loaded_context_length of that model

llama.cpp's /props also says whether the chat template it was started with can call
tools (`chat_template_caps.supports_tools`); one that cannot drops the tools we send
without a word, so `probe_server` passes that on too (`Served.tools`).

{root} is the base URL without its /v1. The probes run in that order until one answers,
within 2 seconds in all. Any failure (refused, 404, not JSON, a field missing) is
silence: None, and the caller falls back to its default.

Left out: vLLM (its /v1/models states max_model_len; the registry or models.json is the
place for it), and asking again when a server restarts with another size mid-run.
"""

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional

PROBE_SECONDS = 2.0
# Ollama's default served context: 2,048 tokens before 0.6.7, 4,096 from 0.6.7, and
# since 0.15.5 4,096, 32,768 or 262,144 by GPU memory (below 24 GiB, to 48 GiB, above),
# unless OLLAMA_CONTEXT_LENGTH says otherwise. For a model it has not loaded yet we
# cannot see which; the smallest current default is the safe guess (compacting early
# costs a summary, assuming too much costs a refused request).
OLLAMA_DEFAULT_CONTEXT = 4096


@dataclass
class Served:
    """What a server says of how it serves a model."""

    window: Optional[int] = None
    """The context window, or None if it will not say."""
    tools: bool = True
    """False when its chat template cannot call tools (llama.cpp's /props says so)."""


def probe_context_window(base_url: str, model_id: str, api_key: Optional[str] = None,
                         timeout: float = PROBE_SECONDS) -> Optional[int]:
    """The window the server at base_url serves model_id with, or None if it will not say.

    Example: a llama.cpp server started with -c 4096 at http://127.0.0.1:8080/v1 -> 4096
    """
    return probe_server(base_url, model_id, api_key, timeout).window


def probe_server(base_url: str, model_id: str, api_key: Optional[str] = None,
                 timeout: float = PROBE_SECONDS) -> Served:
    """The window and the tool support of the server at base_url (see Served).

    Example: llama.cpp started with -c 4096 and a template without tools
             -> Served(window=4096, tools=False)
    """
    import requests  # here, not at the top: importing this module must stay cheap

    from ..http.transport import SHARED_SESSION  # the connection pool all requests share

    root = server_root(base_url)
    deadline = time.monotonic() + timeout
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    def ask(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Optional[Any]:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            response = SHARED_SESSION.request(method, root + path, json=body,
                                              headers=headers, timeout=left)
            return response.json() if response.status_code == 200 else None
        except (requests.RequestException, ValueError):  # refused, timed out, not JSON
            return None

    props = ask("GET", "/props")
    window = _llama_cpp(props)
    if window:
        return Served(window, _template_calls_tools(props))
    for probe in (_ollama, _lm_studio):
        window = probe(ask, model_id)
        if window:
            return Served(window)
    return Served()


def server_root(base_url: str) -> str:
    """Example: "http://127.0.0.1:8080/v1/" -> "http://127.0.0.1:8080"."""
    root = base_url.rstrip("/")
    return root[:-3] if root.endswith("/v1") else root


Ask = Callable[..., Optional[Any]]


def _positive(value: Any) -> Optional[int]:
    """A token count from JSON: a positive int (or a string of digits), else None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _llama_cpp(props: Any) -> Optional[int]:
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    return _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None


def _template_calls_tools(props: Dict[str, Any]) -> bool:
    """False only when /props says so in as many words: an older llama.cpp without
    chat_template_caps is given the benefit of the doubt."""
    caps = props.get("chat_template_caps")
    return not (isinstance(caps, dict) and caps.get("supports_tools") is False)


def _ollama(ask: Ask, model_id: str) -> Optional[int]:
    shown = ask("POST", "/api/show", {"model": model_id})
    if not isinstance(shown, dict) or "model_info" not in shown:
        return None
    window = _num_ctx(shown.get("parameters")) or _loaded_context(ask("GET", "/api/ps"), model_id) \
        or OLLAMA_DEFAULT_CONTEXT
    info = shown.get("model_info") or {}
    trained = [_positive(v) for k, v in info.items() if k.endswith(".context_length")]
    trained = [t for t in trained if t]
    return min([window] + trained)


def _num_ctx(parameters: Any) -> Optional[int]:
    """Ollama's parameters are text, one "name value" per line.

    Example: 'num_ctx                        8192\\nstop "<|im_end|>"' -> 8192
    """
    for line in (parameters or "").splitlines() if isinstance(parameters, str) else []:
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx":
            return _positive(value.strip())
    return None


def _loaded_context(running: Any, model_id: str) -> Optional[int]:
    """The context a running Ollama model was loaded with (/api/ps), if it is loaded."""
    names = {model_id, model_id if ":" in model_id else model_id + ":latest"}
    for model in running.get("models", []) if isinstance(running, dict) else []:
        if isinstance(model, dict) and (model.get("name") in names or model.get("model") in names):
            return _positive(model.get("context_length"))
    return None


def _lm_studio(ask: Ask, model_id: str) -> Optional[int]:
    listing = ask("GET", "/api/v0/models")
    for model in listing.get("data", []) if isinstance(listing, dict) else []:
        if isinstance(model, dict) and model.get("id") == model_id:
            return _positive(model.get("loaded_context_length"))
    return None
