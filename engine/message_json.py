"""Messages' JSON form and the message-likes taken for them.

Every message round-trips through JSON (``message_to_dict`` / ``message_from_dict``; its
``type`` tells the class); ``coerce_message`` makes one of a string, a ``(role, content)``
pair, a role dict or a LangChain message, as langchain_core's ``convert_to_messages`` does
(and refuses what it refuses, in its words).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeAlias, Union, get_args

from pydantic import Field, TypeAdapter, ValidationError

from engine.core.foreign import adapt
from engine.message_blocks import ToolCall
from engine.message_classes import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from engine.message_legacy import (
    ChatMessage,
    ChatMessageChunk,
    FunctionMessage,
    FunctionMessageChunk,
    HumanMessageChunk,
    SystemMessageChunk,
    ToolMessageChunk,
)

__all__ = [
    "MESSAGE_TYPES",
    "AnyMessage",
    "coerce_message",
    "message_from_dict",
    "message_to_dict",
    "messages_from_dicts",
]

AnyMessage: TypeAlias = Annotated[
    Union[  # noqa: UP007
        HumanMessage,
        AIMessage,
        AIMessageChunk,
        ToolMessage,
        SystemMessage,
        RemoveMessage,
        ChatMessage,
        FunctionMessage,
        HumanMessageChunk,
        SystemMessageChunk,
        ToolMessageChunk,
        ChatMessageChunk,
        FunctionMessageChunk,
    ],
    Field(discriminator="type"),
]

_CommonMessage: TypeAlias = Annotated[
    Union[HumanMessage, AIMessage, AIMessageChunk, ToolMessage, SystemMessage, RemoveMessage],  # noqa: UP007
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(_CommonMessage)
_LIST_ADAPTER: TypeAdapter[list[Any]] = TypeAdapter(list[_CommonMessage])
_RARE: list[TypeAdapter[Any]] = []
"""The validator of any message, the rare kinds' (``engine.message_legacy``) too: built when
one is first decoded (the common kinds' validators are built at import)."""
_RARE_TYPES = frozenset(
    {
        "chat",
        "function",
        "HumanMessageChunk",
        "SystemMessageChunk",
        "ToolMessageChunk",
        "ChatMessageChunk",
        "FunctionMessageChunk",
    }
)


def _any_message() -> TypeAdapter[Any]:
    if not _RARE:
        _RARE.append(TypeAdapter(AnyMessage))
    return _RARE[0]


MESSAGE_TYPES: frozenset[type[BaseMessage]] = frozenset(get_args(get_args(AnyMessage)[0]))
"""Every message kind (``AnyMessage``'s members)."""
_ROLE_TO_CLS: dict[str, type[BaseMessage]] = {
    "human": HumanMessage,
    "user": HumanMessage,
    "ai": AIMessage,
    "assistant": AIMessage,
    "system": SystemMessage,
    "developer": SystemMessage,
    "function": FunctionMessage,
    "tool": ToolMessage,
    "remove": RemoveMessage,
}
_OWN_FORM = frozenset({"human", "ai", "AIMessageChunk", "tool", "system", "remove"})
"""The ``type``s of a dict taken as the engine's JSON form of a message (all its fields)."""
_COERCION_HELP = (
    "\nFor troubleshooting, visit: "
    "https://docs.langchain.com/oss/python/langchain/errors/MESSAGE_COERCION_FAILURE "
)


def message_to_dict(msg: BaseMessage) -> dict[str, Any]:
    """JSON-ready dict of a message (inverse of ``message_from_dict``)."""
    return msg.model_dump(mode="json", exclude_none=False)


def message_from_dict(data: dict[str, Any]) -> BaseMessage:
    """Rebuild a message from ``message_to_dict`` output."""
    if data.get("type") in _RARE_TYPES:
        return _any_message().validate_python(data)
    return _ADAPTER.validate_python(data)


def messages_from_dicts(items: list[dict[str, Any]]) -> list[BaseMessage]:
    """``[message_from_dict(d) for d in items]`` in one validation call (one a message when
    a rare kind is among them)."""
    try:
        return _LIST_ADAPTER.validate_python(items)
    except ValidationError:
        if not any(isinstance(d, dict) and d.get("type") in _RARE_TYPES for d in items):
            raise
    return [message_from_dict(d) for d in items]


def _of_role(role: Any, fields: dict[str, Any]) -> BaseMessage:
    """The message of ``role`` (LangChain's roles) with ``fields``."""
    cls = _ROLE_TO_CLS.get(role) if isinstance(role, str) else None
    if cls is None:
        raise ValueError(
            f"Unexpected message type: '{role}'. Use one of 'human', 'user', 'ai', "
            "'assistant', 'function', 'tool', 'system', or 'developer'." + _COERCION_HELP
        )
    if role == "developer":  # as langchain_core marks it, for OpenAI's role to be sent back
        fields["additional_kwargs"] = {
            **(fields.get("additional_kwargs") or {}),
            "__openai_role__": "developer",
        }
    return cls(**fields)


def coerce_message(value: Any) -> BaseMessage:
    """Accept a message, a string (human), a ``(role, content)`` tuple or a role dict."""
    if isinstance(value, BaseMessage):
        return value
    if isinstance(value, str):
        return HumanMessage(content=value)
    if isinstance(value, tuple | list) and len(value) == 2 and isinstance(value[0], str):
        role, content = value
        return _of_role(role, {"content": content})
    if isinstance(value, dict):
        data = dict(value)
        if "role" not in data and data.get("type") in _OWN_FORM:
            return message_from_dict(data)
        role = data.pop("role") if "role" in data else data.pop("type", None)
        if role is None or "content" not in data:
            raise ValueError(
                f"Message dict must contain 'role' and 'content' keys, got {value}" + _COERCION_HELP
            )
        data["content"] = data["content"] or ""
        if role in ("ai", "assistant") and data.get("tool_calls"):
            data["tool_calls"] = [_openai_call_to_tool_call(c) for c in data["tool_calls"]]
        return _of_role(role, _with_extras_kept(role, data))
    adapted = adapt("message", value)  # a user's langchain_core message
    if adapted is not None:
        return adapted
    raise TypeError(f"Cannot coerce {type(value).__name__} to a message")


_ROLE_DICT_FIELDS = frozenset({"content", "name", "tool_call_id", "tool_calls", "id"})
"""The keys of a role dict that are the message's fields; the others are its
``additional_kwargs`` (as langchain_core reads the dict)."""


def _with_extras_kept(role: Any, data: dict[str, Any]) -> dict[str, Any]:
    """A role dict's fields, its other keys gathered as langchain_core gathers them: into
    ``additional_kwargs`` (a given ``additional_kwargs`` merged in, ``response_metadata``
    kept apart), but an ``example`` flag of a human or AI message and a tool message's
    ``artifact`` and ``status``, which stay fields."""
    extras = {k: v for k, v in data.items() if k not in _ROLE_DICT_FIELDS}
    if not extras:
        return data
    fields = {k: v for k, v in data.items() if k in _ROLE_DICT_FIELDS}
    metadata = extras.pop("response_metadata", None)
    if metadata:
        fields["response_metadata"] = metadata
    extras.update(extras.pop("additional_kwargs", None) or {})
    if role in ("human", "user", "ai", "assistant"):
        example = extras.pop("example", False)
        if example:
            fields["example"] = example
    if role == "tool":
        fields["artifact"] = extras.pop("artifact", None)
        if extras.get("status") is not None:
            fields["status"] = extras.pop("status")
        extras.pop("status", None)
    fields["additional_kwargs"] = extras
    return fields


def _openai_call_to_tool_call(call: dict[str, Any]) -> ToolCall:
    if "function" in call:
        fn = call["function"]
        args = fn.get("arguments") or "{}"
        return ToolCall(
            name=fn["name"],
            args=json.loads(args) if isinstance(args, str) else args,
            id=call.get("id"),
        )
    return ToolCall(name=call["name"], args=call.get("args", {}), id=call.get("id"))
