"""``add_messages(format="langchain-openai")``: messages reshaped as OpenAI-style content.

What LangGraph's reducer option does by a round trip through OpenAI's chat format, in our own
code: content becomes a string (text blocks alone are joined by newlines) or ``text`` /
``image_url`` blocks (provider extras such as ``cache_control`` dropped, an Anthropic ``image``
source becomes a data URL), an AI message's ``tool_use`` blocks become its ``tool_calls``, and
a human message's ``tool_result`` blocks become ``ToolMessage``s after what else it says (the
round trip keeps no ``is_error``: each has status ``success``).  Unlike LangGraph's round trip,
the messages keep their ids (the engine's message log follows them).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["openai_shaped"]

_AI_TYPES = ("ai", "AIMessageChunk")
"""Messages are told apart by their ``type`` (this module sits beside ``engine.messages``,
which calls it, so it takes the ToolMessage class as an argument instead of importing it)."""


def _image_url(block: dict[str, Any]) -> dict[str, Any]:
    src = block.get("source") or {}
    if src.get("type") == "base64":
        url = f"data:{src.get('media_type')};base64,{src.get('data')}"
    else:
        url = str(src.get("url") or block.get("url") or "")
    return {"type": "image_url", "image_url": {"url": url}}


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Text and image blocks of a content value (other kinds are left to the callers)."""
    items = [content] if isinstance(content, str) else list(content or [])
    out: list[dict[str, Any]] = []
    for block in items:
        if isinstance(block, str):
            out.append({"type": "text", "text": block})
        elif not isinstance(block, dict):
            continue
        elif block.get("type") == "text":
            out.append({"type": "text", "text": block.get("text", "")})
        elif block.get("type") == "image":
            out.append(_image_url(block))
        elif block.get("type") == "image_url":
            out.append(block)
    return out


def _content(blocks: list[dict[str, Any]]) -> Any:
    """Text blocks alone as one string (joined by newlines, "" for none), as OpenAI's format
    gives them; with an image, the blocks."""
    if all(b.get("type") == "text" for b in blocks):
        return "\n".join(str(b.get("text", "")) for b in blocks)
    return blocks


def _shaped(msg: Any, tool_message: Callable[..., Any]) -> list[Any]:
    content = msg.content
    if isinstance(content, str):
        return [msg]
    if msg.type in _AI_TYPES:
        uses = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        if uses:
            known = {c.get("id") for c in msg.tool_calls}
            calls = [
                *msg.tool_calls,
                *(
                    {"name": b.get("name"), "args": b.get("input") or {}, "id": b.get("id")}
                    for b in uses
                    if b.get("id") not in known
                ),
            ]
            rest = _blocks([b for b in content if b not in uses])
            fields = {**dict(msg), "content": _content(rest), "tool_calls": calls}
            return [type(msg).model_validate(fields)]
    if msg.type == "human":
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            out: list[Any] = []
            rest = _blocks([b for b in content if b not in results])
            if rest:  # what else the message says comes first
                out.append(msg.model_copy(update={"content": _content(rest)}))
            for b in results:
                inner = b.get("content")
                body: Any = inner if isinstance(inner, str) else _content(_blocks(inner))
                out.append(
                    tool_message(
                        content=body,
                        tool_call_id=str(b.get("tool_use_id") or ""),
                        id=msg.id if not out else str(uuid.uuid4()),
                    )
                )
            return out
    return [msg.model_copy(update={"content": _content(_blocks(content))})]


def openai_shaped(messages: Iterable[Any], tool_message: Callable[..., Any]) -> list[Any]:
    """Each message reshaped (one human message of tool results may become several, made
    with ``tool_message``, the ToolMessage class)."""
    return [shaped for m in messages for shaped in _shaped(m, tool_message)]
