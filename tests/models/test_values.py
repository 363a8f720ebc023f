"""models.json values as pi 1.6 reads them: literal, $NAME / ${NAME}, !command."""

from miniagent.models.values import legacy_warning, resolve_value, variables_named

ENV = {"KEY": "abc", "BLANK": "  "}


def test_a_plain_value_is_the_value_itself_even_in_capitals():
    assert resolve_value("sk-local-123", ENV) == "sk-local-123"
    assert resolve_value("KEY", ENV) == "KEY"


def test_dollar_names_read_the_environment():
    assert resolve_value("$KEY", ENV) == "abc"
    assert resolve_value("${KEY}", ENV) == "abc"
    assert resolve_value("Bearer $KEY!", ENV) == "Bearer abc!"


def test_an_unset_or_blank_variable_leaves_the_value_unresolved():
    assert resolve_value("$MISSING", ENV) is None
    assert resolve_value("x-${BLANK}", ENV) is None
    assert resolve_value(None, ENV) is None and resolve_value("", ENV) is None


def test_unset_ok_reads_an_unset_variable_as_empty_text():
    # MCP's env and headers (mcp/config.py): a server often runs fine without one
    assert resolve_value("Bearer ${MISSING}", ENV, unset_ok=True) == "Bearer "
    assert resolve_value("$KEY-$BLANK", ENV, unset_ok=True) == "abc-"


def test_escapes_give_a_literal_dollar_and_bang():
    assert resolve_value("cost$$5", ENV) == "cost$5"
    assert resolve_value("$!not-a-command", ENV) == "!not-a-command"
    assert resolve_value("$ alone and ${bad name}", ENV) == "$ alone and ${bad name}"


def test_a_leading_bang_runs_a_command_and_takes_its_output():
    assert resolve_value("!echo '  from-cmd  '", ENV) == "from-cmd"
    assert resolve_value("!exit 3", ENV) is None
    assert resolve_value("!printf ''", ENV) is None


def test_the_variables_a_value_reads_are_named_for_hints():
    assert variables_named("$A-${B}") == ["A", "B"]
    assert variables_named("!echo $A") == [] and variables_named("plain") == []


def test_only_a_set_old_style_name_gets_the_warning():
    assert "write \"$KEY\"" in legacy_warning("KEY", ENV, "providers.p.apiKey")
    assert legacy_warning("MISSING", ENV, "providers.p.apiKey") is None
    assert legacy_warning("$KEY", ENV, "providers.p.apiKey") is None
    assert legacy_warning("sk-lower", ENV, "providers.p.apiKey") is None
