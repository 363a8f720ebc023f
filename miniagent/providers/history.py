"""History hygiene: cleaning the conversation before it is sent to a model again.

Every model call resends the whole history. That history is not always fit to send
as it is: the session may hold an errored reply, a tool call whose result never came,
or thinking written by another model. Servers reject such histories with a 400 (an
assistant `tool_calls` message must be followed by a `tool` message for each call) or
misread them. Both providers therefore pass the messages through `prepare_history`
first, and only then translate them into their wire format.

What it does, message by message:

  * an assistant message that ended in "error" or "aborted" is dropped: it is a record
    of a failure, not something the model said;
  * a tool call left without a result gets one, an error whose text is exactly
    `No result provided`, placed before the next user or assistant message; a result
    whose call is not in the history is dropped;
  * thinking from another model (a different provider, api or id) becomes plain text,
    because its signature means nothing to this model; redacted thinking (an opaque
    payload) is kept only for the model that wrote it, and so are a tool call's
    `extraContent` (Gemini's signature); empty thinking is dropped unless it carries
    the same model's signature;
  * tool-call ids are rewritten where the server demands a format (`ID_FORMATS`), the
    same way in the call and in its result;
  * unpaired UTF-16 surrogates (U+D800..U+DFFF, which strict JSON servers reject) are
    removed from every text (`core/assembly.clean_text`).

A worked example, sending to model B:

    user "hi"                                     user "hi"
    assistant(A) [thinking "hmm", toolCall c1]  -> assistant [text "hmm", toolCall c1]
    assistant(B) stopReason "error"                toolResult c1 "No result provided"
    user "go on"                                   user "go on"

The input is never modified: messages are copied where they change.

Left out: the wire formats themselves (openai.py, anthropic.py) and which messages
belong in the context at all (the agent and compaction decide that).
"""

import hashlib
import re
from typing import Any, Callable, Dict, List, Optional

from ..core.messages import Message, is_failed, tool_calls
from ..core.assembly import clean_text

NO_RESULT = "No result provided"
_ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


# --- Tool-call id formats ----------------------------------------------------------------


def _mistral_id(call_id: str) -> str:
    """Mistral (and Mistral chat templates in local servers) accept only ids of exactly
    nine letters or digits. Other ids are mapped through a hash, so the same id always
    becomes the same nine characters.

    Examples: "abcDEF123" -> "abcDEF123";  "call_0_0" -> nine alphanumerics, always the same
    """
    if re.fullmatch(r"[A-Za-z0-9]{9}", call_id):
        return call_id
    digest = hashlib.sha256(call_id.encode("utf-8")).digest()
    return "".join(_ALPHANUMERIC[byte % len(_ALPHANUMERIC)] for byte in digest[:9])


def _anthropic_id(call_id: str) -> str:
    """Anthropic requires ^[a-zA-Z0-9_-]+$ (at most 64 here). Example: "call|7" -> "call_7" """
    return re.sub(r"[^A-Za-z0-9_-]", "_", call_id)[:64] or "call"


def _openai_id(call_id: str) -> str:
    """OpenAI caps ids at 40 characters; ids from its Responses API look like "call|item".

    Example: "call_abc|fc_123" -> "call_abc"
    """
    return re.sub(r"[^A-Za-z0-9_-]", "_", call_id.split("|", 1)[0])[:40] or "call"


# Which servers demand which id format (the providers pick one via their compat flags).
# Each function leaves an id that already fits unchanged.
ID_FORMATS: Dict[str, Callable[[str], str]] = {
    "mistral": _mistral_id,
    "anthropic": _anthropic_id,
    "openai": _openai_id,
}


# --- The cleaning pass ---------------------------------------------------------------------


def images_of(content: Any) -> List[Dict[str, Any]]:
    """The image blocks of a content list (none in a bare string)."""
    if isinstance(content, str):
        return []
    return [block for block in content if block.get("type") == "image"]


def same_model(message: Message, model) -> bool:
    """Did `model` itself write this assistant message?"""
    return (message.get("provider") == model.provider and message.get("api") == model.api
            and message.get("model") == model.id)


def prepare_history(messages: List[Message], model,
                    id_format: Optional[str] = None) -> List[Message]:
    """The messages as they may be sent to `model` (see the module docstring)."""
    normalize = ID_FORMATS.get(id_format) if id_format else None
    renamed: Dict[str, str] = {}  # original tool-call id -> the id we send
    pending: Dict[str, str] = {}  # calls of the last kept assistant message: id -> tool name
    prepared: List[Message] = []
    for message in messages:
        role = message.get("role")
        if role == "toolResult":
            call_id = renamed.get(message.get("toolCallId", ""), message.get("toolCallId", ""))
            if pending.pop(call_id, None) is not None:  # else: its call was never sent
                prepared.append({**message, "toolCallId": call_id,
                                 "content": _clean_content(message.get("content", []))})
            continue
        prepared.extend(_missing_results(pending))  # before the next user or assistant turn
        pending = {}
        if role == "assistant":
            if is_failed(message):
                continue
            message = _clean_assistant(message, same_model(message, model), normalize, renamed)
            if not message["content"]:
                continue
            pending = {call["id"]: call["name"] for call in tool_calls(message)}
        elif role == "user":
            message = {**message, "content": _clean_content(message.get("content", []))}
        prepared.append(message)
    # Unlike pi we also answer calls left open at the very end: a request that ends in
    # an unanswered tool call is rejected by every server.
    prepared.extend(_missing_results(pending))
    return prepared


def _missing_results(pending: Dict[str, str]) -> List[Message]:
    return [{"role": "toolResult", "toolCallId": call_id, "toolName": name,
             "content": [{"type": "text", "text": NO_RESULT}], "isError": True, "timestamp": 0}
            for call_id, name in pending.items()]


def _clean_content(content: Any) -> Any:
    """Text blocks (or a bare string) with their surrogates removed."""
    if isinstance(content, str):
        return clean_text(content)
    return [{**block, "text": clean_text(block["text"])} if block.get("type") == "text" else block
            for block in content]


def _clean_assistant(message: Message, same: bool, normalize, renamed: Dict[str, str]) -> Message:
    content = []
    for block in message.get("content", []):
        kind = block.get("type")
        if kind == "text":
            content.append({"type": "text", "text": clean_text(block.get("text", ""))})
        elif kind == "thinking":
            replayed = _replay_thinking(block, same)
            if replayed is not None:
                content.append(replayed)
        elif kind == "toolCall":
            call_id = normalize(block["id"]) if normalize else block["id"]
            if call_id != block["id"]:
                renamed[block["id"]] = call_id
                block = {**block, "id": call_id}
            if not same:  # a server's per-call extras (Gemini's signature) are for it alone
                block = {key: value for key, value in block.items() if key != "extraContent"}
            content.append(block)
    return {**message, "content": content}


def _replay_thinking(block: Dict[str, Any], same: bool) -> Optional[Dict[str, Any]]:
    """Thinking as this model may see it, or None to drop it."""
    if block.get("redacted"):
        return block if same else None  # an opaque payload only its author can read
    thinking = clean_text(block.get("thinking", ""))
    if not thinking.strip():
        return block if same and block.get("thinkingSignature") else None
    if same:
        return {**block, "thinking": thinking}
    return {"type": "text", "text": thinking}
