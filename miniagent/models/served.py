"""What a server serves: asking an OpenAI-compatible server for its list of models.

Every OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, a proxy) answers
GET {base}/models with {"data": [{"id": ...}, ...]}. This module asks, once, with a
time limit, and says why when no model came back: nobody answered (refused, unknown
host, timed out), or the server answered without a list. Three callers use the one
question:

    models/choose.py     a server named without --model runs its first model
    models/available.py  the models /model and rpc's get_available_models offer
    (the window a server serves is another question: models/window.py)

Left out: the other fields servers add to each model (owned_by, created, their own
context sizes); only the ids are read.
"""

from typing import List, Optional

from ..http.errors import connection_reason, http_error_message
from ..files.text import one_line


class ProbeFailed(Exception):
    """GET {base}/models gave no model id. `reason` says why in a few words; `reachable`
    tells a server that answered (an error status, an empty list) from one that did not
    (connection refused, unknown host, timed out)."""

    def __init__(self, reason: str, reachable: bool):
        super().__init__(reason)
        self.reason = reason
        self.reachable = reachable


def served_models(base_url: str, api_key: Optional[str], timeout: float) -> List[str]:
    """The model ids the server at base_url serves, in its order (never empty).
    Raises ProbeFailed, e.g. ("connection refused", reachable=False) or
    ("it answered 401 Invalid API key", reachable=True)."""
    import requests  # here, not at the top: --help, --version and --list-models never load it

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = requests.get(f"{base_url.rstrip('/')}/models", headers=headers,
                                timeout=timeout)
    except requests.Timeout:  # before ConnectionError: a connect timeout is both
        raise ProbeFailed(f"timed out: no answer within {timeout:g} s", False) from None
    except requests.ConnectionError as exc:
        raise ProbeFailed(connection_reason(exc), False) from None
    except (requests.RequestException, ValueError) as exc:  # a URL requests cannot use
        raise ProbeFailed(one_line(str(exc), 200), False) from None
    if response.status_code != 200:
        answer = http_error_message(response.status_code, response.text)
        raise ProbeFailed(f"it answered {answer}", True)
    try:
        ids = [str(model["id"]) for model in response.json()["data"]]
    except (ValueError, KeyError, TypeError):  # a server's reply is foreign data
        raise ProbeFailed("its answer is not a list of models", True) from None
    if not ids:
        raise ProbeFailed("its list of models is empty", True)
    return ids


def first_model(base_url: str, api_key: Optional[str], timeout: float) -> str:
    """The first model the server serves (what it runs when it is not told a model)."""
    return served_models(base_url, api_key, timeout)[0]


def probe_first_model(base_url: str, api_key: Optional[str] = None,
                      timeout: float = 0.5) -> Optional[str]:
    """first_model, or None if nobody answers in time (or with a model). Never raises:
    for looking around, such as for an Ollama nobody configured."""
    try:
        return first_model(base_url, api_key, timeout)
    except ProbeFailed:
        return None
