"""Provider-specific cache settings a fallback model may not accept, removed before it runs.

A request prepared for one provider can carry settings another provider rejects:

- Anthropic ``cache_control`` markers (in ``model_settings``, in system/message content
  blocks and their ``extras`` / ``metadata``, on tools) - kept only for Anthropic-compatible
  models (``_llm_type`` ``anthropic-chat``, ``anthropic-bedrock-chat``,
  ``anthropic-chat-vertexai``);
- the Fireworks ``X-Session-Affinity`` header in ``extra_headers`` - kept only for Fireworks;
- ``prompt_cache_key`` - kept only for models that accept it (OpenAI, Azure OpenAI,
  Fireworks, or a model whose ``supports_prompt_cache_key`` is true, like Stepwise's own
  ``OpenAIChatModel``).

``sanitized_for(request, model)`` returns the request itself when nothing had to change.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from engine.messages import BaseMessage
from engine.middleware.types import ModelRequest

__all__ = ["sanitized_for"]

ANTHROPIC_LLM_TYPES = frozenset(
    {"anthropic-chat", "anthropic-bedrock-chat", "anthropic-chat-vertexai"}
)
FIREWORKS_LLM_TYPE = "fireworks-chat"
PROMPT_CACHE_KEY_LLM_TYPES = frozenset({FIREWORKS_LLM_TYPE, "openai-chat", "azure-openai-chat"})
AFFINITY_HEADER = "x-session-affinity"
MARK = "cache_control"


def _llm_type(model: Any) -> str | None:
    kind = getattr(model, "_llm_type", None)
    return kind if isinstance(kind, str) else None


def _takes_prompt_cache_key(model: Any) -> bool:
    flag = getattr(model, "supports_prompt_cache_key", None)
    if isinstance(flag, bool):
        return flag
    return _llm_type(model) in PROMPT_CACHE_KEY_LLM_TYPES


def _unmarked(payload: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    if MARK not in payload:
        return dict(payload), False
    return {k: v for k, v in payload.items() if k != MARK}, True


def _block(block: Any) -> tuple[Any, bool]:
    if not isinstance(block, Mapping):
        return block, False
    out, changed = _unmarked(block)
    for key in ("extras", "metadata"):
        nested = out.get(key)
        if isinstance(nested, Mapping):
            cleaned, nested_changed = _unmarked(nested)
            if nested_changed:
                out[key] = cleaned
                changed = True
    return (out, True) if changed else (block, False)


def _message(message: BaseMessage | None) -> BaseMessage | None:
    if message is None or isinstance(message.content, str):
        return message
    blocks = [_block(b) for b in message.content]
    if not any(changed for _, changed in blocks):
        return message
    return message.model_copy(update={"content": [b for b, _ in blocks]})


def _tool(tool: Any) -> Any:
    if isinstance(tool, Mapping):
        cleaned, changed = _unmarked(tool)
        extras = cleaned.get("extras")
        if isinstance(extras, Mapping) and MARK in extras:
            cleaned["extras"], changed = _unmarked(extras)[0], True
        return cleaned if changed else tool
    extras = getattr(tool, "extras", None)
    if not isinstance(extras, Mapping) or MARK not in extras:
        return tool
    clone = copy.copy(tool)
    rest = _unmarked(extras)[0]
    clone.extras = rest or None
    return clone


def _settings(settings: dict[str, Any], model: Any, anthropic: bool) -> dict[str, Any]:
    out = settings
    if not anthropic and MARK in out:
        out = _unmarked(out)[0]
    headers = out.get("extra_headers")
    if _llm_type(model) != FIREWORKS_LLM_TYPE and isinstance(headers, Mapping):
        kept = {
            k: v
            for k, v in headers.items()
            if not (isinstance(k, str) and k.lower() == AFFINITY_HEADER)
        }
        if len(kept) != len(headers):
            out = dict(out)
            if kept:
                out["extra_headers"] = kept
            else:
                out.pop("extra_headers")
    if "prompt_cache_key" in out and not _takes_prompt_cache_key(model):
        out = {k: v for k, v in out.items() if k != "prompt_cache_key"}
    return out


def sanitized_for(request: ModelRequest, model: Any) -> ModelRequest:
    """``request`` without the settings ``model`` would not accept (itself if none)."""
    anthropic = _llm_type(model) in ANTHROPIC_LLM_TYPES
    changes: dict[str, Any] = {}
    settings = _settings(request.model_settings, model, anthropic)
    if settings is not request.model_settings:
        changes["model_settings"] = settings
    if not anthropic:
        system = _message(request.system_message)
        if system is not request.system_message:
            changes["system_message"] = system
        messages = [_message(m) for m in request.messages]
        if any(a is not b for a, b in zip(messages, request.messages, strict=True)):
            changes["messages"] = messages
        tools = [_tool(t) for t in request.tools]
        if any(a is not b for a, b in zip(tools, request.tools, strict=True)):
            changes["tools"] = tools
    return request.override(**changes) if changes else request
