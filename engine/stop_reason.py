"""Why a model stopped when it was not done: cut off at its token limit, or stopped by the
provider's filter.  Read from a reply's ``response_metadata`` under the names the providers
give it: OpenAI's ``finish_reason`` (``length``, ``content_filter``), Anthropic's and Bedrock's
``stop_reason`` (``max_tokens``, ``refusal``, ``guardrail_intervened``...), Ollama's
``done_reason``, Gemini's upper-case reasons (``MAX_TOKENS``, ``SAFETY``...).  A reply that
ended as the model meant it to (``stop``, ``tool_calls``, ``end_turn``...) has no note."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["stop_note", "stop_reason"]

_KEYS = ("finish_reason", "stop_reason", "done_reason")
_CUT = frozenset({"length", "max_tokens", "model_context_window_exceeded"})
_FILTERED = frozenset(
    {
        "blocklist",
        "content_filter",
        "content_filtered",
        "guardrail_intervened",
        "image_safety",
        "prohibited_content",
        "recitation",
        "refusal",
        "safety",
        "spii",
    }
)


def stop_reason(message: object) -> tuple[str, str] | None:
    """Where and how the provider says why ``message`` (a reply: ours, LangChain's, or its
    JSON) ended: ``("finish_reason", "length")``; None when its metadata does not say."""
    meta = (
        message.get("response_metadata")
        if isinstance(message, Mapping)
        else getattr(message, "response_metadata", None)
    )
    if not isinstance(meta, Mapping):
        return None
    for key in _KEYS:
        value = meta.get(key)
        if isinstance(value, str) and value:
            return key, value
    return None


def stop_note(message: object) -> str | None:
    """``"cut off at its token limit (finish_reason: length)"`` or ``"stopped by the
    provider's filter (finish_reason: content_filter)"``; None when the model stopped as it
    meant to, or nothing says why it stopped."""
    found = stop_reason(message)
    if found is None:
        return None
    key, reason = found
    word = reason.lower()
    if word in _CUT:
        return f"cut off at its token limit ({key}: {reason})"
    if word in _FILTERED:
        return f"stopped by the provider's filter ({key}: {reason})"
    return None
