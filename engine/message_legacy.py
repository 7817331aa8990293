"""LangChain's older message kinds and the streamed pieces of the others, for programs that
use them (``engine.messages`` offers them, as ``langchain_core.messages`` does).

``ChatMessage(content, role=...)`` is a message of any role; ``FunctionMessage(content,
name=...)`` is a function's result, from before tool calls had ids.  ``HumanMessageChunk``,
``SystemMessageChunk``, ``ToolMessageChunk``, ``ChatMessageChunk`` and
``FunctionMessageChunk`` are pieces of those messages (``AIMessageChunk`` is
``engine.message_classes``'): ``+`` adds two of them up, keeping the left one's own fields
(two chat pieces of different roles, two function pieces of different names or two tool
pieces of different calls are a ``ValueError``), and ``to_message()`` is the whole message.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from engine.message_classes import (
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    joined_fields,
)
from engine.message_merge import merge_values

__all__ = [
    "ChatMessage",
    "ChatMessageChunk",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessageChunk",
    "SystemMessageChunk",
    "ToolMessageChunk",
]


_DEFERRED = ConfigDict(defer_build=True)
"""These kinds are rare: their validators are built when first used, not at import."""


class ChatMessage(BaseMessage):
    """A message of any ``role`` (``"user"``, ``"assistant"``, a model's own roles)."""

    model_config = _DEFERRED
    type: Literal["chat"] = "chat"
    role: str
    _repr_order = ("role",)


class FunctionMessage(BaseMessage):
    """A function's result, told by the function's ``name`` (tool messages replace it)."""

    model_config = _DEFERRED
    type: Literal["function"] = "function"
    name: str  # type: ignore[assignment]


class HumanMessageChunk(HumanMessage, BaseMessageChunk):
    model_config = _DEFERRED
    type: Literal["HumanMessageChunk"] = "HumanMessageChunk"  # type: ignore[assignment]


class SystemMessageChunk(SystemMessage, BaseMessageChunk):
    model_config = _DEFERRED
    type: Literal["SystemMessageChunk"] = "SystemMessageChunk"  # type: ignore[assignment]


class ToolMessageChunk(ToolMessage, BaseMessageChunk):
    """A piece of a tool's result: pieces of one call add up, their artifacts merged and
    ``error`` if any piece says so."""

    model_config = _DEFERRED
    type: Literal["ToolMessageChunk"] = "ToolMessageChunk"  # type: ignore[assignment]

    def __add__(self, other: Any) -> BaseMessageChunk:
        if not isinstance(other, ToolMessageChunk):
            return super().__add__(other)
        if other.tool_call_id != self.tool_call_id:
            raise ValueError("Cannot concatenate ToolMessageChunks with different names.")
        return type(self)(
            tool_call_id=self.tool_call_id,
            artifact=merge_values(self.artifact, other.artifact),
            status="error" if "error" in (self.status, other.status) else "success",
            id=self.id,
            **joined_fields(self, [other]),
        )


class ChatMessageChunk(ChatMessage, BaseMessageChunk):
    """A piece of a chat message: it keeps its role whatever piece joins it (two chat pieces
    must be of one role)."""

    model_config = _DEFERRED
    type: Literal["ChatMessageChunk"] = "ChatMessageChunk"  # type: ignore[assignment]

    def __add__(self, other: Any) -> BaseMessageChunk:
        if not isinstance(other, BaseMessageChunk):
            return super().__add__(other)
        if isinstance(other, ChatMessageChunk) and other.role != self.role:
            raise ValueError("Cannot concatenate ChatMessageChunks with different roles.")
        return type(self)(role=self.role, id=self.id, **joined_fields(self, [other]))


class FunctionMessageChunk(FunctionMessage, BaseMessageChunk):
    """A piece of a function's result: pieces of one function add up."""

    model_config = _DEFERRED
    type: Literal["FunctionMessageChunk"] = "FunctionMessageChunk"  # type: ignore[assignment]

    def __add__(self, other: Any) -> BaseMessageChunk:
        if not isinstance(other, FunctionMessageChunk):
            return super().__add__(other)
        if other.name != self.name:
            raise ValueError("Cannot concatenate FunctionMessageChunks with different names.")
        return type(self)(name=self.name, id=self.id, **joined_fields(self, [other]))
