"""Asking a local server what window it serves: llama.cpp, Ollama, LM Studio, and
silence when nobody answers."""

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from helpers import FIXTURES
from miniagent.models.window import (OLLAMA_DEFAULT_CONTEXT, Served, probe_context_window,
                                     probe_server, server_root)


class Server:
    """Answers "METHOD /path" from a table of JSON bodies (a str is sent as it is, an
    Event means: stay silent until it is set); anything else is a 404. Records the
    requests it got."""

    def __init__(self, routes):
        self.routes = routes
        self.requests = []
        self.authorizations = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self):
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                server.requests.append((self.command, self.path, body))
                server.authorizations.append(self.headers.get("authorization"))
                reply = server.routes.get(f"{self.command} {self.path}")
                if isinstance(reply, threading.Event):  # a server that never answers
                    reply.wait(30)
                    return
                if reply is None:
                    self.send_response(404)
                    self.end_headers()
                    return
                data = (reply if isinstance(reply, str) else json.dumps(reply)).encode()
                self.send_response(200)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def ollama_show(parameters="", trained=131072):
    return {"parameters": parameters, "template": "{{ .Prompt }}",
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": trained}}


def test_llama_cpp_reports_the_served_n_ctx_from_props():
    props = (FIXTURES / "llama-server" / "capture-props.json").read_text()  # a real /props
    with Server({"GET /props": props}) as base_url:
        assert probe_context_window(base_url, "tiny-random-llama") == 4096


def test_llama_cpp_props_say_whether_the_chat_template_can_call_tools():
    props = json.loads((FIXTURES / "llama-server" / "capture-props.json").read_text())
    with Server({"GET /props": props}) as base_url:
        assert probe_server(base_url, "tiny-random-llama") == Served(4096, tools=True)
    props["chat_template_caps"]["supports_tools"] = False  # SmolLM2's template has none
    with Server({"GET /props": props}) as base_url:
        assert probe_server(base_url, "tiny-random-llama") == Served(4096, tools=False)
    del props["chat_template_caps"]  # an older llama.cpp does not say: no warning
    with Server({"GET /props": props}) as base_url:
        assert probe_server(base_url, "tiny-random-llama") == Served(4096, tools=True)


def test_ollama_num_ctx_from_the_model_parameters_wins():
    show = ollama_show('num_ctx                        8192\nstop                           "<|im_end|>"')
    server = Server({"POST /api/show": show, "GET /api/ps": {"models": [
        {"name": "qwen2.5-coder:7b", "model": "qwen2.5-coder:7b", "context_length": 32768}]}})
    with server as base_url:
        assert probe_context_window(base_url, "qwen2.5-coder:7b") == 8192
    assert ("POST", "/api/show", {"model": "qwen2.5-coder:7b"}) in server.requests


def test_ollama_without_num_ctx_uses_the_loaded_context_then_the_default():
    running = {"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest",
                           "context_length": 32768}]}
    with Server({"POST /api/show": ollama_show(), "GET /api/ps": running}) as base_url:
        assert probe_context_window(base_url, "llama3.2") == 32768  # ":latest" implied
        assert probe_context_window(base_url, "qwen3:8b") == OLLAMA_DEFAULT_CONTEXT == 4096


def test_ollama_never_reports_more_than_the_trained_length():
    show = ollama_show("num_ctx 65536", trained=32768)
    with Server({"POST /api/show": show}) as base_url:
        assert probe_context_window(base_url, "small") == 32768


def test_lm_studio_reports_the_loaded_context_length_of_that_model():
    listing = {"object": "list", "data": [
        {"id": "other", "state": "loaded", "max_context_length": 131072,
         "loaded_context_length": 8192},
        {"id": "qwen2.5-7b-instruct", "state": "loaded", "max_context_length": 32768,
         "loaded_context_length": 16384},
        {"id": "idle", "state": "not-loaded", "max_context_length": 32768}]}
    with Server({"GET /api/v0/models": listing}) as base_url:
        assert probe_context_window(base_url, "qwen2.5-7b-instruct") == 16384
        assert probe_context_window(base_url, "idle") is None  # not loaded: it will not say


def test_a_server_that_knows_none_of_the_endpoints_is_silence():
    server = Server({"GET /v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 4096}}]},
                     "GET /props": "<html>not json</html>"})
    with server as base_url:
        assert probe_context_window(base_url, "m") is None
    assert [path for _, path, _ in server.requests] == ["/props", "/api/show", "/api/v0/models"]


def test_a_refused_connection_is_silence():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens once the socket is closed
    assert probe_context_window(f"http://127.0.0.1:{port}/v1", "m") is None


def test_a_silent_server_is_given_up_on_within_the_time_limit():
    import time
    silent = threading.Event()
    with Server({"GET /props": silent}) as base_url:
        started = time.monotonic()
        assert probe_context_window(base_url, "m", timeout=0.3) is None
        took = time.monotonic() - started
        silent.set()
    assert took < 5  # a wide bound: the point is that it does not wait 30 s


def test_the_api_key_is_sent_when_given():
    server = Server({"GET /props": {"default_generation_settings": {"n_ctx": 2048}}})
    with server as base_url:
        assert probe_context_window(base_url, "m", api_key="sk-test") == 2048
        assert probe_context_window(base_url, "m") == 2048
    assert server.authorizations == ["Bearer sk-test", None]


def test_the_base_url_loses_its_version_path():
    assert server_root("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080"
    assert server_root("http://127.0.0.1:11434") == "http://127.0.0.1:11434"


def test_importing_the_module_does_not_import_requests():
    import subprocess
    code = "import sys, miniagent.models.window; print('requests' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
