"""The rpc mode's shapes: reading a command's fields, writing a model as pi sends it.

A command is a JSON object from a program we do not control: a field may be missing
or of the wrong type, and the answer must then be an error response that names the
field, never an exception trace. The model object goes out in pi's shape (its
`Model` type), so a client written for pi reads ours:

    {"id": "qwen2.5-coder:7b", "name": "Qwen 2.5 Coder", "api": "openai-completions",
     "provider": "ollama", "baseUrl": "http://127.0.0.1:11434/v1", "reasoning": false,
     "input": ["text"], "contextWindow": 32768, "maxTokens": 8192,
     "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}

Left out: a model's `headers` (they may carry a key) and the scripted model's turns.
"""

from typing import Any, Dict, List

from ...session.check import content_problem


def text_field(request: dict, name: str) -> str:
    """A string field the command needs; a missing one is an error naming it."""
    value = request.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f'{request["type"]} needs "{name}" (a non-empty string)')
    return value


def flag_field(request: dict, name: str) -> bool:
    """A true/false field the command needs (set_auto_compaction {enabled})."""
    value = request.get(name)
    if not isinstance(value, bool):
        raise ValueError(f'{request["type"]} needs "{name}" (true or false)')
    return value


def choice_field(request: dict, name: str, choices: List[str]) -> str:
    """A field that must be one of `choices` (a thinking level, a queue mode)."""
    value = request.get(name)
    if value not in choices:
        raise ValueError(f'{request["type"]}: "{name}" must be one of {", ".join(choices)} '
                         f'(got {value!r})')
    return value


def images_of(request: dict) -> List[Dict[str, Any]]:
    """A prompt's "images" as image blocks, or an error response: a bad one must not
    reach the session file, which could then not be loaded back."""
    images = request["images"]
    if not isinstance(images, list):
        raise ValueError(f'{request["type"]}: images must be a list of image objects '
                         f'({{"type": "image", "data": base64, "mimeType": "image/png"}})')
    blocks = [dict(image, type="image") if isinstance(image, dict) else image for image in images]
    problem = content_problem(blocks, "images")
    if problem:
        raise ValueError(f'{request["type"]}: {problem}')
    return blocks


def model_object(model: Any) -> Dict[str, Any]:
    """The model as pi's Model object (see the module docstring)."""
    shown = {"id": model.id, "name": model.name or model.id, "api": model.api,
             "provider": model.provider, "baseUrl": model.base_url,
             "reasoning": model.reasoning, "input": list(model.input),
             "contextWindow": model.context_window, "maxTokens": model.max_tokens,
             "cost": dict(model.cost)}
    if model.thinking_level_map:
        shown["thinkingLevelMap"] = dict(model.thinking_level_map)
    if model.compat:
        shown["compat"] = dict(model.compat)
    return shown
