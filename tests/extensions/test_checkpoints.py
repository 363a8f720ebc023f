"""The checkpoints extension: /undo, /tree's "restore files", a foreign store refused.

Driven as a user drives it: the REPL in a pty (tests/pty_driver.py) on a scripted
model, and the command line in this process; the store's rules are checked on
store.py directly where a session would only hide them."""

import json
import os
import stat
from pathlib import Path

import pytest

from helpers import call, run_cli, text, write_script
from pty_driver import Terminal
from rpc_driver import Rpc, of_type
from miniagent.extensions.checkpoints.store import (MAX_KEPT, Store, StoreRefused, digest,
                                                    open_store)

READY = "/help for commands"
CTRL_D = "\x04"


def scripted(tmp_path, turns):
    return ["--provider", "scripted", "--script", write_script(tmp_path, turns)]  # checkpoints: on by default


def repl(tmp_path, *args):
    return Terminal(list(args), env={"MINIAGENT_HOME": str(tmp_path / "home")},
                    cwd=str(tmp_path / "work"))


@pytest.fixture
def work(tmp_path):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "a.txt").write_text("one\n")
    (folder / "b.txt").write_text("bee\n")
    (folder / "b.txt").chmod(0o600)
    return folder


def edit(path, old, new):
    return call("edit", path=path, edits=[{"oldText": old, "newText": new}])


def two_prompts():
    """Prompt 1 edits a.txt; prompt 2 edits it again, writes new.txt, edits b.txt and
    runs a command."""
    return [{"content": [edit("a.txt", "one", "two")]}, {"content": [text("Done 1.")]},
            {"content": [edit("a.txt", "two", "three"), call("write", path="new.txt",
                                                            content="fresh\n"),
                         edit("b.txt", "bee", "BEE"), call("bash", command="true")]},
            {"content": [text("Done 2.")]}, {"content": [text("Done 3.")]}]


def session_entries(tmp_path):
    (path,) = (tmp_path / "home" / "sessions").glob("*/*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def answered(term, answer):
    """Wait for the answer, then for the footer after it: the run is over, so the next
    line is a prompt or a command, not steering."""
    term.expect_screen(answer)
    term.expect_screen("context unknown")


def user_prompt_id(tmp_path, prompt):
    return next(e["id"] for e in session_entries(tmp_path) if e.get("type") == "message"
                and e["message"]["role"] == "user"
                and e["message"]["content"][0]["text"] == prompt)


@pytest.mark.ex_undo
def test_undo_puts_back_the_last_prompt_then_the_one_before_and_spares_a_changed_file(
        tmp_path, work):
    with repl(tmp_path, *scripted(tmp_path, two_prompts())) as term:
        term.expect_screen(READY)
        term.send("first\r")
        answered(term, "Done 1.")
        term.send("second\r")
        answered(term, "Done 2.")
        assert (work / "new.txt").exists() and (work / "b.txt").read_text() == "BEE\n"
        term.send("/undo\r")
        term.expect_screen('Undid the prompt "second":')
        term.expect_screen("Changes made by bash commands are not undone.")
        shown = "\n".join(term.screen())
        for line in ("a.txt: restored", "new.txt: removed (that prompt created it)",
                     "b.txt: restored"):
            assert line in shown
        assert (work / "a.txt").read_text() == "two\n" and not (work / "new.txt").exists()
        assert (work / "b.txt").read_text() == "bee\n"
        assert stat.S_IMODE((work / "b.txt").stat().st_mode) == 0o600
        (work / "a.txt").write_text("mine\n")  # the user changes it in between
        term.send("/undo\r")
        term.expect_screen('Undid the prompt "first":')
        term.expect_screen("a.txt: changed since that prompt, so left as it is; the "
                           "version before the prompt is in a.txt.undo")
        term.send("/undo\r")
        term.expect_screen("Nothing to undo")
        term.send("third\r")
        answered(term, "Done 3.")
        term.send(CTRL_D)
        assert term.wait() == 0
    assert (work / "a.txt").read_text() == "mine\n"
    assert (work / "a.txt.undo").read_text() == "one\n"
    told = [e["message"]["content"] for e in session_entries(tmp_path)
            if e.get("type") == "message" and e["message"]["role"] == "custom"]
    assert len(told) == 1  # the second /undo put nothing back
    assert told[0].startswith('The user ran /undo. Undid the prompt "second":')
    assert "a.txt: restored\nnew.txt: removed (that prompt created it)\nb.txt: restored" in told[0]


def test_tree_back_to_a_prompt_with_restore_files_puts_them_back(tmp_path, work):
    with repl(tmp_path, *scripted(tmp_path, two_prompts())) as term:
        term.expect_screen(READY)
        term.send("first\r")
        answered(term, "Done 1.")
        term.send("second\r")
        answered(term, "Done 2.")
        term.send(f"/tree {user_prompt_id(tmp_path, 'first')}\r")
        term.expect_screen("summarise the branch you leave?")
        term.send("\r")
        term.expect_screen("Restore files to that point too?")
        term.send("y\r")
        term.expect_screen("Files restored to that point:")
        term.send("\x15" + CTRL_D)  # Ctrl-U clears the prompt /tree put back
        assert term.wait() == 0
    assert (work / "a.txt").read_text() == "one\n" and not (work / "new.txt").exists()
    assert (work / "b.txt").read_text() == "bee\n"


@pytest.mark.ex_undo
def test_a_resumed_session_can_undo_its_last_prompt(tmp_path, work):
    turns = [{"content": [edit("a.txt", "one", "two")]}, {"content": [text("Done 1.")]}]
    result = run_cli(*scripted(tmp_path, turns), "-p", "first", cwd=str(work),
                     env={"MINIAGENT_HOME": str(tmp_path / "home")})
    assert result.returncode == 0, result.stderr
    assert (work / "a.txt").read_text() == "two\n"
    with repl(tmp_path, *scripted(tmp_path, []), "-c") as term:
        term.expect_screen(READY)
        term.send("/undo\r")
        term.expect_screen("a.txt: restored")
        term.send(CTRL_D)
        assert term.wait() == 0
    assert (work / "a.txt").read_text() == "one\n"


@pytest.mark.ex_undo
def test_a_session_naming_paths_outside_its_folder_restores_nothing_outside(tmp_path, work):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("precious\n")
    turns = [{"content": [edit("a.txt", "one", "two")]}, {"content": [text("Done 1.")]}]
    run_cli(*scripted(tmp_path, turns), "-p", "first", cwd=str(work),
            env={"MINIAGENT_HOME": str(tmp_path / "home")})
    # The session file (someone else's, say) now names a path outside the folder.
    (store_folder,) = (tmp_path / "home" / "sessions").glob("*/*.checkpoints")
    manifest = store_folder / "manifest.jsonl"
    record = json.loads(manifest.read_text())
    record["files"][0]["path"] = str(outside)
    record["files"][0]["after"] = digest(str(outside))
    manifest.write_text(json.dumps(record) + "\n")
    with repl(tmp_path, *scripted(tmp_path, []), "-c") as term:
        term.expect_screen(READY)
        term.send("/undo\r")
        term.expect_screen('Undid the prompt "first":')
        # the line names two long paths: it may wrap anywhere between its words
        term.wait_screen(lambda vt: "elsewhere.txt: not restored, it is outside the working "
                         "folder" in " ".join(row.strip() for row in vt.lines()))
        term.send(CTRL_D)
        assert term.wait() == 0
    assert outside.read_text() == "precious\n"


@pytest.mark.ex_undo
def test_over_rpc_undo_runs_through_prompt_and_a_fork_offers_to_restore(tmp_path, work):
    turns = [{"content": [edit("a.txt", "one", "two")]}, {"content": [text("Done 1.")]},
             {"content": [call("write", path="new.txt", content="x")]},
             {"content": [text("Done 2.")]}]
    rpc = Rpc(work, *scripted(tmp_path, turns))
    try:
        for prompt in ("first", "second"):
            rpc.send({"id": prompt, "type": "prompt", "message": prompt})
            rpc.until(lambda record: record["type"] == "agent_settled")
        rpc.send({"id": "u", "type": "prompt", "message": "/undo"})
        told = of_type(rpc.until(lambda record: record.get("id") == "u"), "extension_ui_request")
        assert [r["message"] for r in told if r["method"] == "notify"] == [
            'Undid the prompt "second":\nnew.txt: removed (that prompt created it)']
        assert not (work / "new.txt").exists() and (work / "a.txt").read_text() == "two\n"
        first = rpc.call({"type": "get_fork_messages"})["messages"][0]["entryId"]
        rpc.send({"id": "f", "type": "fork", "entryId": first})
        question = rpc.until(lambda record: record.get("method") == "confirm")[-1]
        assert question["title"] == "Restore files to that point too?"
        rpc.send({"type": "extension_ui_response", "id": question["id"], "confirmed": True})
        done = rpc.until(lambda record: record.get("id") == "f")
        assert done[-1]["success"] and done[-1]["data"]["cancelled"] is False
        assert (work / "a.txt").read_text() == "one\n"
        rpc.close()
    finally:
        rpc.kill()


def test_a_fork_past_prompts_that_changed_no_file_asks_nothing(tmp_path, work):
    # A prompt that only ran bash leaves a checkpoint (so /undo can say bash is not
    # undone) but no file to restore: moving back past it asks no question.
    turns = [{"content": [call("bash", command="echo hi")]}, {"content": [text("Done 1.")]},
             {"content": [text("Done 2.")]}]
    rpc = Rpc(work, *scripted(tmp_path, turns))
    try:
        for prompt in ("first", "second"):
            rpc.send({"id": prompt, "type": "prompt", "message": prompt})
            rpc.until(lambda record: record["type"] == "agent_settled")
        first = rpc.call({"type": "get_fork_messages"})["messages"][0]["entryId"]
        rpc.send({"id": "f", "type": "fork", "entryId": first})
        done = rpc.until(lambda record: record.get("id") == "f")
        assert done[-1]["data"]["cancelled"] is False
        assert [r for r in done if r.get("method") == "confirm"] == []
        rpc.close()
    finally:
        rpc.kill()


def test_a_store_others_can_write_is_refused_and_so_is_a_made_up_folder(tmp_path):
    store = Store.create(str(tmp_path / "s.checkpoints"))
    store.record({"id": "x", "files": []})
    assert open_store(store.folder).find("x") == {"id": "x", "files": []}
    os.chmod(store.folder, 0o777)
    with pytest.raises(StoreRefused, match="not this user's own"):
        open_store(store.folder)
    for named in ("relative/folder", None, str(tmp_path / "none")):
        with pytest.raises(StoreRefused):
            open_store(named)


def test_a_file_over_10_mb_is_noted_not_kept_and_undo_says_so(tmp_path):
    big = tmp_path / "big.bin"
    big.write_bytes(b"x" * (MAX_KEPT + 1))
    store = Store.create(str(tmp_path / "s.checkpoints"))
    before = store.keep(str(big))
    assert before["exists"] and not before["kept"]
    assert os.listdir(os.path.join(store.folder, "blobs")) == []
    big.write_bytes(b"y")
    change = {"path": str(big), "before": before, "after": digest(str(big))}
    assert store.restore_file(change, str(tmp_path)) == (
        False, "big.bin: not restored, it was larger than 10 MB, so no copy was kept")


def test_a_deleted_file_is_recreated_with_its_mode_and_a_damaged_copy_is_refused(tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o750)
    store = Store.create(str(tmp_path / "s.checkpoints"))
    before = store.keep(str(script))
    script.unlink()
    change = {"path": str(script), "before": before, "after": None}
    assert store.restore_file(change, str(tmp_path)) == (True, "run.sh: recreated")
    assert script.read_text() == "echo hi\n" and stat.S_IMODE(script.stat().st_mode) == 0o750
    script.unlink()
    Path(store.folder, "blobs", before["hash"]).write_text("tampered")
    with pytest.raises(StoreRefused, match="damaged"):
        store.restore_file(change, str(tmp_path))


def test_without_a_session_file_the_store_is_a_temp_folder_removed_at_exit(
        tmp_path, work, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    turns = [{"content": [edit("a.txt", "one", "two")]}, {"content": [text("Done 1.")]}]
    result = run_cli(*scripted(tmp_path, turns), "--no-session", "-p", "first",
                     cwd=str(work))
    assert result.returncode == 0, result.stderr
    assert (work / "a.txt").read_text() == "two\n"
    assert list(tmp_path.glob("miniagent-checkpoints-*")) == []
