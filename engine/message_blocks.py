"""The typed dicts inside a message (LangChain's names): a text content block, a tool call, an
invalid tool call, a streamed tool-call chunk; and the standard content block types.

``engine.messages`` re-exports them (``from engine.messages import ToolCall`` keeps working).
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict

__all__ = [
    "KNOWN_BLOCK_TYPES",
    "InvalidToolCall",
    "TextContentBlock",
    "ToolCall",
    "ToolCallChunk",
]

KNOWN_BLOCK_TYPES = frozenset(
    {
        "text",
        "reasoning",
        "refusal",
        "tool_call",
        "invalid_tool_call",
        "tool_call_chunk",
        "image",
        "audio",
        "file",
        "text-plain",
        "video",
        "server_tool_call",
        "server_tool_call_chunk",
        "server_tool_result",
        "non_standard",
    }
)
"""Standard content block types; any other dict block is provider-specific (``non_standard``)."""


class TextContentBlock(TypedDict, total=False):
    """A standard text block of a message's content: ``{"type": "text", "text": ...}``."""

    type: Literal["text"]
    text: str
    id: str
    annotations: list[dict[str, Any]]
    extras: dict[str, Any]


class ToolCall(TypedDict, total=False):
    """A tool call requested by the model: ``{"name", "args", "id"}`` (``type`` optional)."""

    name: str
    args: dict[str, Any]
    id: str | None
    type: Literal["tool_call"]


class InvalidToolCall(TypedDict, total=False):
    """A tool call whose arguments could not be parsed (kept, never raised)."""

    name: str | None
    args: str | None
    id: str | None
    error: str | None
    type: Literal["invalid_tool_call"]


class ToolCallChunk(TypedDict, total=False):
    """A streamed fragment of a tool call (arguments arrive as partial JSON text)."""

    name: str | None
    args: str | None
    id: str | None
    index: int | None
    type: Literal["tool_call_chunk"]
