"""Our messages and tools <-> the Chat Completions wire format (pure functions, no I/O).

Request side: ``to_openai_messages``, ``to_openai_tools``, ``to_openai_tool_choice``.
Reply side: ``from_completion`` (a whole ``ChatCompletion``), ``delta_to_chunk`` (one
streamed ``ChatCompletionChunk``) and ``usage_metadata``.  Tool-call arguments are parsed by
``AIMessageChunk.to_message``, so malformed JSON becomes an ``invalid_tool_call`` the same
way whether the reply was streamed or not.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from engine.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolCallChunk,
    ToolMessage,
)
from engine.models.errors import ModelResponseError

__all__ = [
    "delta_to_chunk",
    "from_completion",
    "to_openai_messages",
    "to_openai_tool_choice",
    "to_openai_tools",
    "usage_metadata",
]


def _user_content(message: BaseMessage) -> str | list[dict[str, Any]]:
    if isinstance(message.content, str):
        return message.content
    return [{"type": "text", "text": b} if isinstance(b, str) else dict(b) for b in message.content]


def _tool_content(message: ToolMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return message.text or json.dumps(message.content, ensure_ascii=False, default=str)


def _assistant(message: AIMessage) -> dict[str, Any]:
    if isinstance(message, AIMessageChunk):
        message = message.to_message()
    out: dict[str, Any] = {"role": "assistant", "content": message.text}
    calls = [
        (c.get("id"), c.get("name"), json.dumps(c.get("args") or {})) for c in message.tool_calls
    ]
    # Invalid calls are sent back as they came, so the error ToolMessages answering them match.
    calls += [(c.get("id"), c.get("name"), c.get("args") or "") for c in message.invalid_tool_calls]
    if calls:
        out["tool_calls"] = [
            {
                "id": call_id or f"call_{i}",
                "type": "function",
                "function": {"name": name or "", "arguments": args},
            }
            for i, (call_id, name, args) in enumerate(calls)
        ]
        if not out["content"]:
            out["content"] = None
    return out


def to_openai_message(message: BaseMessage) -> dict[str, Any]:
    """One message as a Chat Completions message dict."""
    if isinstance(message, SystemMessage):
        # a "developer" message (``convert_to_messages``) is sent back as one, as LangChain does
        role = message.additional_kwargs.get("__openai_role__", "system")
        out: dict[str, Any] = {"role": role, "content": message.text}
    elif isinstance(message, ChatMessage):
        out = {"role": message.role, "content": message.text}
    elif isinstance(message, FunctionMessage):
        return {"role": "function", "name": message.name, "content": message.text}
    elif isinstance(message, HumanMessage):
        out = {"role": "user", "content": _user_content(message)}
    elif isinstance(message, AIMessage):
        out = _assistant(message)
    elif isinstance(message, ToolMessage):
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": _tool_content(message),
        }
    else:
        raise ValueError(
            f"Cannot send a {type(message).__name__} (type {message.type!r}) to a chat model"
        )
    if message.name:
        out["name"] = message.name
    return out


def to_openai_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    return [to_openai_message(m) for m in messages]


def to_openai_tools(schemas: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``{"name", "description", "parameters"}`` schemas as function tools (a provider's
    built-in tool, a dict with a ``type`` of its own, is sent as it is)."""
    return [
        dict(s)
        if "type" in s
        else {
            "type": "function",
            "function": {
                "name": s["name"],
                "description": s.get("description") or "",
                "parameters": s["parameters"],
            },
        }
        for s in schemas
    ]


def to_openai_tool_choice(tool_choice: str | None) -> str | dict[str, Any] | None:
    """``"any"`` is OpenAI's ``"required"``; a tool name forces that function."""
    if tool_choice is None or tool_choice in ("auto", "none", "required"):
        return tool_choice
    if tool_choice == "any":
        return "required"
    return {"type": "function", "function": {"name": tool_choice}}


def usage_metadata(usage: Any) -> dict[str, Any] | None:
    """``{"input_tokens", "output_tokens", "total_tokens"}`` (+ cache/reasoning details)."""
    if usage is None:
        return None
    inp = getattr(usage, "prompt_tokens", None) or 0
    out = getattr(usage, "completion_tokens", None) or 0
    total = getattr(usage, "total_tokens", None) or inp + out
    result: dict[str, Any] = {"input_tokens": inp, "output_tokens": out, "total_tokens": total}
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    if cached:
        result["input_token_details"] = {"cache_read": cached}
    reasoning = getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", None)
    if reasoning:
        result["output_token_details"] = {"reasoning": reasoning}
    return result


def _call_chunk(call: Any, index: int) -> ToolCallChunk:
    fn = getattr(call, "function", None)
    return ToolCallChunk(
        name=getattr(fn, "name", None),
        args=getattr(fn, "arguments", None) or "",
        id=getattr(call, "id", None),
        index=index,
        type="tool_call_chunk",
    )


def delta_to_chunk(chunk: Any, message_id: str) -> AIMessageChunk | None:
    """One streamed ``ChatCompletionChunk`` as an ``AIMessageChunk`` (None if it carries nothing)."""
    choices = getattr(chunk, "choices", None) or []
    usage = usage_metadata(getattr(chunk, "usage", None))
    metadata: dict[str, Any] = {}
    if getattr(chunk, "id", None):
        metadata["id"] = chunk.id
    if getattr(chunk, "model", None):
        metadata["model_name"] = chunk.model
    text = ""
    tool_chunks: list[ToolCallChunk] = []
    if choices:
        choice = choices[0]
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) or ""
        for call in getattr(delta, "tool_calls", None) or []:
            tool_chunks.append(_call_chunk(call, getattr(call, "index", None) or 0))
        if getattr(choice, "finish_reason", None):
            metadata["finish_reason"] = choice.finish_reason
    if not (text or tool_chunks or usage or "finish_reason" in metadata):
        return None
    return AIMessageChunk(
        content=text,
        id=message_id,
        tool_call_chunks=tool_chunks,
        usage_metadata=usage,
        response_metadata=metadata,
    )


def from_completion(completion: Any, message_id: str) -> AIMessage:
    """A whole ``ChatCompletion`` as an ``AIMessage`` (first choice)."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ModelResponseError("The model's reply has no choices")
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise ModelResponseError("The model's reply has no message")
    calls = [
        c
        for c in getattr(message, "tool_calls", None) or []
        if getattr(c, "function", None) is not None
    ]
    chunk = AIMessageChunk(
        content=getattr(message, "content", None) or "",
        id=message_id,
        tool_call_chunks=[_call_chunk(c, i) for i, c in enumerate(calls)],
        usage_metadata=usage_metadata(getattr(completion, "usage", None)),
        response_metadata={
            "id": getattr(completion, "id", None),
            "model_name": getattr(completion, "model", None),
            "finish_reason": getattr(choice, "finish_reason", None),
        },
    )
    result = chunk.to_message()
    refusal = getattr(message, "refusal", None)
    if refusal:
        result.additional_kwargs["refusal"] = refusal
    return result
