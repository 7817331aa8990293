"""LangChain's message utilities on the engine's messages, for programs that import them from
``langchain.messages`` / ``langchain_core.messages`` (``engine.messages`` offers them).

``message_chunk_to_message`` is the engine's own (and ``convert_to_messages`` is
``engine.messages.coerce_messages``).  The others
(trimming, filtering, merging runs, OpenAI dicts, LangChain's dict form) are langchain_core's
functions, whose options are many and exact: given the messages as langchain_core's, answering
with the engine's.  The engine does not need langchain_core otherwise, so calling one of them
without it installed raises an ``ImportError`` saying what to install.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from engine.core import foreign
from engine.message_classes import BaseMessage, BaseMessageChunk
from engine.message_json import message_from_dict
from engine.message_pretty import message_role

__all__ = [
    "convert_to_openai_messages",
    "filter_messages",
    "get_buffer_string",
    "merge_message_runs",
    "message_chunk_to_message",
    "messages_from_dict",
    "messages_to_dict",
    "trim_messages",
]


def _theirs(name: str) -> Callable[..., Any]:
    try:
        module = importlib.import_module("langchain_core.messages")
    except ImportError as exc:  # pragma: no cover - the langchain extra is not installed
        raise ImportError(f"{name} needs langchain_core (pip install langchain-core)") from exc
    return getattr(module, name)  # type: ignore[no-any-return]


def _to_langchain(messages: Iterable[Any]) -> list[Any]:
    return [foreign.to_family("langchain", m) for m in messages]


_AS_THEY_ARE = frozenset({"chat", "HumanMessageChunk", "SystemMessageChunk"})
"""Kinds the engine's reading of a LangChain message maps onto others (a ``ChatMessage`` onto
the message of its role: see ``engine.interop.langchain_messages``); what the utilities give
back keeps them as they are."""


def _ours(messages: Iterable[Any]) -> list[Any]:
    return [_our_message(m) for m in messages]


def _our_message(message: Any) -> Any:
    if getattr(message, "type", None) in _AS_THEY_ARE and foreign.is_foreign_message(message):
        return message_from_dict(message.model_dump())
    return foreign.adapt("message", message) or message


def _type_names(types: Any) -> Any:
    """An ``include_types`` / ``exclude_types`` list with the engine's classes given by their
    ``type`` name, which langchain_core matches as it matches its own classes'."""
    if types is None or isinstance(types, str):  # a string: matched as LangChain matches it
        return types
    out: list[Any] = []
    for t in types:
        if isinstance(t, type) and issubclass(t, BaseMessage):
            out.append(t.model_fields["type"].default)
        else:
            out.append(t)
    return out


def trim_messages(messages: Sequence[Any] | None = None, **kwargs: Any) -> Any:
    """The messages trimmed as LangChain's ``trim_messages(messages, **kwargs)`` trims them
    (``max_tokens``, ``token_counter``, ``strategy``, ``include_system``, ``start_on``...)."""
    theirs = _theirs("trim_messages")
    for key in ("start_on", "end_on"):
        if key in kwargs and isinstance(kwargs[key], list | tuple):
            kwargs[key] = _type_names(kwargs[key])
        elif isinstance(kwargs.get(key), type):
            kwargs[key] = _type_names([kwargs[key]])[0]  # type: ignore[index]
    if messages is None:
        return theirs(**kwargs)
    return _ours(theirs(_to_langchain(messages), **kwargs))


def filter_messages(messages: Iterable[Any] | None = None, **kwargs: Any) -> Any:
    """The messages LangChain's ``filter_messages`` keeps (``include_names``, ``exclude_types``,
    ``include_ids``, ``exclude_tool_calls``...), the engine's classes allowed as types."""
    theirs = _theirs("filter_messages")
    for key in ("include_types", "exclude_types"):
        if key in kwargs:
            kwargs[key] = _type_names(kwargs[key])
    if messages is None:
        return theirs(**kwargs)
    return _ours(theirs(_to_langchain(messages), **kwargs))


def merge_message_runs(messages: Iterable[Any] | None = None, **kwargs: Any) -> Any:
    """Consecutive messages of one type merged into one, as LangChain's ``merge_message_runs``
    merges them (``chunk_separator``)."""
    theirs = _theirs("merge_message_runs")
    if messages is None:
        return theirs(**kwargs)
    return _ours(theirs(_to_langchain(messages), **kwargs))


def convert_to_openai_messages(messages: Any, **kwargs: Any) -> Any:
    """The messages as OpenAI chat dicts, as LangChain's ``convert_to_openai_messages`` gives
    them (one message: one dict)."""
    theirs = _theirs("convert_to_openai_messages")
    if isinstance(messages, BaseMessage | dict | str | tuple):
        return theirs(foreign.to_family("langchain", messages), **kwargs)
    return theirs(_to_langchain(messages), **kwargs)


def messages_to_dict(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """LangChain's dict form of each message (``{"type": ..., "data": {...}}``)."""
    return _theirs("messages_to_dict")(_to_langchain(messages))  # type: ignore[no-any-return]


def messages_from_dict(messages: Sequence[dict[str, Any]]) -> list[BaseMessage]:
    """Messages back from LangChain's dict form (``messages_to_dict``)."""
    return _ours(_theirs("messages_from_dict")(messages))


def message_chunk_to_message(chunk: Any) -> Any:
    """A streamed chunk as the whole message it stands for (an AI one's tool calls parsed);
    any other message as it is."""
    if isinstance(chunk, BaseMessageChunk):
        return chunk.to_message()
    return chunk


def get_buffer_string(
    messages: Sequence[Any],
    human_prefix: str = "Human",
    ai_prefix: str = "AI",
    *,
    system_prefix: str = "System",
    function_prefix: str = "Function",
    tool_prefix: str = "Tool",
    message_separator: str = "\n",
    format: Literal["prefix", "xml"] = "prefix",
) -> str:
    """``messages`` as LangChain's ``get_buffer_string`` writes them: ``Role: text`` each (an
    AI message followed by its tool calls' list, or its legacy ``function_call``), joined by
    ``message_separator``; ``format="xml"`` is LangChain's own (``<message type="human">``...,
    escaped, with content blocks and tool calls as elements)."""
    if format not in ("prefix", "xml"):
        raise ValueError(
            f"Unrecognized format={format!r}. Supported formats are 'prefix' and 'xml'."
        )
    prefixes = {
        "human": human_prefix,
        "ai": ai_prefix,
        "system": system_prefix,
        "function": function_prefix,
        "tool": tool_prefix,
    }
    if format == "xml":
        for m in messages:
            message_role(m, prefixes)  # an unsupported message is refused as LangChain does
        return _theirs("get_buffer_string")(  # type: ignore[no-any-return]
            _to_langchain(messages),
            human_prefix,
            ai_prefix,
            system_prefix=system_prefix,
            function_prefix=function_prefix,
            tool_prefix=tool_prefix,
            message_separator=message_separator,
            format="xml",
        )
    lines = []
    for m in messages:
        kind, role = message_role(m, prefixes)
        line = f"{role}: {getattr(m, 'text', '')}"
        if kind == "ai":
            calls = getattr(m, "tool_calls", None)
            legacy = (getattr(m, "additional_kwargs", None) or {}).get("function_call")
            if calls:
                line += str(calls)
            elif legacy is not None:
                line += str(legacy)
        lines.append(line)
    return message_separator.join(lines)
