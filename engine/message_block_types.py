"""The standard content block and usage types a message may hold, by LangChain's names (for the
annotations and constructors of programs that import them from ``langchain.messages``).

Each is a plain ``TypedDict`` (``ImageContentBlock(type="image", url=...)`` is a dict); the
engine reads blocks by their ``type`` key (``engine.message_blocks``), not by these classes.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from typing_extensions import TypedDict

from engine.message_blocks import InvalidToolCall, TextContentBlock, ToolCall, ToolCallChunk

__all__ = [
    "Annotation",
    "AudioContentBlock",
    "Citation",
    "ContentBlock",
    "DataContentBlock",
    "FileContentBlock",
    "ImageContentBlock",
    "InputTokenDetails",
    "MessageLikeRepresentation",
    "NonStandardAnnotation",
    "NonStandardContentBlock",
    "OutputTokenDetails",
    "PlainTextContentBlock",
    "ReasoningContentBlock",
    "RefusalContentBlock",
    "ServerToolCall",
    "ServerToolCallChunk",
    "ServerToolResult",
    "UsageMetadata",
    "VideoContentBlock",
]


class Citation(TypedDict, total=False):
    """A text block's citation of a source (``url``, the cited span, its text)."""

    type: Literal["citation"]
    id: str
    url: str
    title: str
    start_index: int
    end_index: int
    cited_text: str
    extras: dict[str, Any]


class NonStandardAnnotation(TypedDict, total=False):
    """A provider's own annotation of a text block."""

    type: Literal["non_standard_annotation"]
    id: str
    value: dict[str, Any]


Annotation: TypeAlias = Citation | NonStandardAnnotation


class _Data(TypedDict, total=False):
    id: str
    file_id: str
    mime_type: str
    index: int | str
    url: str
    base64: str
    extras: dict[str, Any]


class ImageContentBlock(_Data, total=False):
    """An image: by ``url``, ``base64`` data (with ``mime_type``) or a provider ``file_id``."""

    type: Literal["image"]


class AudioContentBlock(_Data, total=False):
    """Audio, given as an image block is."""

    type: Literal["audio"]


class VideoContentBlock(_Data, total=False):
    """A video, given as an image block is."""

    type: Literal["video"]


class FileContentBlock(_Data, total=False):
    """A file (a PDF...), given as an image block is."""

    type: Literal["file"]


class PlainTextContentBlock(_Data, total=False):
    """A plain-text document (``text``, or data as a file's), with its title and context."""

    type: Literal["text-plain"]
    text: str
    title: str
    context: str


class ReasoningContentBlock(TypedDict, total=False):
    """The model's reasoning."""

    type: Literal["reasoning"]
    id: str
    reasoning: str
    index: int | str
    extras: dict[str, Any]


class RefusalContentBlock(TypedDict, total=False):
    """The model's refusal to answer."""

    type: Literal["refusal"]
    id: str
    refusal: str
    index: int | str
    extras: dict[str, Any]


class NonStandardContentBlock(TypedDict, total=False):
    """A provider's own block (its ``value`` as the provider gave it)."""

    type: Literal["non_standard"]
    id: str
    value: dict[str, Any]
    index: int | str


class ServerToolCall(TypedDict, total=False):
    """A call of a provider's built-in tool (run by the provider)."""

    type: Literal["server_tool_call"]
    id: str
    name: str
    args: dict[str, Any]
    index: int | str
    extras: dict[str, Any]


class ServerToolCallChunk(TypedDict, total=False):
    """A streamed fragment of a built-in tool's call."""

    type: Literal["server_tool_call_chunk"]
    name: str
    args: str
    id: str
    index: int | str
    extras: dict[str, Any]


class ServerToolResult(TypedDict, total=False):
    """What a provider's built-in tool returned."""

    type: Literal["server_tool_result"]
    id: str
    tool_call_id: str
    status: Literal["success", "error"]
    output: Any
    index: int | str
    extras: dict[str, Any]


DataContentBlock: TypeAlias = (
    ImageContentBlock
    | VideoContentBlock
    | AudioContentBlock
    | PlainTextContentBlock
    | FileContentBlock
)

ContentBlock: TypeAlias = (
    TextContentBlock
    | InvalidToolCall
    | ReasoningContentBlock
    | RefusalContentBlock
    | NonStandardContentBlock
    | DataContentBlock
    | ToolCall
    | ToolCallChunk
    | ServerToolCall
    | ServerToolCallChunk
    | ServerToolResult
)


class InputTokenDetails(TypedDict, total=False):
    """Input tokens by kind (any subset; providers may add keys)."""

    audio: int
    cache_creation: int
    cache_read: int


class OutputTokenDetails(TypedDict, total=False):
    """Output tokens by kind (any subset; providers may add keys)."""

    audio: int
    reasoning: int


class UsageMetadata(TypedDict, total=False):
    """A reply's token counts (``input_tokens``, ``output_tokens``, ``total_tokens``)."""

    input_tokens: int
    output_tokens: int
    total_tokens: int
    input_token_details: InputTokenDetails
    output_token_details: OutputTokenDetails


MessageLikeRepresentation: TypeAlias = Any
"""Anything taken as a message: a message, a ``(role, content)`` pair, a string, a dict."""
