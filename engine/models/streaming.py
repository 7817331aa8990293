"""Splitting a whole message into stream chunks, and adding chunks back up.

Models that produce a whole reply at once (scripted, replayed) stream it with
``split_message``; ``collect`` turns any stream back into the full ``AIMessage``.  Both rely
on ``AIMessageChunk.__add__`` / ``to_message`` so argument parsing lives in one place.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from engine.messages import AIMessage, AIMessageChunk, ToolCallChunk

__all__ = ["closing_chunk", "collect", "split_message", "split_text", "token_pieces"]

_WORDISH = re.compile(r"\s*\S+|\s+")
ARGS_PIECE = 12
"""Characters of tool-call arguments per streamed chunk."""


def split_text(text: str) -> list[str]:
    """Word-ish pieces (each word with the whitespace before it); they join back to ``text``."""
    return _WORDISH.findall(text)


def _tool_chunks(message: AIMessage) -> list[list[ToolCallChunk]]:
    """One list of chunks per tool call (valid then invalid), arguments in small slices."""
    raw: list[tuple[str | None, str | None, str]] = [
        (c.get("name"), c.get("id"), json.dumps(c.get("args") or {})) for c in message.tool_calls
    ]
    raw += [(c.get("name"), c.get("id"), c.get("args") or "") for c in message.invalid_tool_calls]
    out: list[list[ToolCallChunk]] = []
    for index, (name, call_id, args) in enumerate(raw):
        pieces = [args[i : i + ARGS_PIECE] for i in range(0, len(args), ARGS_PIECE)] or [""]
        # keys in ``ToolCallChunk``'s order, the order a chunk's validation gives them
        chunks = [
            ToolCallChunk(
                name=name, args=pieces[0], id=call_id, index=index, type="tool_call_chunk"
            )
        ]
        chunks += [
            ToolCallChunk(name=None, args=p, id=None, index=index, type="tool_call_chunk")
            for p in pieces[1:]
        ]
        out.append(chunks)
    return out


def split_message(message: AIMessage) -> list[AIMessageChunk]:
    """Stream chunks that add up to ``message``: text deltas, then tool-call deltas.

    Every chunk carries the message's id; the last one carries its usage and metadata.
    """
    chunks = [AIMessageChunk(content=piece, id=message.id) for piece in split_text(message.text)]
    for call_chunks in _tool_chunks(message):
        chunks += [
            AIMessageChunk(content="", id=message.id, tool_call_chunks=[c]) for c in call_chunks
        ]
    if not chunks:
        chunks.append(AIMessageChunk(content="", id=message.id))
    last = chunks[-1]
    last.usage_metadata = message.usage_metadata
    last.response_metadata = dict(message.response_metadata)
    return chunks


def token_pieces(message: AIMessage) -> list[tuple[str, list[ToolCallChunk]]]:
    """``(chunk.text, chunk.tool_call_chunks)`` of each chunk of ``split_message(message)``
    that carries text or a tool-call piece, in order, without building the chunks: what a
    model call's token events are made of when nobody takes the chunks themselves."""
    out: list[tuple[str, list[ToolCallChunk]]] = [
        (piece, []) for piece in split_text(message.text) if piece
    ]
    for call_chunks in _tool_chunks(message):
        out += [("", [c]) for c in call_chunks]
    return out


def collect(items: Iterable[AIMessage]) -> AIMessage | None:
    """The full message of a stream: its final non-chunk item, else the sum of its chunks.

    Returns None for an empty stream.  Chunks are added in one pass (not pairwise), so long
    streams stay linear.
    """
    text: list[str] = []
    tool_chunks: list[ToolCallChunk] = []
    first: AIMessageChunk | None = None
    metadata: dict[str, object] = {}
    usage = None
    for item in items:
        if not isinstance(item, AIMessageChunk):
            return item
        first = first or item
        metadata.update(item.response_metadata)
        text.append(item.text)
        tool_chunks += item.tool_call_chunks
        usage = usage or item.usage_metadata
    if first is None:
        return None
    head = AIMessageChunk(content="".join(text), id=first.id, usage_metadata=usage)
    merged = head + AIMessageChunk(
        content="", tool_call_chunks=tool_chunks, response_metadata=metadata
    )
    return merged.to_message()


def closing_chunk(chunks: Sequence[AIMessage]) -> AIMessageChunk | None:
    """The empty chunk marked ``chunk_position="last"`` that ends a stream whose model did not
    mark its own last chunk (langchain_core adds one the same way); None if it did, or if
    nothing streamed."""
    last = chunks[-1] if chunks else None
    if not isinstance(last, AIMessageChunk) or last.chunk_position == "last":
        return None
    empty: Any = "" if isinstance(last.content, str) else []
    return AIMessageChunk(content=empty, id=last.id, name=last.name, chunk_position="last")
