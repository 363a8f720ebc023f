"""The API key through the command line: where it may go (only to the user's own
servers, whatever a session file records) and where it must never appear (stderr and
every file written, in any form a server may echo it)."""

import json
from urllib.parse import quote

import pytest

from fake_server import FakeServer
from helpers import call, run_cli
from miniagent.files import redaction
from test_cli_compaction import SUMMARY, configure
from test_cli_sessions import answer, session_files

USER_KEY = "sk-user-Qw7Zr4Tx9Lm2Vb8Nc5Hj"
KEY_HEADERS = ("authorization", "x-api-key")

PROTOCOLS = {  # provider -> (its key variable, its base-URL variable, the URL's suffix)
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""),
}


def record_session(tmp_path, provider, url):
    """A session whose recorded model points at `url`, as a shared file would."""
    key_variable, _, suffix = PROTOCOLS[provider]
    made = run_cli("--provider", provider, "--base-url", url + suffix, "--model", "m", "-p",
                   "one", cwd=str(tmp_path), env={key_variable: "sk-maker-key-000"})
    assert made.returncode == 0, made.stderr


def sent_keys(server):
    """The key headers of the last request the server received."""
    return {name: server.requests[-1]["headers"].get(name) for name in KEY_HEADERS}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("how", ["--session", "--fork"])
def test_a_shared_sessions_server_gets_no_key(tmp_path, private_home, provider, how):
    key_variable, _, _ = PROTOCOLS[provider]
    with FakeServer([answer("made"), answer("from the recorded server")]) as foreign:
        record_session(tmp_path, provider, foreign.base_url)
        [path] = session_files(private_home)
        result = run_cli(how, path, "-p", "two", cwd=str(tmp_path),
                         env={key_variable: USER_KEY})
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == "from the recorded server"
        assert len(foreign.requests) == 2
        assert sent_keys(foreign) == {"authorization": None, "x-api-key": None}
    said = [line for line in result.stderr.splitlines() if foreign.base_url in line]
    assert len(said) == 1 and "key" in said[0], result.stderr
    assert USER_KEY not in result.stderr


def test_a_key_on_the_command_line_is_not_sent_to_a_recorded_server(tmp_path, private_home):
    with FakeServer([answer("made"), answer("keyless")]) as foreign:
        made = run_cli("--base-url", foreign.base_url + "/v1", "--model", "m", "-p", "one",
                       cwd=str(tmp_path))
        assert made.returncode == 0, made.stderr
        result = run_cli("-c", "--api-key", USER_KEY, "-p", "two", cwd=str(tmp_path))
        assert result.returncode == 0 and result.stdout.strip() == "keyless", result.stderr
        assert sent_keys(foreign) == {"authorization": None, "x-api-key": None}
    assert "key" in result.stderr and foreign.base_url in result.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_users_configured_server_still_gets_the_key(tmp_path, private_home, provider):
    key_variable, url_variable, suffix = PROTOCOLS[provider]
    with FakeServer([answer("made"), answer("mine")]) as own:
        record_session(tmp_path, provider, own.base_url)
        [path] = session_files(private_home)
        result = run_cli("--session", path, "-p", "two", cwd=str(tmp_path),
                         env={key_variable: USER_KEY, url_variable: own.base_url + suffix})
        assert result.returncode == 0 and result.stdout.strip() == "mine", result.stderr
        expected = (f"Bearer {USER_KEY}" if provider == "openai" else USER_KEY)
        assert expected in sent_keys(own).values()
    assert "key" not in result.stderr


def test_a_key_from_models_json_goes_to_that_providers_own_url(tmp_path, private_home):
    with FakeServer([answer("made"), answer("own provider")]) as own:
        (private_home / "models.json").write_text(json.dumps({"providers": {"box": {
            "baseUrl": own.base_url + "/v1", "api": "openai-completions",
            "apiKey": "$BOX_KEY", "models": [{"id": "m"}]}}}))
        made = run_cli("--provider", "box", "-p", "one", cwd=str(tmp_path),
                       env={"BOX_KEY": USER_KEY})
        assert made.returncode == 0, made.stderr
        result = run_cli("-c", "-p", "two", cwd=str(tmp_path), env={"BOX_KEY": USER_KEY})
        assert result.returncode == 0 and result.stdout.strip() == "own provider", result.stderr
        assert sent_keys(own)["authorization"] == f"Bearer {USER_KEY}"


def test_an_old_style_key_name_in_models_json_is_sent_literally_and_says_so(tmp_path, private_home):
    with FakeServer([answer("ok")]) as own:
        (private_home / "models.json").write_text(json.dumps({"providers": {"box": {
            "baseUrl": own.base_url + "/v1", "apiKey": "BOX_KEY", "models": [{"id": "m"}]}}}))
        result = run_cli("--provider", "box", "-p", "one", cwd=str(tmp_path),
                         env={"BOX_KEY": USER_KEY})
        assert result.returncode == 0, result.stderr
        assert sent_keys(own)["authorization"] == "Bearer BOX_KEY"  # pi 1.6's reading
    assert ('miniagent: warning: models.json providers.box.apiKey "BOX_KEY" is now the key '
            'itself, not the variable BOX_KEY; write "$BOX_KEY" to read the variable'
            in result.stderr)


# --- Where the key must never appear ---------------------------------------------------

ODD_KEY = "sk-test/Ab+cD=eF9gH2jK4mN6pQ8rS1tU3vW5xY7z"  # "/", "+", "=": percent-encoded differ


def runs_of_the_key(text, key=ODD_KEY, run=12):
    """Every 12-character run of the key's secret (after its "sk-") that appears in the
    text (none may)."""
    secret = key[len("sk-"):]
    return sorted({secret[i:i + run] for i in range(len(secret) - run + 1)
                   if secret[i:i + run] in text})


def files_under(*folders):
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                yield path, path.read_text(errors="replace")


def echoes(key):
    """What a careless server says back: the key percent-encoded, and its random part."""
    return f"invalid key {quote(key, safe='')} (did you mean ...{key[9:27]}?)"


def test_a_server_echoing_the_key_in_a_401_leaves_no_run_of_it_anywhere(tmp_path,
                                                                        private_home):
    refused = {"fault": {"status": 401, "body": {"error": {"message": echoes(ODD_KEY)}}}}
    with FakeServer([refused]) as srv:
        result = run_cli("--base-url", srv.base_url + "/v1", "--model", "m", "--api-key",
                         ODD_KEY, "-p", "hi", cwd=str(tmp_path))
    assert result.returncode == 1 and "invalid key" in result.stderr, result.stderr
    assert runs_of_the_key(result.stderr) == []
    for path, text in files_under(tmp_path, private_home):
        assert runs_of_the_key(text) == [], path


def test_a_streamed_error_and_a_tool_output_leave_no_run_of_the_key_in_the_session(
        tmp_path, private_home):
    printed = {"content": [{"type": "toolCall", "name": "bash", "arguments": {
        "command": "echo \"$OPENAI_API_KEY\" | cut -c4-30; env | grep OPENAI_API"}}]}
    streamed = {"content": [{"type": "text", "text": "partly"}],
                "fault": {"in_band_error": {"type": "server_error", "message": echoes(ODD_KEY)}}}
    with FakeServer([printed] + [streamed] * 4) as srv:  # a 5xx-like error is retried
        result = run_cli("--provider", "openai", "--model", "gpt-4o-mini", "-p", "hi",
                         cwd=str(tmp_path), env={"OPENAI_API_KEY": ODD_KEY,
                                                 "OPENAI_BASE_URL": srv.base_url + "/v1",
                                                 "MINIAGENT_RETRY_BASE_DELAY": "0.01"})
        tool_output = srv.requests[1]["body"]["messages"][-1]["content"]
    assert ODD_KEY[3:30] in str(tool_output)  # the model saw what the command printed
    assert result.returncode == 1 and "invalid key" in result.stderr, result.stderr
    assert runs_of_the_key(result.stderr) == []
    [path] = session_files(private_home)
    text = open(path).read()
    assert "[redacted]" in text and runs_of_the_key(text) == []
    for line in text.splitlines():
        json.loads(line)  # redaction keeps every line valid JSON


# --- Redaction keeps the session's structure ---------------------------------------------

FOLDER_KEY = "sk-proj-widget-factory-lab-compaction-Qz8Rt5Wv"  # its folder's name, and a type
WITH_FOLDER_KEY = ("--provider", "fake", "--api-key", FOLDER_KEY)


def run_in(folder, *args):
    result = run_cli(*args, cwd=str(folder))
    assert result.returncode == 0, result.stderr
    return result


def test_a_key_holding_compaction_and_its_folder_resumes_compacts_and_forks_as_any_other(
        tmp_path, private_home, monkeypatch):
    monkeypatch.setattr(redaction, "_needles", frozenset())  # only this test's key
    project = tmp_path / "widget-factory-lab"
    project.mkdir()
    (project / "notes.py").write_text("PREFIX = 'sk-proj-'\nold = 'compaction-Qz8Rt5Wv'\n")
    turns = [{"content": [call("read", path="notes.py")]},
             answer("read it", input=17000, output=10),  # most of the window: compact next
             answer(SUMMARY), answer("two"), answer("three")]
    with FakeServer(turns) as srv:
        configure(private_home, srv)
        run_in(project, *WITH_FOLDER_KEY, "-p", "read notes.py")
        run_in(project, *WITH_FOLDER_KEY, "-c", "-p", "next")  # compacts first, from the file
        [source] = session_files(private_home)
        entries = [json.loads(line) for line in open(source)]
        run_in(project, *WITH_FOLDER_KEY, "--fork", f"{source}:{entries[-1]['id']}", "-p", "other")
        summarized, forked = srv.requests[2]["body"], srv.requests[4]["body"]
    # The model saw the file as it is: the prefix kept, only the key's run redacted.
    assert "PREFIX = 'sk-proj-'\\nold = '[redacted]'" in json.dumps(summarized)
    kinds = [entry["type"] for entry in entries]
    assert kinds[0] == "session" and "compaction" in kinds and "[redacted]" not in kinds
    assert entries[0]["cwd"] == str(project)
    # The fork knows it was compacted: the summary, not the old turns, opens its context.
    sent = json.dumps(forked["messages"])
    assert "Keep the facts." in sent and "read notes.py" not in sent
    [fork] = [path for path in session_files(private_home) if path != source]
    header = json.loads(open(fork).readline())
    assert header["cwd"] == str(project) and header["parentSession"] == source
    listed = json.loads(run_in(project, "sessions", "--json").stdout)
    assert sorted(item["file"] for item in listed) == sorted([source, fork])
    assert {item["cwd"] for item in listed} == {str(project)}
    stats = json.loads(run_in(project, "stats", source, fork, "--json").stdout)
    assert stats["total"]["toolCalls"] == {"read": 2}  # the fork holds the read too
    run_in(project, "export", source, "-o", str(private_home / "page.html"))
    assert "Keep the facts." in (private_home / "page.html").read_text()
    for path, text in files_under(private_home):  # the sessions, the page
        assert FOLDER_KEY not in text and "compaction-Qz8Rt5Wv" not in text, path
