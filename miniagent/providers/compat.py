"""Server quirks as data: what each OpenAI-compatible server needs done differently.

Dozens of servers speak Chat Completions, and each bends it a little: OpenAI wants
`max_completion_tokens` and a "developer" system role for its reasoning models, Mistral
wants 9-character tool-call ids and no unknown fields, llama.cpp and vLLM switch
thinking through a chat-template variable, Groq rejects reasoning sent back. Rather than
an `if server == ...` in every function of openai.py (the core's and ours), the differences are a table of
flags (pi's "compat" idea):

    DEFAULT_COMPAT      what a standard server accepts
    KNOWN_SERVERS       per server (recognised by its base URL), the flags that differ
    model.compat        the user's own overrides (models.json), field by field

Example: compat_for(Model("gpt-5", "openai", "openai-completions",
                          "https://api.openai.com/v1"))["maxTokensField"]
         -> "max_completion_tokens"

Left out: detection by asking the server what it is (a base URL is a good enough hint,
and models.json can always say otherwise), and Anthropic, which has one server.
"""

from typing import Any, Dict

from ..core.openai import STANDARD_COMPAT

# What a standard OpenAI-compatible server accepts: the core's flags (core/openai.py
# STANDARD_COMPAT: maxTokensField, supportsUsageInStreaming)
# and the ones only the product reads. Each flag exists because some server disagrees;
# KNOWN_SERVERS says who, and model.compat overrides any flag.
DEFAULT_COMPAT: Dict[str, Any] = {
    **STANDARD_COMPAT,
    # Send our own reasoning back in its field (llama.cpp, DeepSeek need it; Groq 400s on it).
    "supportsReasoningReplay": True,
    # Send the system prompt as role "developer" for reasoning models (OpenAI's o-series
    # and gpt-5 want it; chat templates of local servers know only "system").
    "supportsDeveloperRole": False,
    # Send a reasoning effort for reasoning models when thinking is on...
    "supportsReasoningEffort": True,
    # ...translated through this map (level -> what the server accepts)...
    "reasoningEffortMap": {"minimal": "low"},  # "minimal" exists only at OpenAI
    # ...in this format: "openai" reasoning_effort, "openrouter" reasoning.effort,
    # "chat-template" chat_template_kwargs.enable_thinking (Qwen3-style templates).
    "thinkingFormat": "openai",
    # Send the session id as prompt_cache_key, which routes repeated prefixes to the
    # same cache (D17: OpenAI needs no cache marks, only this key).
    "supportsPromptCacheKey": False,
    # Rewrite tool-call ids in the history: None, "openai" (<= 40 chars) or "mistral"
    # (exactly 9 alphanumerics), see history.ID_FORMATS.
    "toolCallIdFormat": None,
}

# (text in the base URL, the flags that differ there). Servers without a row (Ollama,
# LM Studio) take the standard flags; stream quirks are tolerated for everyone.
KNOWN_SERVERS = [
    ("api.openai.com", {"supportsDeveloperRole": True, "maxTokensField": "max_completion_tokens",
                        "reasoningEffortMap": {}, "supportsPromptCacheKey": True,
                        "toolCallIdFormat": "openai"}),
    ("openrouter.ai", {"thinkingFormat": "openrouter"}),
    ("deepseek.com", {"supportsReasoningEffort": False}),  # the model id decides thinking
    ("groq.com", {"supportsReasoningReplay": False}),
    # Mistral rejects unknown fields (and sends usage unasked) and wants 9-char ids.
    ("mistral.ai", {"toolCallIdFormat": "mistral", "supportsUsageInStreaming": False}),
    # llama.cpp's llama-server (:8080) and vLLM (:8000): thinking is a template variable.
    (":8080", {"thinkingFormat": "chat-template"}),
    (":8000", {"thinkingFormat": "chat-template"}),
]
# Mistral's chat templates want 9-character ids wherever they run: the model id is a hint too.
MISTRAL_FAMILY = ("mistral", "devstral", "magistral", "codestral", "ministral")


def compat_for(model) -> Dict[str, Any]:
    """The quirk flags for a model: defaults, then the server detected from the base
    URL, then the model's own compat entries (each field overrides separately)."""
    flags = dict(DEFAULT_COMPAT)
    for marker, overrides in KNOWN_SERVERS:
        if marker in model.base_url:
            flags.update(overrides)
            break
    if any(name in model.id.lower() for name in MISTRAL_FAMILY):
        flags["toolCallIdFormat"] = "mistral"
    flags.update(model.compat or {})
    return flags
