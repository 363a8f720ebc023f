"""The report page: the summary, the comparison, every trial linking to its session page,
checked as text and in headless Chromium."""

import base64
import hashlib
import html
import os
import re
import shutil
import subprocess
from urllib.parse import unquote, urlparse

import pytest

from helpers import FIXTURES, find_chromium_or_skip
from miniagent.evals.report import summarize
from miniagent.evals.report_html import write_html
from miniagent.evals.results import append_result, merge_results

SESSION = FIXTURES / "pi-run/pi-0.73.1/print.session.jsonl"  # a small real session
HOSTILE = '<script>alert(1)</script>'


def trial(folder, task, number, passed, with_session=True, **fields):
    """A trial's record in FOLDER/results.jsonl, and (with_session) its session and log."""
    session = f"sessions/{task}/trial-{number}.jsonl"
    log = f"sessions/{task}/trial-{number}.log"
    if with_session:
        (folder / "sessions" / task).mkdir(parents=True, exist_ok=True)
        shutil.copy(SESSION, folder / session)
        (folder / log).write_text("check: 1 test failed\n")
    record = {"suite": "basic", "task": task, "trial": number, "passed": passed,
              "stop_reason": "stop", "failure": None, "turns": 2, "input_tokens": 900,
              "output_tokens": 100, "cached_tokens": 0, "cost": 0.002, "seconds": 3.25,
              "session": session, "log": log, "model": "gpt-4o-mini", "provider": "openai",
              "version": "0.1.0"}
    append_result(str(folder), dict(record, **fields))


def page_text(page):
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def hrefs(page):
    return [html.unescape(href) for href in re.findall(r'href="([^"]*)"', page)]


def make_run(tmp_path):
    run = tmp_path / "runs" / "new"
    trial(run, "fix-typo", 1, True)
    trial(run, "fix-typo", 2, False, stop_reason="max_turns")
    trial(run, "rename", 1, False, with_session=False, session=None, stop_reason=None,
          failure="setup exited with status 2")
    return run


def test_the_page_links_each_trial_to_its_session_page_written_beside_the_session(tmp_path):
    run = make_run(tmp_path)
    records = merge_results([str(run)])
    page_path = tmp_path / "report" / "report.html"
    page_path.parent.mkdir()
    write_html(str(page_path), summarize(records), records)
    page = page_path.read_text()
    assert (run / "sessions/fix-typo/trial-1.html").read_text().startswith("<!DOCTYPE html>")
    assert hrefs(page) == ["../runs/new/sessions/fix-typo/trial-1.html"] * 2 + [
        "../runs/new/sessions/fix-typo/trial-1.log",
        "../runs/new/sessions/fix-typo/trial-2.html", "../runs/new/sessions/fix-typo/trial-2.html",
        "../runs/new/sessions/fix-typo/trial-2.log"]  # rename's trial has no session: no link
    text = " ".join(page_text(page).split())
    assert "fix-typo 1/2 0.50 1.00" in text and "rename 0/1 0.00 0.00" in text
    assert "no: setup exited with status 2" in text
    assert "<script" not in page  # nothing runs, and the policy lets nothing load
    assert "default-src 'none'" in page


def test_a_session_page_already_there_is_kept(tmp_path):
    run = tmp_path / "run"
    trial(run, "fix-typo", 1, True)
    (run / "sessions/fix-typo/trial-1.html").write_text("made earlier")
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    assert (run / "sessions/fix-typo/trial-1.html").read_text() == "made earlier"
    assert "run/sessions/fix-typo/trial-1.html" in hrefs((tmp_path / "report.html").read_text())


def test_a_session_path_leading_out_of_its_folder_is_not_followed(tmp_path):
    outside = tmp_path / "elsewhere.jsonl"
    shutil.copy(SESSION, outside)
    run = tmp_path / "run"
    trial(run, "t", 1, True, with_session=False, session="../elsewhere.jsonl", log="/etc/passwd")
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    assert hrefs((tmp_path / "report.html").read_text()) == []
    assert not (tmp_path / "elsewhere.html").exists()


def test_a_folder_linked_out_of_the_results_is_not_followed(tmp_path):
    elsewhere = tmp_path / "elsewhere"  # N08: sessions/ a symbolic link to another folder
    trial(elsewhere, "t", 1, True)
    run = tmp_path / "run"
    trial(run, "t", 1, True, with_session=False)
    (run / "sessions").symlink_to(elsewhere / "sessions")
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    assert hrefs((tmp_path / "report.html").read_text()) == []
    assert not (elsewhere / "sessions/t/trial-1.html").exists()


def test_a_session_page_linked_out_of_the_results_is_not_followed(tmp_path, capsys):
    run = tmp_path / "run"
    trial(run, "t", 1, True)
    (run / "sessions/t/trial-1.html").symlink_to(tmp_path / "private.html")
    (tmp_path / "private.html").write_text("someone's page")
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    assert "run/sessions/t/trial-1.html" not in hrefs((tmp_path / "report.html").read_text())
    assert (tmp_path / "private.html").read_text() == "someone's page"
    assert "trial-1.html: it is a symbolic link" in capsys.readouterr().err


def test_a_session_that_is_no_session_gets_no_link_and_a_warning(tmp_path, capsys):
    run = tmp_path / "run"
    trial(run, "t", 1, True)
    (run / "sessions/t/trial-1.jsonl").write_text("not a session\n")
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    assert all(not href.endswith(".html") for href in hrefs((tmp_path / "report.html").read_text()))
    assert "is not a session file" in capsys.readouterr().err


def test_text_from_the_results_is_shown_as_text(tmp_path):
    run = tmp_path / "run"
    trial(run, HOSTILE, 1, False, with_session=False, failure=HOSTILE, model=HOSTILE)
    records = merge_results([str(run)])
    write_html(str(tmp_path / "report.html"), summarize(records), records)
    page = (tmp_path / "report.html").read_text()
    assert "<script" not in page and page_text(page).count(HOSTILE) >= 3


def make_comparison(tmp_path):
    new = make_run(tmp_path)
    old = tmp_path / "runs" / "old"
    trial(old, "fix-typo", 1, False)
    trial(old, "fix-typo", 2, False)
    trial(old, "old-only", 1, True)
    new_records, old_records = merge_results([str(new)]), merge_results([str(old)])
    page_path = tmp_path / "compare.html"
    write_html(str(page_path), summarize(new_records), new_records,
               against=(summarize(old_records), old_records))
    return page_path, new, old


def test_against_another_run_the_page_compares_first_then_shows_both(tmp_path):
    page_path, new, old = make_comparison(tmp_path)
    text = " ".join(page_text(page_path.read_text()).split())
    assert f"A = {new} B = {old}" in text
    assert "fix-typo 1/2 0.50 0/2 0.00 +0.50" in text and "old-only - - 1/1 1.00 -" in text
    assert text.index("Comparison") < text.index(f"Summary of {new}") < text.index(f"Summary of {old}")
    assert f"Trials of {old}" in text and (old / "sessions/old-only/trial-1.html").exists()


# --- In a real browser ----------------------------------------------------------------------

PROBE = ("var root=document.documentElement;function keep(id,text){var pre=document.createElement"
         "('pre');pre.id=id;pre.textContent=text;document.body.append(pre);}"
         "keep('shown',document.body.innerText);keep('wide',String(root.scrollWidth>root.clientWidth));"
         "keep('links',Array.from(document.links).map(function(a){return a.href;}).join('\\n'));")


def browser_view(page_path, tmp_path):
    """What headless Chromium shows of the page (as tests/subcommands/test_export.py
    runs it): its text, whether it scrolls sideways, and where its links lead."""
    browser = find_chromium_or_skip()
    digest = base64.b64encode(hashlib.sha256(PROBE.encode()).digest()).decode()
    page = page_path.read_text().replace("style-src 'unsafe-inline'",
                                         f"style-src 'unsafe-inline'; script-src 'sha256-{digest}'", 1)
    probe = page_path.with_name("probe.html")  # same folder: the relative links still resolve
    probe.write_text(page.replace("</body>", f"<script>{PROBE}</script></body>"))
    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                             "--window-size=1000,1500", f"--user-data-dir={tmp_path / 'profile'}",
                             "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=60)
    return {name: html.unescape(re.search(f'<pre id="{name}">(.*?)</pre>', result.stdout, re.S).group(1))
            for name in ("shown", "wide", "links")}


def test_chromium_shows_both_runs_and_links_to_session_pages_that_exist(tmp_path):
    page_path, new, old = make_comparison(tmp_path)
    view = browser_view(page_path, tmp_path)
    shown = view["shown"]
    assert "fix-typo\t1/2\t0.50\t0/2\t0.00\t+0.50" in shown  # the comparison's row
    assert "rename\t0/1\t0.00\t0.00" in shown and "old-only\t1/1\t1.00\t1.00" in shown
    assert view["wide"] == "false"
    targets = [unquote(urlparse(link).path) for link in view["links"].split("\n")]
    assert str(new / "sessions/fix-typo/trial-1.html") in targets
    assert all(os.path.isfile(target) for target in targets)


def test_without_chromium_its_tests_are_skipped_but_fail_under_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="headless Chromium not found"):
        find_chromium_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="headless Chromium not found"):
        find_chromium_or_skip()
