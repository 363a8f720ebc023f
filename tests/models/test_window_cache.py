"""windows.json: remembered per server and model, bounded, and never fatal."""

import json

from miniagent.models import window_cache
from miniagent.models.window_cache import (MAX_ENTRIES, first_warning, forget_window,
                                           known_window, remember_window)

URL = "http://127.0.0.1:8080/v1"


def test_an_answer_is_remembered_per_server_and_model():
    remember_window(URL + "/", "qwen", 4096)  # a trailing slash names the same server
    assert known_window(URL, "qwen") == 4096
    assert known_window(URL, "llama") is None
    assert known_window("http://127.0.0.1:8081/v1", "qwen") is None


def test_forgetting_drops_only_that_entry():
    remember_window(URL, "qwen", 4096)
    remember_window(URL, "llama", 8192)
    forget_window(URL, "qwen")
    forget_window(URL, "never-asked")  # nothing to drop
    assert known_window(URL, "qwen") is None and known_window(URL, "llama") == 8192


def test_the_file_keeps_the_most_recently_asked_entries(private_home, monkeypatch):
    clock = iter(range(1, MAX_ENTRIES + 10))
    monkeypatch.setattr(window_cache, "now_ms", lambda: next(clock) * 1000)
    for number in range(MAX_ENTRIES + 5):
        remember_window(URL, f"model-{number}", 4096)
    kept = json.loads((private_home / "windows.json").read_text())
    assert len(kept) == MAX_ENTRIES
    assert f"{URL} model-4" not in kept and f"{URL} model-5" in kept  # the oldest dropped


def test_a_home_that_cannot_be_written_only_costs_asking_again(private_home):
    (private_home / "windows.json").mkdir()  # the rename over it fails
    remember_window(URL, "qwen", 4096)
    assert known_window(URL, "qwen") is None


def test_a_models_warning_is_said_once_and_stays_said_when_the_window_is_asked_again():
    assert first_warning(URL, "qwen") is True  # a server never asked: no window kept
    assert known_window(URL, "qwen") is None  # so it is still asked
    assert first_warning(URL, "qwen") is False
    remember_window(URL, "qwen", 0)  # asked again a day later
    assert first_warning(URL, "qwen") is False and known_window(URL, "qwen") == 0
    assert first_warning(URL, "llama") is True  # another model: its own warning
