"""`miniagent export`: a session as one self-contained web page, read in a real browser."""

import base64
import hashlib
import html
import re
import shutil
import subprocess

import pytest

from helpers import FIXTURES, call, find_chromium_or_skip, text
from miniagent.subcommands.dispatch import export_command as main
from miniagent.subcommands.export import export_html, export_markdown, render_html
from miniagent.errors import ExportError
from miniagent.files import redaction
from miniagent.files.redaction import add_secret
from miniagent.core.messages import assistant_message, tool_result_message, user_message
from miniagent.session.tree import Session

V1 = FIXTURES / "pi-sessions/pi-v1-before-compaction.jsonl"
V3 = FIXTURES / "pi-run/pi-0.73.1/print.session.jsonl"
HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def reply(*blocks, cost=0.0, **fields):
    message = assistant_message("openai-completions", "openai", "gpt-4.1-mini", **fields)
    message["content"] = list(blocks)
    message["usage"].update(input=1200, output=80)
    message["usage"]["cost"]["total"] = cost
    return message


def page_text(page):
    """The page's text without its tags (what a reader of the source would find)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def copy_fixture(source, tmp_path, name="session.jsonl"):
    target = tmp_path / name
    shutil.copy(source, target)
    return target


# --- What the page holds ---------------------------------------------------------------------


def test_the_pi_v1_fixture_becomes_a_page_beside_it_with_its_compactions(tmp_path, capsys):
    source = copy_fixture(V1, tmp_path)
    before = source.read_bytes()
    assert main([str(source)]) == 0
    written = tmp_path / "session.html"
    assert capsys.readouterr().out == f"{written}\n"
    page = written.read_text()
    assert page.count('class="band compaction"') == 2
    assert "alright, read @packages/coding-agent/src/main.ts" in page_text(page)
    assert "anthropic/claude-opus-4-5" in page and "$0.0174" in page  # the first reply's cost
    assert source.read_bytes() == before  # a pi file is only read


def test_a_pi_v3_file_shows_calls_with_arguments_and_folds_the_results(tmp_path):
    page = (tmp_path / "out.html")
    export_html(str(V3), str(page))
    shown = page.read_text()
    assert '<span class="tool">edit</span>' in shown
    assert '<span class="del">-return &quot;Hello, &quot; + name</span>' in shown  # a diff, not JSON
    assert '<details class="result"><summary>read result: Project notes</summary>' in shown
    assert "prompts 1 · replies 4 · tool calls 4 · tool errors 0" in shown


def entries_of(*messages):
    """Message entries in a chain, for render_html."""
    return [{"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None,
             "timestamp": "2026-01-01T00:00:00.000Z", "message": message}
            for i, message in enumerate(messages)]


HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z",
          "cwd": "/p"}


def test_answers_are_rendered_from_markdown_and_prompts_shown_as_typed():
    page = render_html(HEADER, entries_of(
        user_message("**as typed**"),
        reply(text("## Done\n- fixed `a.py`\n\n[x](javascript:alert(1)) " + HOSTILE))))
    assert "**as typed**" in page
    assert "<h4>Done</h4>" in page and "<ul><li>fixed <code>a.py</code></li></ul>" in page
    assert "[x](javascript:alert(1))" in page and "href=\"javascript" not in page
    assert "<script>alert" not in page and "<img" not in page


def test_each_edit_is_a_diff_in_either_argument_shape():
    edits = {"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"},
                                       {"oldText": "y = 1\n", "newText": ""}]}
    legacy = {"path": "b.py", "oldText": "old", "newText": "new"}
    page = render_html(HEADER, entries_of(reply(call("edit", **edits)),
                                          reply(call("edit", **legacy))))
    assert "a.py · 2 edits" in page and page.count('<span class="file">--- a/a.py</span>') == 1
    assert '<span class="del">-x = 1</span>\n<span class="add">+x = 2</span>' in page
    assert '<span class="del">-y = 1</span>' in page
    assert "b.py · 1 edit" in page and '<span class="add">+new</span>' in page


def test_a_pi_system_message_shows_its_sections_and_tools_folded():
    system = {"role": "system", "content": "", "timestamp": 1,
              "sections": {"preamble": "You are " + HOSTILE, "cwd": "/p", "skills": None},
              "toolsAdded": [{"name": "read", "description": "Read a file",
                              "parameters": {"type": "object"}}],
              "toolsRemoved": [{"name": "write"}]}
    page = render_html(HEADER, entries_of(system, user_message("hi")))
    assert '<details class="system"><summary>System prompt and tools: 3 sections</summary>' in page
    assert "<summary>preamble</summary><pre>You are &lt;script&gt;" in page
    assert "<summary>skills (removed)</summary>" in page
    assert "<summary>tool + read</summary><pre>Read a file" in page
    assert "tools removed: write" in page
    assert "System prompt" not in render_html(HEADER, entries_of(user_message("hi")))


def test_a_cancelled_user_command_says_cancelled_not_exit_none():
    run = {"role": "bashExecution", "command": "sleep 99", "output": "", "exitCode": None,
           "cancelled": True, "truncated": False, "timestamp": 1}
    done = {**run, "command": "true", "exitCode": 0, "cancelled": False}
    page = render_html(HEADER, entries_of(run, done))
    assert "! sleep 99 · cancelled" in page and "! true · exit 0" in page
    assert "None" not in page


def test_a_header_only_session_is_a_page_that_says_so(tmp_path, capsys):
    source = tmp_path / "new.jsonl"
    source.write_text(V3.read_text().split("\n")[0] + "\n")
    assert main([str(source), "-o", str(tmp_path / "page.html")]) == 0
    assert "only its header" in (tmp_path / "page.html").read_text()


def branched_session(tmp_path):
    session = Session.create(str(tmp_path), session_dir=str(tmp_path))
    session.append_message(user_message("fix the bug"))
    fork = session.append_message(reply(text("Which way?")))
    session.append_message(user_message("try plan A"))
    session.append_message(reply(text("A failed.")))
    session.branch_with_summary(fork, "Plan A failed: the tests broke.")
    session.append_label(fork, "before the plans")
    session.append_message(user_message("try plan B"))
    session.append_message(reply(text("B works."), cost=0.0042))
    return session


def test_branches_are_sections_and_the_one_the_session_ended_on_is_open(tmp_path):
    session = branched_session(tmp_path)
    page = render_html(session.header, session.entries)
    branches = re.findall(r'<details class="branch"( open)?><summary>([^<]*)</summary>', page)
    assert branches == [("", "Branch 1 of 2: try plan A"),
                        (" open", "Branch 2 of 2 (where the session ended): try plan B")]
    assert "Plan A failed: the tests broke." in page  # the summary, where it happened
    assert '<span class="label">before the plans</span>' in page
    assert "$0.0042" in page


def test_hostile_text_is_shown_as_text_and_never_becomes_markup(tmp_path):
    session = Session.create(HOSTILE, session_dir=str(tmp_path))
    session.append_message(user_message(HOSTILE))
    session.append_message(reply(text(HOSTILE), {"type": "thinking", "thinking": HOSTILE},
                                 call("bash", command=HOSTILE, **{HOSTILE: HOSTILE})))
    session.append_message(tool_result_message("c1", HOSTILE, [text(HOSTILE)], True))
    session.append_label(session.leaf_id, HOSTILE)
    session.append_session_info(HOSTILE)
    page = render_html(session.header, session.entries)
    assert page.count("<script>") == 1  # ours, at the end
    assert "<img" not in page and "onerror=\"" not in page
    assert page_text(page).count(HOSTILE) >= 8


def test_a_torn_line_is_skipped_with_a_warning_naming_it(tmp_path, capsys):
    source = copy_fixture(V3, tmp_path)
    with open(source, "a") as file:
        file.write('{"type":"mess')
    assert main([str(source)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"miniagent export: {source}:13: skipped a malformed line\n"
    assert "notes.txt" in (tmp_path / "session.html").read_text()


def test_where_the_sessions_folder_cannot_be_written_the_page_goes_here(tmp_path, monkeypatch):
    (tmp_path / "sessions").mkdir()
    source = copy_fixture(V3, tmp_path / "sessions")
    (tmp_path / "sessions" / "session.html").mkdir()  # taken: even root cannot write there
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert export_html(str(source)) == str(here / "session.html")
    assert "notes.txt" in (here / "session.html").read_text()


@pytest.mark.parametrize("content", ["{}\n", None])
def test_a_file_that_is_no_session_is_one_line_and_exit_1(tmp_path, capsys, content):
    source = tmp_path / "x.jsonl"
    if content is not None:
        source.write_text(content)
    assert main([str(source)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and str(source) in captured.err
    assert not (tmp_path / "x.html").exists()


def test_nan_and_infinite_usage_figures_count_as_unknown_not_a_crash(tmp_path, capsys):
    # Python's json reads NaN and Infinity tokens, so a hand-edited file can hold them.
    session = branched_session(tmp_path)
    lines = open(session.path).read().replace('"input":1200', '"input":NaN')
    lines = lines.replace('"output":80', '"output":Infinity').replace('"total":0.0042', '"total":NaN')
    session_file = tmp_path / "odd.jsonl"
    session_file.write_text(lines + '{"type":"compaction","id":"c1","parentId":null,"timestamp":'
                            '"2026-01-01T00:00:00Z","summary":"s","firstKeptEntryId":"x",'
                            '"tokensBefore":-Infinity}\n')
    assert main([str(session_file), "-o", str(tmp_path / "page.html")]) == 0
    page = page_text((tmp_path / "page.html").read_text())
    assert "0 in · 0 out · 0 cached · $0.0000" in page
    assert "Compacted here · 0 tokens before" in page
    assert not re.search(r"\b(nan|inf)\b", page, re.IGNORECASE)


def test_a_page_that_cannot_be_written_is_an_export_error(tmp_path):
    with pytest.raises(ExportError, match=r"cannot write .*nowhere/page.html: No such file"):
        export_html(str(V3), str(tmp_path / "nowhere" / "page.html"))


def test_the_markdown_transcript_reads_as_a_conversation(tmp_path):
    session = branched_session(tmp_path)
    session.append_message(reply(call("bash", command="echo ```")))
    session.append_message(tool_result_message("c1", "bash", [text("```\nhi")], False))
    path = export_markdown(session.get_branch(), str(tmp_path / "t.md"))
    transcript = open(path).read()
    assert "## You\n\ntry plan B" in transcript and "try plan A" not in transcript
    assert "Plan A failed" in transcript and "B works." in transcript
    assert "**bash result:**\n\n````\n```\nhi\n````" in transcript  # a fence longer than the text's



def test_a_page_made_from_memory_has_no_key_and_keeps_its_folder(tmp_path, monkeypatch):
    """The REPL's /export renders the entries it holds, where the key is still whole."""
    monkeypatch.setattr(redaction, "_needles", frozenset())
    key = "sk-proj-keys-lab-Hq3Vb9Xk2Lw8Rt5"
    add_secret(key)
    cwd = tmp_path / "keys-lab-Hq3Vb9"  # the folder shares 12 characters with the key
    session = Session.create(str(cwd), session_dir=str(tmp_path))
    session.append_message(user_message("what is in .env?"))
    session.append_message(tool_result_message("c1", "read", [text(f"KEY={key}")], False))
    page = page_text(render_html(session.header, session.entries))
    transcript = open(export_markdown(session.get_branch(), str(tmp_path / "t.md"))).read()
    for written in (page, transcript):
        assert "KEY=[redacted]" in written and "Hq3Vb9Xk2Lw8" not in written
    assert str(cwd) in page  # the project row: a folder, not a secret

# --- What a person sees in a browser --------------------------------------------------------

# Appended to a copy of the page: it records the page's visible text (innerText leaves
# out folded <details>) and whether anything is wider than the window, presses "Unfold
# all", and records the text again.
PROBE = ("function keep(id,text){var pre=document.createElement('pre');pre.id=id;"
         "pre.textContent=text;return pre;}var root=document.documentElement;"
         "var folded=keep('folded',document.body.innerText);"
         "var wide=keep('wide',String(root.scrollWidth>root.clientWidth));"
         "document.querySelector('button[data-open]').click();"
         "var unfolded=keep('unfolded',document.body.innerText);"
         "document.body.append(folded,wide,unfolded);")


def visible_text(page_path, tmp_path):
    """What headless Chromium shows of the page: {"folded": text, "wide": "true" when it
    needs sideways scrolling, "unfolded": text after "Unfold all", "title": ...}."""
    browser = find_chromium_or_skip()
    page = page_path.read_text()
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    page = page.replace("script-src '", f"script-src 'sha256-{digest}' '", 1)
    # An injected script the page's policy does not name: it must not run.
    page = page.replace("</body>", f"<script>document.title='injected'</script><script>{PROBE}</script></body>")
    probe = tmp_path / "probe.html"
    probe.write_text(page)
    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                             "--window-size=1000,1500",
                             f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                             probe.as_uri()], capture_output=True, text=True, timeout=60)
    dom = result.stdout
    shown = {name: html.unescape(re.search(f'<pre id="{name}">(.*?)</pre>', dom, re.S).group(1))
             for name in ("folded", "wide", "unfolded")}
    shown["title"] = re.search("<title>(.*?)</title>", dom).group(1)
    return shown


def test_chromium_shows_the_prompt_a_tool_call_and_the_cost_of_the_v1_fixture(tmp_path):
    page = tmp_path / "v1.html"
    export_html(str(V1), str(page))
    shown = visible_text(page, tmp_path)
    folded = shown["folded"]
    assert "You 22:41:05\nalright, read @packages/coding-agent/src/main.ts" in folded
    assert "read\npath\n/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts" in folded
    assert "2,775 in · 141 out · 0 cached · $0.0174" in folded
    result_line = 'import { ProcessTerminal, TUI } from "@mariozechner/pi-tui";'
    assert result_line not in folded and result_line in shown["unfolded"]  # results start folded
    assert shown["wide"] == "false"  # long lines wrap: no sideways scrolling
    assert shown["title"].startswith("Session ffae836b")  # the injected script did not run


def test_chromium_shows_markdown_as_formatted_text_and_folds_the_system_prompt(tmp_path):
    system = {"role": "system", "content": "", "timestamp": 1,
              "sections": {"preamble": "You are a careful assistant."}, "toolsAdded": []}
    answer_text = "**Fixed** the *bug*:\n\n```\nprint(1)\n```\n[more](#top)"
    page = tmp_path / "md.html"
    page.write_text(render_html(HEADER, entries_of(system, user_message("fix"),
                                                   reply(text(answer_text)))))
    shown = visible_text(page, tmp_path)
    assert "Fixed the bug:\n\nprint(1)\n\nmore" in shown["folded"] and "**" not in shown["folded"]
    assert "careful assistant" not in shown["folded"]  # the prompt starts folded
    assert "careful assistant" in shown["unfolded"]
    assert shown["title"] == "Session s1"  # the page's policy still runs only its own script


def test_bidirectional_overrides_cannot_reorder_the_figures(tmp_path):
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": "/"}
    reply = assistant_message("openai-completions", "evil\u202eprovider", "m\u2066x")
    entry = {"type": "message", "id": "a1", "parentId": None,
             "timestamp": "2026-01-01T00:00:01.000Z", "message": reply}
    page = render_html(header, [entry])
    assert "\u202e" not in page and "\u2066" not in page


def test_control_characters_bidi_marks_and_lone_surrogates_never_reach_the_page(tmp_path):
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z",
              "cwd": "/"}
    hostile = "a\x00b\x1b[31mc\x07\x7fd\x85e\x9bf\u200eg\u200fh\u061ci\ud800j\tk\nl"
    reply = assistant_message("openai-completions", "evil\u200fprovider", "m\u061cx")
    reply["content"] = [{"type": "text", "text": hostile}]
    entry = {"type": "message", "id": "a1", "parentId": None,
             "timestamp": "2026-01-01T00:00:01.000Z", "message": reply}
    page = render_html(header, [entry])
    kept = {"\t", "\n"}
    raw = {ch for ch in page if (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0) and ch not in kept}
    assert raw == set()
    assert not {"\u200e", "\u200f", "\u061c", "\ud800"} & set(page)
    assert "a\u2400b\u241b[31mc\u2407\u2421d\ufffde\ufffdf\ufffdg\ufffdh\ufffdi\ufffdj\tk<br>\nl" \
        in html.unescape(page)
    out = tmp_path / "page.html"
    out.write_text(page, encoding="utf-8")  # a page that can be written at all


def test_export_to_a_md_file_writes_the_transcript(tmp_path):
    source = tmp_path / "s.jsonl"
    shutil.copy(V3, source)
    out = tmp_path / "t.md"
    assert main([str(source), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Session transcript") and "<html" not in text
