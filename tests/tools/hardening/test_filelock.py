"""filelock: one lock per file, whatever the spelling of its path (docs/decisions.md D9).

That read, edit and write each wait for it is tested with each tool (test_read.py,
test_edit.py, test_write.py)."""

import threading

from miniagent.tools.hardening.filelock import path_lock


def test_a_symlink_and_another_spelling_of_the_path_share_one_lock(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "link.txt").symlink_to(tmp_path / "a.txt")
    entered = threading.Event()

    def lock_through_the_link():
        with path_lock(str(tmp_path / "link.txt")):
            entered.set()

    other = threading.Thread(target=lock_through_the_link)
    with path_lock(str(tmp_path / "." / "a.txt")):
        other.start()
        other.join(0.2)
        assert other.is_alive() and not entered.is_set()  # waiting for the same lock
    other.join(10)
    assert entered.is_set()
