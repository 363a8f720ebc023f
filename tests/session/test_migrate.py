"""pi's older session formats read as version 3 (pi's migration tests, as ours)."""

from miniagent.session.migrate import Migration


def migrate(header, entries, line_numbers):
    """The entries of a file, in file order, through one Migration (as the store reads them)."""
    migration = Migration(header)
    for entry, number in zip(entries, line_numbers):
        migration.apply(entry, number)


def test_v1_entries_get_line_number_ids_in_a_chain():
    header = {"type": "session", "id": "s", "timestamp": "t", "cwd": "/"}
    entries = [{"type": "message", "timestamp": "t", "message": {"role": "user", "content": "hi"}},
               {"type": "message", "timestamp": "t", "message": {"role": "assistant", "content": []}},
               {"type": "compaction", "timestamp": "t", "summary": "s", "firstKeptEntryIndex": 2,
                "tokensBefore": 5}]
    migrate(header, entries, [2, 3, 5])  # line 4 was blank or malformed
    assert [(e["id"], e["parentId"]) for e in entries] == [
        ("00000002", None), ("00000003", "00000002"), ("00000005", "00000003")]
    assert all(len(e["id"]) == 8 for e in entries)
    # Index 0 was the header: index 2 is the second entry.
    assert entries[2]["firstKeptEntryId"] == "00000003" and "firstKeptEntryIndex" not in entries[2]


def test_v2_ids_are_kept_and_hook_messages_become_custom():
    header = {"type": "session", "version": 2, "id": "s", "timestamp": "t", "cwd": "/"}
    entries = [{"type": "message", "id": "abc12345", "parentId": None, "timestamp": "t",
                "message": {"role": "hookMessage", "content": "x"}},
               {"type": "message", "id": "def67890", "parentId": "abc12345", "timestamp": "t",
                "message": {"role": "user", "content": "y"}}]
    migrate(header, entries, [2, 3])
    assert [(e["id"], e["parentId"]) for e in entries] == [("abc12345", None), ("def67890", "abc12345")]
    assert [e["message"]["role"] for e in entries] == ["custom", "user"]


def test_v3_entries_are_left_as_they_are():
    header = {"type": "session", "version": 3, "id": "s"}
    entries = [{"type": "message", "id": "abc12345", "parentId": None,
                "message": {"role": "hookMessage"}}]
    migrate(header, entries, [2])
    assert entries[0]["message"]["role"] == "hookMessage"
