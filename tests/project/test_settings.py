"""settings.json: global and (trusted) project files, merged one level deep, checked."""

import json

import pytest

from miniagent.errors import ConfigError
from miniagent.compaction.estimate import CompactionSettings
from miniagent.project.settings import Settings, load_settings, project_config_dir


@pytest.fixture
def dirs(tmp_path):
    home = tmp_path / "me" / ".miniagent"
    project = tmp_path / "app"
    (project / ".miniagent").mkdir(parents=True)
    home.mkdir(parents=True)
    return home, project


def write(path, data):
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def test_no_files_give_the_defaults(dirs):
    home, project = dirs
    assert load_settings(home, str(project), trusted=True) == Settings()
    assert Settings().compaction == CompactionSettings(True, None, None)  # scales with the window


def test_the_project_wins_one_level_deep_when_trusted(dirs):
    home, project = dirs
    write(home / "settings.json", {
        "defaultProvider": "ollama", "defaultModel": "qwen3:8b", "tools": ["read", "bash"],
        "compaction": {"enabled": False, "keepRecentTokens": 5000}, "theme": "dark"})
    write(project / ".miniagent" / "settings.json", {
        "defaultModel": "llama3", "tools": ["read"], "compaction": {"reserveTokens": 4000},
        "shellPath": "/bin/zsh"})
    settings = load_settings(home, str(project), trusted=True)
    assert settings.defaultProvider == "ollama"  # only the global file sets it
    assert settings.defaultModel == "llama3" and settings.tools == ["read"]
    assert settings.shellPath == "/bin/zsh"
    assert settings.compaction == CompactionSettings(enabled=False, reserve_tokens=4000,
                                                     keep_recent_tokens=5000)


def test_an_untrusted_projects_file_is_not_read(dirs):
    home, project = dirs
    write(home / "settings.json", {"shellPath": "/bin/bash"})
    write(project / ".miniagent" / "settings.json", {"shellPath": "/tmp/evil"})
    assert load_settings(home, str(project), trusted=False).shellPath == "/bin/bash"


def test_in_the_home_directory_its_folder_is_read_once_as_global(tmp_path):
    home = tmp_path / ".miniagent"
    home.mkdir()
    write(home / "settings.json", {"defaultModel": "m"})
    assert project_config_dir(str(tmp_path), home) is None
    assert load_settings(home, str(tmp_path), trusted=False).defaultModel == "m"


@pytest.mark.parametrize("content, message", [
    ({"defaultThinkingLevel": "ultra"},  # pi 1.6's levels go up to "max"
     "defaultThinkingLevel must be one of off, minimal, low, medium, high, xhigh, max "
     "(got \"ultra\")"),
    ({"compaction": {"reserveTokens": "big"}},
     "compaction.reserveTokens must be an integer >= 0 (got \"big\")"),
    ({"compaction": {"enabled": 1}}, "compaction.enabled must be true or false (got 1)"),
    ({"tools": "read,bash"}, "tools must be a list of tool names (got \"read,bash\")"),
    ({"defaultModel": ""}, "defaultModel must be a non-empty string (got \"\")"),
    ([1, 2], "the file must be an object (got [1, 2])"),
    # The column differs: Python 3.13 names the comma, older versions the brace.
    ('{"defaultModel": "m",}', "invalid JSON at line 1, column "),
])
def test_a_mistake_is_one_line_naming_the_file_and_field(dirs, content, message):
    home, project = dirs
    write(project / ".miniagent" / "settings.json", content)
    with pytest.raises(ConfigError) as caught:
        load_settings(home, str(project), trusted=True)
    text = str(caught.value)
    assert text.startswith(f"{project / '.miniagent' / 'settings.json'}: ")
    assert message in text and "\n" not in text


def test_the_users_file_sets_the_sandbox_and_a_trusted_project_may_only_narrow_it(dirs):
    from miniagent.project.settings import SandboxSettings
    home, project = dirs
    write(home / "settings.json", {"sandbox": {"mode": "workspace",
                                              "writableRoots": ["/data", "/cache"]}})
    write(project / ".miniagent" / "settings.json", {"sandbox": {
        "mode": "read-only", "writableRoots": ["/data"], "network": False}})
    settings = load_settings(home, str(project), trusted=True)
    assert settings.sandbox == SandboxSettings("read-only", ["/data"], False)
    assert settings.warnings == []


def test_a_project_asking_to_widen_the_sandbox_is_ignored_with_one_warning(dirs):
    from miniagent.project.settings import SandboxSettings
    home, project = dirs
    write(home / "settings.json", {"sandbox": {"mode": "workspace", "writableRoots": ["/data"]}})
    write(project / ".miniagent" / "settings.json", {"sandbox": {
        "mode": "off", "writableRoots": ["/data", "/home/me/.ssh"], "network": True}})
    settings = load_settings(home, str(project), trusted=True)
    assert settings.sandbox == SandboxSettings("workspace", ["/data"], None)
    assert settings.warnings == [
        f"{project / '.miniagent' / 'settings.json'}: sandbox mode 'off', root "
        f"/home/me/.ssh, network true ignored: a project may only narrow the sandbox"]
    assert load_settings(home, str(project), trusted=False).warnings == []


def test_a_bad_sandbox_setting_names_the_field(dirs):
    home, project = dirs
    write(home / "settings.json", {"sandbox": {"mode": "sometimes"}})
    with pytest.raises(ConfigError, match=r"sandbox.mode must be one of off, read-only, "
                                          r"workspace \(got \"sometimes\"\)"):
        load_settings(home, str(project), trusted=True)
