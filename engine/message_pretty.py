"""Messages shown as langchain_core shows them (``pretty_repr`` / ``pretty_print``;
``get_buffer_string``: a transcript, one ``Role: text`` line a message).

A title bar 80 columns wide naming the message type (``==== Ai Message ====``), the sender's
name if it has one, a blank line, the content as it is (a list of blocks printed as a list),
then an AI message's tool calls and invalid tool calls, one argument a line.  Programs from the
docs print their transcripts this way; the output matches theirs line for line.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, Protocol


class _Message(Protocol):
    """What is printed of a message (``engine.messages.BaseMessage`` has it)."""

    type: str
    name: str | None
    content: Any


__all__ = ["get_buffer_string", "interactive", "pretty_repr", "title_bar"]

WIDTH = 80
_BOLD, _PLAIN = "\033[1m", "\033[0m"


def title_bar(title: str, *, bold: bool = False) -> str:
    """``title`` centred in ``=`` signs, 80 columns (the odd column goes to the right)."""
    padded = f" {title} "
    left = (WIDTH - len(padded)) // 2
    right = WIDTH - len(padded) - left if len(padded) < WIDTH else left
    shown = f"{_BOLD}{padded}{_PLAIN}" if bold else padded
    return "=" * left + shown + "=" * right


def _call_lines(call: Mapping[str, Any]) -> list[str]:
    lines = [f"  {call.get('name', 'Tool')} ({call.get('id')})", f" Call ID: {call.get('id')}"]
    if call.get("error"):
        lines.append(f"  Error: {call.get('error')}")
    lines.append("  Args:")
    args = call.get("args")
    if isinstance(args, str):
        lines.append(f"    {args}")
    elif isinstance(args, Mapping):
        lines.extend(f"    {key}: {value}" for key, value in args.items())
    return lines


def _calls(heading: str, calls: Sequence[Mapping[str, Any]]) -> list[str]:
    if not calls:
        return []
    return [heading, *(line for call in calls for line in _call_lines(call))]


def pretty_repr(message: _Message, *, html: bool = False) -> str:
    """The message as langchain_core's ``pretty_repr`` writes it (``html``: a bold title)."""
    head = title_bar(f"{message.type.title()} Message", bold=html)
    if message.name is not None:
        head += f"\nName: {message.name}"
    text = f"{head}\n\n{message.content}"
    calls = [
        *_calls("Tool Calls:", getattr(message, "tool_calls", None) or []),
        *_calls("Invalid Tool Calls:", getattr(message, "invalid_tool_calls", None) or []),
    ]
    if getattr(message, "type", "") in ("ai", "AIMessageChunk"):
        return (text.strip() + "\n" + "\n".join(calls)).strip()
    return text


def interactive() -> bool:
    """Running in an interactive interpreter (the REPL or IPython set ``sys.ps2``): titles are
    printed bold, as langchain_core tells it (a ``python -c`` or piped program is not one)."""
    return hasattr(sys, "ps2")


_ROLES = {"system": "System", "tool": "Tool", "function": "Function"}
_CHUNK_KINDS = {
    "AIMessageChunk": "ai",
    "HumanMessageChunk": "human",
    "SystemMessageChunk": "system",
    "ToolMessageChunk": "tool",
    "FunctionMessageChunk": "function",
    "ChatMessageChunk": "chat",
}
"""A streamed piece is shown as the message it is a piece of."""


def get_buffer_string(
    messages: Sequence[Any], human_prefix: str = "Human", ai_prefix: str = "AI"
) -> str:
    """``messages`` as a transcript: ``Human: ...``, ``AI: ...`` (with the tool calls it made),
    ``System: ...``, ``Tool: ...``; a chat message by its own role. What a summary prompt or a
    memory buffer shows a model, without the metadata ``str(message)`` carries."""
    lines = []
    for m in messages:
        kind = getattr(m, "type", "")
        kind = _CHUNK_KINDS.get(kind, kind)
        if kind == "human":
            role = human_prefix
        elif kind == "ai":
            role = ai_prefix
        elif kind in _ROLES:
            role = _ROLES[kind]
        elif kind == "chat":
            role = str(getattr(m, "role", kind))
        else:
            raise ValueError(f"Got unsupported message type: {m!r}")
        text = getattr(m, "text", "")
        calls = getattr(m, "tool_calls", None) if kind == "ai" else None
        if calls:
            made = ", ".join(f"{c.get('name')}({c.get('args')})" for c in calls)
            text = f"{text} [tool calls: {made}]".strip()
        lines.append(f"{role}: {text}")
    return "\n".join(lines)
