"""Repairing edit's arguments: two shapes models send instead of `edits: [...]`.

edit's schema asks for `{"path", "edits": [{"oldText", "newText"}, ...]}`. Models send
two other shapes often enough that refusing them would waste turns:

  * the older one-edit form (pi accepts it too, as legacy):
        {"path": p, "oldText": a, "newText": b}
        -> {"path": p, "edits": [{"oldText": a, "newText": b}]}
  * the array sent as a JSON string:
        {"path": p, "edits": "[{\\"oldText\\": ...}]"}
        -> {"path": p, "edits": [{"oldText": ...}]}

`prepare_arguments` runs before validation (the Tool contract's hook, called by
tools/__init__.validate_arguments), so what it cannot repair is still reported by the
schema check in its usual words ("edits: must be array").

It has a file of its own, not a place in edit.py, because it is about what models send,
not about editing a file: edit.py stays the story of matching and replacing, and hands
this function to its Tool in one line.

Left out: guessing at other shapes. A single {oldText, newText} object is wrapped in a
list only when it arrives as a JSON string; sent as an object, validation refuses it.
"""

import json
from typing import Any


def prepare_arguments(args: Any) -> Any:
    """The arguments with either shape above turned into `edits: [...]`; others as sent."""
    if not isinstance(args, dict):
        return args  # not ours to repair: validation says what is wrong
    args = dict(args)
    if isinstance(args.get("edits"), str):
        try:
            parsed = json.loads(args["edits"])
        except ValueError:
            parsed = args["edits"]  # leave it: validation will say edits must be an array
        args["edits"] = [parsed] if isinstance(parsed, dict) else parsed
    if "oldText" in args or "newText" in args:
        legacy = {key: args.pop(key) for key in ("oldText", "newText") if key in args}
        edits = args.get("edits")
        # Both forms at once: the legacy edit joins the list rather than replacing it.
        args["edits"] = (edits if isinstance(edits, list) else []) + [legacy]
    return args
