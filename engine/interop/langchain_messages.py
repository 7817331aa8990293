"""langchain_core messages <-> ours, both ways.

Our message classes mirror langchain_core's fields (content, id, name, tool_calls,
invalid_tool_calls, usage_metadata, tool_call_id, status, artifact, additional_kwargs,
response_metadata), so a message crosses as its field dict.  Reading a langchain_core message
needs no import of langchain_core (it is already an object); writing one does.
"""

from __future__ import annotations

from typing import Any

from engine.messages import BaseMessage, message_from_dict, message_to_dict

__all__ = ["message_from_langchain", "message_to_langchain"]

_TYPES = frozenset(
    {
        "human",
        "ai",
        "system",
        "tool",
        "remove",
        "AIMessageChunk",
        "function",
        "ToolMessageChunk",
        "ChatMessageChunk",
        "FunctionMessageChunk",
    }
)


def message_from_langchain(msg: Any) -> BaseMessage:
    """A langchain_core message as ours.  A ``ChatMessage`` maps to the message of its role
    (user/assistant/system; human otherwise) and a human or system chunk to its whole
    message, as they did before the engine had these kinds: what a session recorded of them
    (and the model requests it hashed) stays the same.  The message utilities
    (``engine.message_utils``) give them back as they are."""
    data = msg.model_dump() if hasattr(msg, "model_dump") else dict(msg)
    kind = data.get("type")
    if kind == "chat":  # ChatMessage(role=...)
        role = data.pop("role", "user")
        kind = {"user": "human", "assistant": "ai", "system": "system"}.get(role, "human")
        data["type"] = kind
    if kind == "HumanMessageChunk" or kind == "SystemMessageChunk":
        data["type"] = kind.removesuffix("MessageChunk").lower()
    if data.get("type") not in _TYPES:
        raise TypeError(f"Cannot use a langchain {type(msg).__name__} here (type {kind!r})")
    if data.get("type") in ("tool", "ToolMessageChunk") and data.get("status") not in (
        "success",
        "error",
    ):
        data["status"] = "success"
    return message_from_dict(data)


def _classes() -> dict[str, Any]:
    from langchain_core import messages as lc

    return {
        "human": lc.HumanMessage,
        "ai": lc.AIMessage,
        "system": lc.SystemMessage,
        "tool": lc.ToolMessage,
        "remove": lc.RemoveMessage,
        "AIMessageChunk": lc.AIMessageChunk,
        "chat": lc.ChatMessage,
        "function": lc.FunctionMessage,
        "HumanMessageChunk": lc.HumanMessageChunk,
        "SystemMessageChunk": lc.SystemMessageChunk,
        "ToolMessageChunk": lc.ToolMessageChunk,
        "ChatMessageChunk": lc.ChatMessageChunk,
        "FunctionMessageChunk": lc.FunctionMessageChunk,
    }


def message_to_langchain(msg: BaseMessage) -> Any:
    data = message_to_dict(msg)
    kind = data.pop("type")
    cls = _classes()[kind]
    fields = getattr(cls, "model_fields", {})
    known = {k: v for k, v in data.items() if k in fields and v is not None}
    if kind == "AIMessageChunk":
        known.pop("tool_calls", None)  # a chunk derives its calls from tool_call_chunks
    return cls(**known)
