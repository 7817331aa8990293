"""GenAI semantic-convention attributes of a model call, from our events' fields (no SDK)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = [
    "AttrValue",
    "genai_message",
    "json_text",
    "model_request_attrs",
    "model_response_attrs",
    "provider_of",
]

AttrValue = str | bool | int | float | list[str] | list[int] | list[float] | list[bool]

_MAX_TEXT = 16_000
"""Longest JSON text kept in one attribute (longer ones end in "…")."""
_PARAMS = {
    "temperature": "gen_ai.request.temperature",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
    "stop": "gen_ai.request.stop_sequences",
}
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def provider_of(model: str, given: str | None = None) -> str:
    """``gen_ai.provider.name``: the provider the event names, else one the model's name makes
    certain (``gpt-4o`` is OpenAI's), else ``stepwise`` for our offline models, else ``_OTHER``."""
    if given:
        return given
    name = model.lower()
    if ":" in name:  # "openai:gpt-4o"
        return name.split(":", 1)[0]
    for prefixes, provider in (
        (("gpt-", "chatgpt", "o1", "o3", "o4", "text-embedding"), "openai"),
        (("claude",), "anthropic"),
        (("gemini",), "gcp.gemini"),
        (("mistral", "codestral"), "mistral_ai"),
        (("deepseek",), "deepseek"),
        (("grok",), "x_ai"),
    ):
        if name.startswith(prefixes):
            return provider
    if name.startswith(("scripted", "replay")):
        return "stepwise"
    return "_OTHER"


def json_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p if isinstance(p, str) else str(p.get("text", "")) if isinstance(p, Mapping) else ""
            for p in content
        ]
        return "".join(parts)
    return "" if content is None else str(content)


def genai_message(message: Any) -> dict[str, Any]:
    """A recorded message (our JSON) in the GenAI conventions' message shape:
    ``{"role", "parts": [{"type": "text" | "tool_call" | "tool_call_response", ...}]}``."""
    if not isinstance(message, Mapping):
        return {"role": "user", "parts": [{"type": "text", "content": str(message)}]}
    role = _ROLES.get(str(message.get("type")), str(message.get("type") or "user"))
    parts: list[dict[str, Any]] = []
    if role == "tool":
        parts.append(
            {
                "type": "tool_call_response",
                "id": message.get("tool_call_id"),
                "response": _text_of(message.get("content")),
            }
        )
    else:
        text = _text_of(message.get("content"))
        if text:
            parts.append({"type": "text", "content": text})
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping):
                parts.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": call.get("name"),
                        "arguments": call.get("args"),
                    }
                )
    out: dict[str, Any] = {"role": role, "parts": parts}
    if message.get("name"):
        out["name"] = message["name"]
    return out


def _usage(usage: Any, attrs: dict[str, AttrValue]) -> None:
    if not isinstance(usage, Mapping):
        return
    for ours, theirs in (
        ("input_tokens", "gen_ai.usage.input_tokens"),
        ("output_tokens", "gen_ai.usage.output_tokens"),
        ("prompt_tokens", "gen_ai.usage.input_tokens"),
        ("completion_tokens", "gen_ai.usage.output_tokens"),
    ):
        value = usage.get(ours)
        if isinstance(value, int) and not isinstance(value, bool) and theirs not in attrs:
            attrs[theirs] = value
    details = usage.get("input_token_details")
    if isinstance(details, Mapping):
        cached = details.get("cache_read")
        if isinstance(cached, int):
            attrs["gen_ai.usage.cache_read.input_tokens"] = cached


def _tool_definitions(f: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Tools offered: full schemas when the event carries them, else their names."""
    schemas = f.get("tool_schemas")
    if isinstance(schemas, list) and schemas:
        out = []
        for s in schemas:
            if isinstance(s, Mapping):
                spec = s.get("function", s) if s.get("type") == "function" else s
                out.append({"type": "function", **{k: v for k, v in spec.items() if k != "type"}})
        return out
    defs: list[dict[str, Any]] = []
    for t in f.get("tools") or ():
        if isinstance(t, Mapping):
            defs.append({"type": "function", **{k: v for k, v in t.items() if k != "type"}})
        else:
            defs.append({"type": "function", "name": str(t)})
    return defs


def model_request_attrs(f: Mapping[str, Any], a: dict[str, AttrValue]) -> str:
    """The attributes of a model call from its ``model.request`` fields; returns the span's name."""
    model = str(f.get("model") or "model")
    request_model = str(f.get("request_model") or model)
    a["gen_ai.operation.name"] = "chat"
    a["gen_ai.provider.name"] = provider_of(request_model, f.get("provider"))
    a["gen_ai.request.model"] = request_model
    a["stepwise.messages_count"] = int(f.get("messages_count") or 0)
    settings = f.get("settings") or f.get("params") or {}
    if isinstance(settings, Mapping):
        for key, attr in _PARAMS.items():
            value = settings.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                a[attr] = value
            elif attr == "gen_ai.request.stop_sequences" and isinstance(value, str | list):
                a[attr] = [value] if isinstance(value, str) else [str(v) for v in value]
    if f.get("tool_choice") is not None:
        a["stepwise.tool_choice"] = json_text(f["tool_choice"])
    if f.get("response_format"):
        a["stepwise.response_format"] = str(f["response_format"])
    if f.get("system_prompt"):
        a["gen_ai.system_instructions"] = json_text(
            [{"type": "text", "content": str(f["system_prompt"])}]
        )
    full = f.get("messages")
    messages = full if isinstance(full, list) else f.get("last_messages") or []
    msgs = [
        genai_message(m)
        for m in messages
        if not (isinstance(m, Mapping) and m.get("type") == "system" and f.get("system_prompt"))
    ]
    if msgs:
        a["gen_ai.input.messages"] = json_text(msgs)
        if not isinstance(full, list):
            a["stepwise.input.messages_truncated"] = len(msgs) < int(f.get("messages_count") or 0)
    tools = _tool_definitions(f)
    if tools:
        a["gen_ai.tool.definitions"] = json_text(tools)
    return f"chat {request_model}"


def model_response_attrs(f: Mapping[str, Any], a: dict[str, AttrValue]) -> None:
    """Adds what a ``model.response`` says: the model, usage, finish reasons, the output."""
    if f.get("model"):
        a["gen_ai.response.model"] = str(f["model"])
    if f.get("replayed"):
        a["stepwise.replayed"] = True
    message = f.get("message")
    _usage(f.get("usage"), a)
    if isinstance(message, Mapping):
        _usage(message.get("usage_metadata"), a)
        meta = message.get("response_metadata") or {}
        finish = meta.get("finish_reason") if isinstance(meta, Mapping) else None
        if finish:
            a["gen_ai.response.finish_reasons"] = [str(finish)]
        if message.get("id"):
            a["gen_ai.response.id"] = str(message["id"])
        out = genai_message(message)
        if finish:
            out["finish_reason"] = str(finish)
        a["gen_ai.output.messages"] = json_text([out])
