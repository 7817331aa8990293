"""Messages and the ``add_messages`` reducer (a package: ``engine.messages.utils``,
``.base``, ``.ai``, ``.tool``... offer the names langchain_core's submodules of those names
offer, so a program's ``langchain_core.messages.utils`` import ports too).

Names and fields follow LangChain so its users feel at home: ``HumanMessage("hi")``,
``AIMessage(content, tool_calls=[{"name", "args", "id"}])``, ``ToolMessage(content,
tool_call_id=...)``.  The message types and their JSON form live in ``engine.message_classes``
(offered here too); this module adds ``Messages`` (a list that only holds messages),
``coerce_messages``, the ``add_messages`` reducer and ``MessagesState``.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, SupportsIndex

from typing_extensions import TypedDict

from engine.message_blocks import InvalidToolCall, TextContentBlock, ToolCall, ToolCallChunk
from engine.message_classes import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    BaseMessageChunk,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from engine.message_json import (
    MESSAGE_TYPES,
    AnyMessage,
    coerce_message,
    message_from_dict,
    message_to_dict,
    messages_from_dicts,
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
from engine.message_tokens import count_tokens_approximately
from engine.message_utils import (
    convert_to_openai_messages,
    filter_messages,
    get_buffer_string,
    merge_message_runs,
    message_chunk_to_message,
    messages_from_dict,
    messages_to_dict,
    trim_messages,
)

if TYPE_CHECKING:  # loaded on first use (``__getattr__`` below)
    from engine.message_block_types import (
        Annotation,
        AudioContentBlock,
        Citation,
        ContentBlock,
        DataContentBlock,
        FileContentBlock,
        ImageContentBlock,
        InputTokenDetails,
        MessageLikeRepresentation,
        NonStandardAnnotation,
        NonStandardContentBlock,
        OutputTokenDetails,
        PlainTextContentBlock,
        ReasoningContentBlock,
        RefusalContentBlock,
        ServerToolCall,
        ServerToolCallChunk,
        ServerToolResult,
        UsageMetadata,
        VideoContentBlock,
    )

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "AIMessage",
    "AIMessageChunk",
    "Annotation",
    "AnyMessage",
    "AudioContentBlock",
    "BaseMessage",
    "BaseMessageChunk",
    "ChatMessage",
    "ChatMessageChunk",
    "Citation",
    "ContentBlock",
    "DataContentBlock",
    "FileContentBlock",
    "FunctionMessage",
    "FunctionMessageChunk",
    "HumanMessage",
    "HumanMessageChunk",
    "ImageContentBlock",
    "InputTokenDetails",
    "InvalidToolCall",
    "MessageLikeRepresentation",
    "Messages",
    "MessagesState",
    "NonStandardAnnotation",
    "NonStandardContentBlock",
    "OutputTokenDetails",
    "PlainTextContentBlock",
    "ReasoningContentBlock",
    "RefusalContentBlock",
    "RemoveMessage",
    "ServerToolCall",
    "ServerToolCallChunk",
    "ServerToolResult",
    "SystemMessage",
    "SystemMessageChunk",
    "TextContentBlock",
    "ToolCall",
    "ToolCallChunk",
    "ToolMessage",
    "ToolMessageChunk",
    "UsageMetadata",
    "VideoContentBlock",
    "add_messages",
    "coerce_message",
    "coerce_messages",
    "convert_to_messages",
    "convert_to_openai_messages",
    "count_tokens_approximately",
    "filter_messages",
    "get_buffer_string",
    "merge_message_runs",
    "message_chunk_to_message",
    "message_from_dict",
    "message_to_dict",
    "messages_from_dict",
    "messages_from_dicts",
    "messages_to_dict",
    "trim_messages",
]


_LAZY = {
    **{
        name: "engine.message_block_types"
        for name in (
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
        )
    },
}
"""Names offered here but loaded when first asked for (the block types cost ~5 ms to build,
which every engine import would pay)."""


def __getattr__(name: str) -> Any:
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


class Messages(list[BaseMessage]):
    """A list that only ever holds messages: items are coerced as they come in.

    What the agent hands to middleware and models (``ModelRequest.messages``).  Because the
    invariant holds by construction, ``coerce_messages`` accepts it as-is: a long history is
    not re-checked on every model call.

    ``edited`` says whether anything but appending at the end ever changed the list (then its
    first items may no longer be the ones it was made with): the agent checks that in O(1)
    instead of comparing a long history item by item.
    """

    __slots__ = ("_edited",)

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(coerce_messages(items))
        self._edited = False

    @classmethod
    def of(cls, items: Iterable[BaseMessage]) -> Messages:
        """Wrap items already known to be messages (e.g. a graph's message log), unchecked."""
        out = cls.__new__(cls)
        copy_into = getattr(items, "copy_into", None)  # a graph's message log: one C copy
        if copy_into is not None:
            copy_into(out)
        else:
            list.extend(out, items)
        out._edited = False
        return out

    @property
    def edited(self) -> bool:
        """True once the list changed other than by appending (insert, assign, delete, sort...)."""
        return getattr(self, "_edited", True)

    def append(self, item: Any) -> None:
        super().append(coerce_message(item))

    def extend(self, items: Iterable[Any]) -> None:
        super().extend(coerce_messages(items))

    def insert(self, index: SupportsIndex, item: Any) -> None:
        self._edited = True
        super().insert(index, coerce_message(item))

    def __setitem__(self, index: Any, value: Any) -> None:
        self._edited = True
        if isinstance(index, slice):
            super().__setitem__(index, coerce_messages(value))
        else:
            super().__setitem__(index, coerce_message(value))

    def __delitem__(self, index: Any) -> None:
        self._edited = True
        super().__delitem__(index)

    def pop(self, index: SupportsIndex = -1) -> BaseMessage:
        self._edited = True
        return super().pop(index)

    def remove(self, value: Any) -> None:
        self._edited = True
        super().remove(value)

    def clear(self) -> None:
        self._edited = True
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._edited = True
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._edited = True
        super().reverse()

    def __iadd__(self, items: Iterable[Any]) -> Messages:  # type: ignore[override,misc]
        self.extend(items)
        return self

    def __imul__(self, n: SupportsIndex) -> Messages:  # type: ignore[override,misc]
        self._edited = True
        return super().__imul__(n)  # type: ignore[return-value]


def coerce_messages(value: Any) -> list[BaseMessage]:
    """A single message-like value or an iterable of them, as a list of messages."""
    if type(value) is Messages:
        return list(value)  # a C-speed copy: the items are messages by construction
    if isinstance(value, BaseMessage | str | dict):
        return [coerce_message(value)]
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return [coerce_message(value)]
    to_messages = getattr(value, "to_messages", None)
    if callable(to_messages):  # a langchain PromptValue
        prompt_messages: Iterable[Any] = to_messages()  # type: ignore[assignment]
        return [coerce_message(v) for v in prompt_messages]
    if hasattr(value, "model_dump") and not isinstance(value, list):  # one langchain message
        return [coerce_message(value)]
    if isinstance(value, Iterable):
        items = list(value)
        if set(map(type, items)) <= MESSAGE_TYPES:  # already messages: a C-speed check
            return items
        return [coerce_message(v) for v in items]
    return [coerce_message(value)]


def convert_to_messages(messages: Any) -> list[BaseMessage]:
    """LangChain's name for ``coerce_messages``: messages from message-likes (messages,
    strings, ``(role, content)`` pairs, role dicts, a prompt value)."""
    return coerce_messages(messages)


def _ensure_id(msg: BaseMessage) -> BaseMessage:
    if msg.id is None:
        msg.id = str(uuid.uuid4())
    return msg


def _settled(msg: BaseMessage) -> BaseMessage:
    """A streamed chunk stored in state becomes its final message type."""
    if isinstance(msg, BaseMessageChunk):
        return msg.to_message()
    return msg


_FORMATS = (None, "langchain-openai")


def add_messages(left: Any = None, right: Any = None, *, format: str | None = None) -> Any:
    """Merge two lists of messages, updating existing ones by id.

    New ids are appended; an existing id is replaced in place; ``RemoveMessage(id)`` deletes;
    ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` keeps only what follows the last such marker.
    Messages without an id get a uuid4; streamed chunks become final messages.  Returns a new
    list; the inputs are not changed.  Called with only keyword options (``add_messages(
    format="langchain-openai")``) it returns a reducer with those options bound.
    """
    if left is None and right is None:
        if format not in _FORMATS:
            raise ValueError(f"Unrecognized {format=}. Expected one of 'langchain-openai', None.")
        return functools.partial(add_messages, format=format)
    if left is None or right is None:
        side = "left" if left is not None else "right"
        raise ValueError(
            f"Must specify non-null arguments for both 'left' and 'right'. Only received: '{side}'."
        )
    left_list = [_ensure_id(_settled(m)) for m in coerce_messages(left)]
    right_list = [_ensure_id(_settled(m)) for m in coerce_messages(right)]
    merged = merge_messages(left_list, right_list)
    if format == "langchain-openai":
        from engine.messages_openai import openai_shaped

        merged = openai_shaped(merged, ToolMessage)
    elif format is not None:
        raise ValueError(f"Unrecognized {format=}. Expected one of 'langchain-openai', None.")
    return merged


def merge_messages(left: Sequence[BaseMessage], right: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``add_messages`` on lists already coerced and given ids."""
    remove_all_at = -1
    for i, m in enumerate(right):
        if isinstance(m, RemoveMessage) and m.id == REMOVE_ALL_MESSAGES:
            remove_all_at = i
    if remove_all_at >= 0:
        return [m for m in right[remove_all_at + 1 :] if not isinstance(m, RemoveMessage)]
    merged = list(left)
    index = {m.id: i for i, m in enumerate(merged)}
    removed: set[int] = set()
    for m in right:
        pos = index.get(m.id)
        if pos is not None:
            if isinstance(m, RemoveMessage):
                removed.add(pos)
            else:
                removed.discard(pos)
                merged[pos] = m
        else:
            if isinstance(m, RemoveMessage):
                raise ValueError(
                    f"Attempting to delete a message with an ID that doesn't exist ('{m.id}')"
                )
            index[m.id] = len(merged)
            merged.append(m)
    if removed:
        merged = [m for i, m in enumerate(merged) if i not in removed]
    return merged


class MessagesState(TypedDict):
    """A ready-made graph state: one ``messages`` list merged with ``add_messages``."""

    messages: Annotated[list[AnyMessage], add_messages]
