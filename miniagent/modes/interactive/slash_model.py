"""/model: moving the session to another model, picked from the ones it can use.

    /model               the current model, then the models (models/available.py):
                         in a picker where the screen has a live area (type to filter,
                         arrows, Enter switches, Esc keeps the model), numbered on
                         TERM=dumb; the usable ones first, each other marked with what
                         its provider lacks ("no key: set ANTHROPIC_API_KEY")
    /model N             the Nth of the numbered list
    /model NAME          "provider/id", or an id (the current provider's first; an id
                         nobody lists is tried with the current provider)

Switching goes through assemble.model_for, as --model does: a model whose provider
has no key is not switched to, and the one line says which key to set. The session
records a model_change entry.

Left out: pi's scoped models (a short list cycled with a key), saving the choice as
the default.
"""

from typing import TYPE_CHECKING, List, Optional

from . import slash_session
from ...assemble import model_for
from ...core.provider import Model
from ...errors import ConfigError
from ...models.available import Available, available_models
from ..picker import numbered
from ..terminal import for_terminal

if TYPE_CHECKING:  # the REPL the command drives (it imports slash.py, which imports this)
    from .interactive_mode import Repl


def change_model(repl: "Repl", argument: str) -> None:
    """/model: the models (models/available.py: the usable ones first, each other marked
    with what it lacks) in a picker, or numbered on TERM=dumb; /model N or /model NAME
    switches to one."""
    current = repl.agent.model
    available = available_models(current, repl.agent.api_key)
    if not argument:
        picked = offer_models(repl, available, current)
        if picked is not None:
            switch_model(repl, picked.provider, picked.id)
        return
    if argument.isdigit() and not 1 <= int(argument) <= len(available.models):
        repl.note(f"no model numbered {argument}: /model lists 1 to {len(available.models)}")
        return
    picked = pick_model(available.models, argument, current)
    switch_model(repl, *((picked.provider, picked.id) if picked else (current.provider, argument)))


def offer_models(repl: "Repl", available: Available, current: Model) -> Optional[Model]:
    """The current model, then the list: in a picker (the model picked, or None), or
    numbered where the screen has no live area (None: /model N switches)."""
    repl.note(f"model: {current.provider}/{for_terminal(current.id)} (context "
              f"{current.context_window:,} tokens)")
    if available.problem:
        repl.note(for_terminal(available.problem))
    rows = model_rows(available, current)
    if not repl.screen.live_area:
        repl.note(numbered(rows))
        repl.note("/model N or /model NAME switches")
        return None
    chosen = slash_session.choose(repl, rows, "Switch to which model?")
    return None if chosen is None else available.models[chosen]


def switch_model(repl: "Repl", provider: str, model_id: str) -> None:
    """Use the model from now on, or say in one line why not (a key to set...)."""
    if repl.agent.model.provider == "scripted":
        repl.note("the scripted model replays a file; it cannot be switched")
        return
    try:
        chosen, base_url = model_for(repl.harness, provider, model_id)
    except ConfigError as exc:
        repl.note(f"model not changed: {exc}")
        return
    for warning in chosen.warnings:
        repl.note(warning)
    # The session records a model_change entry; a model of the same provider keeps its server.
    repl.harness.set_model(chosen.model, chosen.api_key, base_url)
    repl.note(f"model: {chosen.model.provider}/{for_terminal(chosen.model.id)}")


def model_rows(available: Available, current: Model) -> List[str]:
    """One row a model, e.g. "openai/gpt-4.1        ctx 1,047,576  (current)", or with
    what its provider lacks: "...  no key: set ANTHROPIC_API_KEY"."""
    models = available.models
    width = max(len(f"{m.provider}/{m.id}") for m in models)
    return [f"{for_terminal(f'{m.provider}/{m.id}'):<{width}}  ctx {m.context_window:>9,}"
            f"{'  (current)' if (m.provider, m.id) == (current.provider, current.id) else ''}"
            f"{'  ' + available.missing[m.provider] if m.provider in available.missing else ''}"
            for m in models]


def pick_model(models: List[Model], argument: str, current: Model) -> Optional[Model]:
    """The model `/model ARGUMENT` names: its number in the list, "provider/id", or an id
    (the current provider's first). None: an id nobody lists (tried with the current
    provider, as --model tries an id the registry does not know)."""
    if argument.isdigit() and 1 <= int(argument) <= len(models):
        return models[int(argument) - 1]
    named = [m for m in models if argument in (m.id, f"{m.provider}/{m.id}")]
    named.sort(key=lambda m: m.provider != current.provider)
    return named[0] if named else None
