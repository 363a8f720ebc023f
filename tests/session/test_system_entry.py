"""pi 1.6's system entries: replayed along a branch, patched with only what changed."""

from miniagent.session.system_entry import checkpoint, replay_system, system_patch

T = "2026-12-02T00:00:00Z"
READ = {"name": "read", "description": "Read a file.", "parameters": {"type": "object"}}
BASH = {"name": "bash", "description": "Run a command.", "parameters": {"type": "object"}}


def system(entry_id, parent, **fields):
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": T,
            "message": {"role": "system", "content": "", "timestamp": 1, **fields}}


def test_the_first_request_records_everything_and_the_same_setup_nothing():
    sections = {"preamble": "You help.", "cwd": "<cwd>\n/w\n</cwd>"}
    first = system_patch([], sections, [READ, BASH])
    assert first["sections"] == sections and first["toolsAdded"] == [READ, BASH]
    assert "toolsRemoved" not in first
    branch = [{"type": "message", "id": "s1", "parentId": None, "timestamp": T, "message": first}]
    assert system_patch(branch, sections, [READ, BASH]) is None


def test_a_patch_names_changed_sections_removes_with_null_and_redeclares_a_changed_tool():
    branch = [system("s1", None, sections={"preamble": "P", "docs": "<docs>x</docs>",
                                           "cwd": "<cwd>\n/a\n</cwd>"}, toolsAdded=[READ, BASH]),
              system("s2", "s1", sections={"skills": "<skills>s</skills>"})]
    new_read = {**READ, "description": "Read a file, or an image."}
    patch = system_patch(branch, {"preamble": "P", "skills": "<skills>s</skills>",
                                  "cwd": "<cwd>\n/b\n</cwd>"}, [new_read])
    assert patch["sections"] == {"cwd": "<cwd>\n/b\n</cwd>", "docs": None}
    assert patch["toolsAdded"] == [new_read]
    assert patch["toolsRemoved"] == [{"name": "read"}, {"name": "bash"}]
    fields = {key: value for key, value in patch.items() if key.startswith(("sections", "tools"))}
    replayed = replay_system(branch + [system("s3", "s2", **fields)])
    assert replayed == ({"preamble": "P", "skills": "<skills>s</skills>",
                         "cwd": "<cwd>\n/b\n</cwd>"}, {"read": new_read})


def test_a_compaction_checkpoint_replaces_what_came_before_it():
    before = system("s1", None, sections={"preamble": "old"}, toolsAdded=[BASH])
    compaction = {"type": "compaction", "id": "c1", "parentId": "s1", "timestamp": T,
                  "summary": "s", "firstKeptEntryId": "s1", "tokensBefore": 1,
                  "systemMessage": checkpoint({"preamble": "new"}, [READ])}
    assert replay_system([before, compaction]) == ({"preamble": "new"}, {"read": READ})
