"""Message types (pydantic), as LangChain names them.

``HumanMessage("hi")``, ``AIMessage(content, tool_calls=[{"name", "args", "id"}])``,
``ToolMessage(content, tool_call_id=...)``: every message has an ``id`` and a ``type``.
``BaseMessageChunk`` is a streamed piece (``+`` adds pieces up); ``AIMessageChunk`` is the one
models stream.  LangChain's older kinds and the other chunks are ``engine.message_legacy``'s;
the JSON form and ``coerce_message`` are ``engine.message_json``'s.  ``engine.messages`` offers
all of it with the list and the ``add_messages`` reducer.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import operator
from typing import Any, ClassVar, Literal, TypeAlias, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.core.foreign import to_family
from engine.message_blocks import (
    KNOWN_BLOCK_TYPES,
    InvalidToolCall,
    ToolCall,
    ToolCallChunk,
)
from engine.message_edits import edited
from engine.message_merge import merge_content, merge_dicts

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "AIMessage",
    "AIMessageChunk",
    "BaseMessage",
    "BaseMessageChunk",
    "Content",
    "HumanMessage",
    "RemoveMessage",
    "SystemMessage",
    "ToolMessage",
]

REMOVE_ALL_MESSAGES = "__remove_all__"

Content: TypeAlias = str | list[str | dict[str, Any]]


_LC_FIELD_ORDER = ("content", "additional_kwargs", "response_metadata", "type", "name", "id")
"""A message's common fields in langchain_core's order (its ``repr`` shows them so)."""


class BaseMessage(BaseModel):
    """Common fields of every message. Subclasses fix ``type``."""

    model_config = ConfigDict(extra="allow", validate_assignment=False)

    content: Content = ""
    id: str | None = None
    name: str | None = None
    additional_kwargs: dict[str, Any] = Field(default_factory=dict)
    response_metadata: dict[str, Any] = Field(default_factory=dict)
    type: str = "base"

    def __init__(self, content: Content | None = None, /, **kwargs: Any) -> None:
        blocks = kwargs.pop("content_blocks", None)
        if blocks is not None:
            if content is not None or "content" in kwargs:
                raise ValueError("Pass either content or content_blocks, not both")
            content = list(blocks)
            _calls_from_blocks(type(self), kwargs, content)
        if content is not None:
            kwargs["content"] = content
        super().__init__(**kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        edited(self, name)  # a cache that hashed this message must know (engine.message_edits)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        edited(self, name)
        super().__delattr__(name)

    # Validating a dict (a message decoded from a checkpoint, a session, an attached app's
    # state) need not go through ``__init__``: it only adds the positional ``content`` and
    # ``content_blocks=`` (which ``_content_blocks`` handles for dicts).  Without this mark
    # pydantic calls ``__init__`` for every message it validates, which validates it again.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @model_validator(mode="before")
    @classmethod
    def _content_blocks(cls, data: Any) -> Any:
        """``{"content_blocks": [...]}`` is the content, as ``__init__`` takes it."""
        if isinstance(data, dict) and "content_blocks" in data:
            data = dict(data)
            blocks = data.pop("content_blocks")
            if blocks is not None:
                if "content" in data:
                    raise ValueError("Pass either content or content_blocks, not both")
                data["content"] = list(blocks)
                _calls_from_blocks(cls, data, data["content"])
        return data

    @property
    def text(self) -> str:
        """The textual content, with list content blocks flattened."""
        if isinstance(self.content, str):
            return self.content
        parts: list[str] = []
        for block in self.content:
            if isinstance(block, str):
                parts.append(block)
            elif block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)

    @property
    def content_blocks(self) -> list[dict[str, Any]]:
        """The content as standard blocks.  With langchain_core installed, exactly its
        ``content_blocks`` (its translators read each provider's own blocks: Anthropic's
        thinking and tool use, OpenAI's reasoning summaries and annotations, older
        multimodal formats); without it, ``_own_blocks``."""
        theirs = _langchain_blocks(self)
        return theirs if theirs is not None else self._own_blocks()

    def _own_blocks(self) -> list[dict[str, Any]]:
        """Text becomes ``{"type": "text", "text": ...}``, a standard block stays, any other
        dict becomes ``{"type": "non_standard", "value": block}``."""
        items: list[str | dict[str, Any]] = (
            ([self.content] if self.content else []) if isinstance(self.content, str) else []
        )
        if isinstance(self.content, list):
            items = list(self.content)
        blocks: list[dict[str, Any]] = []
        for item in items:
            if isinstance(item, str):
                blocks.append({"type": "text", "text": item})
            elif item.get("type") in KNOWN_BLOCK_TYPES and "source_type" not in item:
                blocks.append(item)
            else:
                blocks.append({"type": "non_standard", "value": item})
        return blocks

    def pretty_repr(self, html: bool = False) -> str:
        """The message as langchain_core prints it (``engine.message_pretty``)."""
        from engine.message_pretty import pretty_repr

        return pretty_repr(self, html=html)

    def pretty_print(self) -> None:
        """Print ``pretty_repr()`` (a bold title in a REPL or a notebook)."""
        from engine.message_pretty import interactive

        print(self.pretty_repr(html=interactive()))

    def __repr_args__(self) -> Any:
        """The fields ``repr`` and ``str`` show, as langchain_core's messages show theirs (a
        program that prints a message prints the same line): its fields in its order, each
        unless at its plain default (a ``None``, a ``type``); content and the fields a factory
        fills always; extra fields last."""
        fields = self.__dict__
        model_fields = type(self).model_fields
        hidden = type(self)._repr_hidden
        for name in (*_LC_FIELD_ORDER, *type(self)._repr_order):
            if name in hidden or name not in model_fields:
                continue
            value = fields.get(name)
            field = model_fields[name]
            if name == "content" or field.default_factory is not None or field.is_required():
                if value is not None or name == "content" or field.is_required():
                    yield name, value
            elif value != field.default:
                yield name, value
        for name, value in (self.__pydantic_extra__ or {}).items():
            yield name, value

    _repr_order: ClassVar[tuple[str, ...]] = ()
    """This class's own fields, in langchain_core's order (after the base's)."""
    _repr_hidden: ClassVar[frozenset[str]] = frozenset()
    """Fields langchain_core leaves out of this class's ``repr``."""


class HumanMessage(BaseMessage):
    type: Literal["human"] = "human"


class SystemMessage(BaseMessage):
    type: Literal["system"] = "system"


class BaseMessageChunk(BaseMessage):
    """A streamed piece of a message.  ``piece + piece`` (or ``piece + [pieces]``) is one
    piece of the left one's class and id, the contents, ``additional_kwargs`` and
    ``response_metadata`` merged as langchain_core merges them (the fields of a subclass are
    its own ``+``'s to keep: a name or a role given to only some pieces is dropped, as
    langchain_core drops it); ``to_message()`` is the whole message the piece stands for."""

    def __add__(self, other: Any) -> BaseMessageChunk:
        pieces = other if isinstance(other, list) else [other]
        if not all(isinstance(p, BaseMessageChunk) for p in pieces):
            raise TypeError(
                f'unsupported operand type(s) for +: "{type(self).__name__}" and '
                f'"{type(other).__name__}"'
            )
        return type(self)(id=self.id, **joined_fields(self, pieces))

    def to_message(self) -> BaseMessage:
        """The message of the kind this piece streams (its fields as they are, no ``type``)."""
        whole = next(c for c in type(self).__mro__ if not issubclass(c, BaseMessageChunk))
        return whole(**{k: v for k, v in self.__dict__.items() if k != "type"})  # type: ignore[no-any-return]


def joined_fields(first: BaseMessage, pieces: list[Any]) -> dict[str, Any]:
    """The fields every piece has, of ``first`` followed by ``pieces``, merged."""
    return {
        "content": merge_content(first.content, *(p.content for p in pieces)),
        "additional_kwargs": merge_dicts(
            first.additional_kwargs, *(p.additional_kwargs for p in pieces)
        ),
        "response_metadata": merge_dicts(
            first.response_metadata, *(p.response_metadata for p in pieces)
        ),
    }


class AIMessage(BaseMessage):
    type: Literal["ai"] = "ai"
    tool_calls: list[ToolCall] = Field(default_factory=list)
    invalid_tool_calls: list[InvalidToolCall] = Field(default_factory=list)
    usage_metadata: dict[str, Any] | None = None

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _tool_call_type(cls, calls: Any) -> Any:
        """Every tool call is of type ``tool_call`` whatever it said (as langchain_core)."""
        if isinstance(calls, list):
            return [{**c, "type": "tool_call"} if isinstance(c, dict) else c for c in calls]
        return calls

    def model_post_init(self, __context: Any) -> None:
        for call in self.tool_calls:
            call.setdefault("type", "tool_call")
            call.setdefault("id", None)
            call.setdefault("args", {})

    def _own_blocks(self) -> list[dict[str, Any]]:
        """The content blocks, then a ``tool_call`` block for each call not already in them."""
        blocks = super()._own_blocks()
        present = {b.get("id") for b in blocks if b.get("type") == "tool_call"}
        for call in self.tool_calls:
            if call.get("id") and call.get("id") not in present:
                blocks.append(
                    {
                        "type": "tool_call",
                        "id": call.get("id"),
                        "name": call.get("name"),
                        "args": call.get("args", {}),
                    }
                )
        return blocks

    _repr_order = ("tool_calls", "invalid_tool_calls", "usage_metadata")


class AIMessageChunk(AIMessage, BaseMessageChunk):
    """A streamed delta of an AIMessage; ``+`` concatenates chunks."""

    type: Literal["AIMessageChunk"] = "AIMessageChunk"  # type: ignore[assignment]
    tool_call_chunks: list[ToolCallChunk] = Field(default_factory=list)
    chunk_position: Literal["last"] | None = None
    """``"last"`` on a stream's final chunk (a model that does not mark one gets an empty
    trailing chunk so marked, as langchain_core adds it)."""
    _repr_order = (*AIMessage._repr_order, "tool_call_chunks", "chunk_position")

    def _own_blocks(self) -> list[dict[str, Any]]:
        """A chunk of tool-call pieces only: a ``tool_call_chunk`` block for each piece;
        otherwise the content's blocks and the calls its pieces add up to."""
        if self.tool_call_chunks and not self.content:
            return [
                {
                    "type": "tool_call_chunk",
                    "id": c.get("id"),
                    "name": c.get("name"),
                    "args": c.get("args"),
                    "index": c.get("index"),
                }
                for c in self.tool_call_chunks
            ]
        if self.tool_call_chunks and not self.tool_calls:
            return self.to_message()._own_blocks()
        return super()._own_blocks()

    def __add__(self, other: Any) -> AIMessageChunk:
        if isinstance(other, list) and all(isinstance(o, AIMessageChunk) for o in other):
            return functools.reduce(operator.add, other, self)
        if not isinstance(other, AIMessageChunk):  # another kind of piece: its content joins
            return cast("AIMessageChunk", super().__add__(other))
        chunks: dict[int, ToolCallChunk] = {}
        for ch in [*self.tool_call_chunks, *other.tool_call_chunks]:
            idx = ch.get("index")
            key = idx if idx is not None else len(chunks)
            if key in chunks:
                cur = chunks[key]
                cur["args"] = (cur.get("args") or "") + (ch.get("args") or "")
                if ch.get("name") and not cur.get("name"):
                    cur["name"] = ch.get("name")
                if ch.get("id") and not cur.get("id"):
                    cur["id"] = ch.get("id")
            else:
                chunks[key] = ToolCallChunk(
                    name=ch.get("name"),
                    args=ch.get("args") or "",
                    id=ch.get("id"),
                    index=ch.get("index"),
                    type="tool_call_chunk",
                )
        usage = _added_usage(self.usage_metadata, other.usage_metadata)
        summed = AIMessageChunk(
            # list content (a provider's blocks, by index) merges as langchain_core merges it
            content=merge_content(self.content, other.content),
            additional_kwargs=merge_dicts(self.additional_kwargs, other.additional_kwargs),
            id=self.id or other.id,
            name=self.name or other.name,
            tool_call_chunks=list(chunks.values()),
            usage_metadata=usage,
            response_metadata={**self.response_metadata, **other.response_metadata},
            chunk_position=self.chunk_position or other.chunk_position,
        )
        if summed.tool_call_chunks:  # the calls the pieces add up to, as LangChain's sum shows
            # (the unparseable ones stay to ``to_message``, which adds them to the invalid calls)
            summed.tool_calls = summed.to_message().tool_calls
        return summed

    def to_message(self) -> AIMessage:
        """The full AIMessage this stream of chunks adds up to (arguments parsed)."""
        calls: list[ToolCall] = []
        invalid: list[InvalidToolCall] = []
        for ch in self.tool_call_chunks:
            raw = ch.get("args") or ""
            try:
                args = json.loads(raw) if raw.strip() else {}
                if not isinstance(args, dict):
                    raise ValueError(f"arguments must be a JSON object, got {type(args).__name__}")
                calls.append(
                    ToolCall(
                        name=ch.get("name") or "", args=args, id=ch.get("id"), type="tool_call"
                    )
                )
            except ValueError as exc:
                invalid.append(
                    InvalidToolCall(
                        name=ch.get("name"),
                        args=raw,
                        id=ch.get("id"),
                        error=str(exc),
                        type="invalid_tool_call",
                    )
                )
        return AIMessage(
            content=self.content,
            id=self.id,
            name=self.name,
            tool_calls=calls,
            invalid_tool_calls=[*self.invalid_tool_calls, *invalid],
            usage_metadata=self.usage_metadata,
            response_metadata=self.response_metadata,
        )


def _calls_from_blocks(cls: type, fields: dict[str, Any], blocks: list[Any]) -> None:
    """A message made from ``content_blocks``: its ``tool_call`` blocks are its tool calls
    (unless it is given them), as langchain_core reads them."""
    if "tool_calls" in fields or "tool_calls" not in getattr(cls, "model_fields", {}):
        return
    calls = [
        {"name": b.get("name"), "args": b.get("args", {}), "id": b.get("id"), "type": "tool_call"}
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "tool_call"
    ]
    if calls:
        fields["tool_calls"] = calls


_LANGCHAIN_CORE: list[bool] = []


def _langchain_blocks(message: BaseMessage) -> list[dict[str, Any]] | None:
    """langchain_core's ``content_blocks`` of ``message`` (None without langchain_core, or for
    a message it cannot take)."""
    if not _LANGCHAIN_CORE:
        _LANGCHAIN_CORE.append(importlib.util.find_spec("langchain_core") is not None)
    if not _LANGCHAIN_CORE[0]:
        return None
    try:
        theirs = to_family("langchain", message)
        return None if theirs is message else list(theirs.content_blocks)
    except Exception:  # a message langchain_core has no class for, or cannot validate
        return None


def _added_usage(a: Any, b: Any) -> Any:
    """Two chunks' token counts added up, key by key (nested details too), as LangChain
    adds them; one side missing: the other."""
    if not a or not b:
        return a or b
    out = dict(a)
    for key, value in b.items():
        mine = out.get(key)
        if isinstance(value, dict) and isinstance(mine, dict):
            out[key] = _added_usage(mine, value)
        elif isinstance(value, int) and isinstance(mine, int):
            out[key] = mine + value
        elif mine is None:
            out[key] = value
    return out


class ToolMessage(BaseMessage):
    type: Literal["tool"] = "tool"
    tool_call_id: str
    status: Literal["success", "error"] = "success"
    artifact: Any = None
    _repr_order = ("tool_call_id", "artifact", "status")
    _repr_hidden = frozenset({"additional_kwargs", "response_metadata"})


class RemoveMessage(BaseMessage):
    """Deletes the message with this ``id`` when returned through ``add_messages``."""

    type: Literal["remove"] = "remove"

    def __init__(self, content: Content | None = None, /, **kwargs: Any) -> None:
        if "id" not in kwargs:
            raise TypeError("RemoveMessage requires id=...")
        super().__init__(content, **kwargs)
