"""A second correct solution of EXERCISES.md step 9 (ex_undo): the checkpoint to undo
found by walking the branch's entries backwards; the lines built in one pass.
Spliced into a copy of the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/extensions/checkpoints/__init__.py"
CLASS = "Checkpoints"


def undo(self, argument):
    """/undo: put back the files of the last prompt on this branch not undone yet."""
    if self.running:
        return "/undo waits for the prompt to end (Esc stops it)"
    entry = None
    for candidate in reversed(self.api.ctx.session.custom_entries(ENTRY)):
        if self.not_undone([candidate]):
            entry = candidate
            break
    if entry is None:
        return "Nothing to undo: no prompt on this branch changed files through write or edit."
    results, record = self.restore(entry)
    self.api.append_entry(UNDONE, {"id": entry["data"].get("id")})
    prompt = record.get("prompt") if record else None
    title = f'Undid the prompt "{prompt}":' if prompt else "Undid the last prompt:"
    shown, back = [], []
    for went_back, line in results:
        shown.append(line)
        if went_back:
            back.append(line)
    if back:
        self.api.add_message(f"The user ran /undo. {title} these files are back as they "
                             f"were before it:\n" + "\n".join(back), "undo")
    return "\n".join([title] + (shown or ["no file to restore"]))
