"""Messages shown as langchain_core shows them (``pretty_repr`` / ``pretty_print``;
``transcript``: one ``Role: text`` line a message).

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


__all__ = ["interactive", "message_role", "pretty_repr", "title_bar", "transcript"]

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


def message_role(message: Any, prefixes: Mapping[str, str]) -> tuple[str, str]:
    """The kind of ``message`` (a streamed piece as the message it is a piece of) and the role
    a transcript gives it: ``prefixes``' for its kind, a chat message's own role."""
    kind = getattr(message, "type", "")
    kind = _CHUNK_KINDS.get(kind, kind)
    if kind in prefixes:
        return kind, prefixes[kind]
    if kind == "chat":
        return kind, str(getattr(message, "role", kind))
    raise ValueError(f"Got unsupported message type: {message}")


def transcript(messages: Sequence[Any], human_prefix: str = "Human", ai_prefix: str = "AI") -> str:
    """``messages`` as a transcript: ``Human: ...``, ``AI: ...`` (with the tool calls it made,
    ``[tool calls: name({args})]``), ``System: ...``, ``Tool: ...``; a chat message by its own
    role.  What the summarization middleware shows its model (the requests it recorded hash
    this form; ``engine.message_utils.get_buffer_string`` is LangChain's)."""
    lines = []
    prefixes = {"human": human_prefix, "ai": ai_prefix, **_ROLES}
    for m in messages:
        kind, role = message_role(m, prefixes)
        text = getattr(m, "text", "")
        calls = getattr(m, "tool_calls", None) if kind == "ai" else None
        if calls:
            made = ", ".join(f"{c.get('name')}({c.get('args')})" for c in calls)
            text = f"{text} [tool calls: {made}]".strip()
        lines.append(f"{role}: {text}")
    return "\n".join(lines)
