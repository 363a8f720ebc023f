"""A plausible wrong solution of EXERCISES.md step 9 (ex_undo): the checkpoint restored
but never marked undone, so /undo again repeats it.
Spliced into a copy of the package by tests/test_exercises.py; never imported."""

FILE = "miniagent/extensions/checkpoints/__init__.py"
CLASS = "Checkpoints"


def undo(self, argument):
    """/undo: put back the files of the last prompt on this branch not undone yet."""
    if self.running:
        return "/undo waits for the prompt to end (Esc stops it)"
    pending = self.not_undone(self.api.ctx.session.custom_entries(ENTRY))
    if not pending:
        return "Nothing to undo: no prompt on this branch changed files through write or edit."
    entry = pending[-1]
    results, record = self.restore(entry)
    prompt = (record or {}).get("prompt")
    title = f'Undid the prompt "{prompt}":' if prompt else "Undid the last prompt:"
    back = [line for went_back, line in results if went_back]
    if back:
        self.api.add_message(f"The user ran /undo. {title} these files are back as "
                             f"they were before it:\n" + "\n".join(back), "undo")
    lines = [line for _, line in results] or ["no file to restore"]
    return "\n".join([title] + lines)
