"""The conversation of a thread, built from events (plain Python, no Qt).

``Transcript.apply(events)`` follows the ``messages`` channel through ``state.updated`` events
(``append`` adds rows, ``replace``/``set`` keep the common prefix and swap the tail, ``clear``
empties), so it works for live runs and recorded sessions alike, without the graph.  While a
model streams (``model.token``), one extra *streaming* entry sits at the end and grows; the
model's ``model.response`` turns it into the pending reply (or drops it on an error) and the
next change of the ``messages`` channel replaces it with the real message.

Listeners get index ranges (``before_insert``/``after_insert``, ``before_remove``/
``after_remove``, ``changed``), so a Qt adapter can emit begin/end row signals: long
conversations are appended to, never rebuilt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.events import EventBase, ModelResponse, ModelToken, StateUpdated

__all__ = ["ROLES", "Entry", "Transcript", "TranscriptListener", "message_dicts", "messages_at"]

ROLES = ("human", "ai", "tool", "system")
_ROLE_ALIASES = {"user": "human", "assistant": "ai", "AIMessageChunk": "ai", "developer": "system"}


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else json.dumps(content, ensure_ascii=False, default=str)


@dataclass(eq=False)
class Entry:
    """One message of the transcript (or the reply being streamed)."""

    message: dict[str, Any]
    role: str = "ai"
    streaming: bool = False
    """Tokens are still arriving."""
    pending: bool = False
    """The model answered but the state does not hold the message yet (or streaming)."""
    tool_name: str | None = None
    version: int = 0
    """Bumped on every change (views cache renderings per version)."""
    chunks: dict[int, dict[str, str]] = field(default_factory=dict)
    """Streamed tool-call fragments by index: ``{"name", "args"}`` (arguments as raw text)."""

    @classmethod
    def of(cls, message: dict[str, Any], tool_names: dict[str, str] | None = None) -> Entry:
        role = str(message.get("type") or message.get("role") or "ai")
        role = _ROLE_ALIASES.get(role, role)
        name = None
        if role == "tool":
            call_id = message.get("tool_call_id")
            name = message.get("name") or (tool_names or {}).get(str(call_id))
        return cls(message=message, role=role, tool_name=name)

    @property
    def id(self) -> str | None:
        return self.message.get("id")

    @property
    def text(self) -> str:
        return _text(self.message.get("content"))

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        calls = self.message.get("tool_calls") or []
        return [c for c in calls if isinstance(c, dict)]

    @property
    def invalid_tool_calls(self) -> list[dict[str, Any]]:
        calls = self.message.get("invalid_tool_calls") or []
        return [c for c in calls if isinstance(c, dict)]

    @property
    def status(self) -> str | None:
        """``success`` / ``error`` for tool results, else None."""
        return str(self.message.get("status") or "success") if self.role == "tool" else None

    @property
    def failed(self) -> bool:
        return self.status == "error"


class TranscriptListener(Protocol):
    def before_insert(self, first: int, last: int) -> None: ...
    def after_insert(self) -> None: ...
    def before_remove(self, first: int, last: int) -> None: ...
    def after_remove(self) -> None: ...
    def changed(self, first: int, last: int) -> None: ...


def message_dicts(messages: Iterable[Any]) -> list[dict[str, Any]]:
    """Messages (pydantic objects or dicts) as JSON dicts."""
    out = []
    for m in messages:
        if isinstance(m, dict):
            out.append(m)
        elif hasattr(m, "model_dump"):
            out.append(m.model_dump(mode="json"))
    return out


class Transcript:
    """Entries in conversation order; the streaming/pending reply, if any, is last."""

    def __init__(self, listener: TranscriptListener | None = None) -> None:
        self.listener = listener
        self.entries: list[Entry] = []
        self.tail: Entry | None = None
        """The reply being streamed or awaiting the state update (shown after ``entries``)."""
        self._tool_names: dict[str, str] = {}
        self._tail_dirty = False

    def __len__(self) -> int:
        return len(self.entries) + (self.tail is not None)

    def __getitem__(self, i: int) -> Entry:
        if i == len(self.entries) and self.tail is not None:
            return self.tail
        return self.entries[i]

    @property
    def rows(self) -> list[Entry]:
        return [*self.entries, *([self.tail] if self.tail is not None else [])]

    # -- feeding -------------------------------------------------------------------------------

    def apply(self, events: Iterable[EventBase]) -> None:
        """Follow ``events``; a streamed reply reports one change per call, not per token."""
        for ev in events:
            if ev.ns:  # a subgraph's channels are not this thread's messages
                continue
            if isinstance(ev, StateUpdated):
                for change in ev.changes or []:
                    if change.get("channel") == "messages":
                        self._apply_change(change)
            elif isinstance(ev, ModelToken):
                self._stream(ev.text or "", ev.tool_call_chunks or [])
            elif isinstance(ev, ModelResponse):
                self._responded(ev.message, ev.error)
            elif ev.kind == "run.finished":
                self._drop_tail()
        if self._tail_dirty:
            self._tail_dirty = False
            if self.tail is not None:
                self._changed_tail()

    def set_messages(self, messages: Iterable[Any]) -> None:
        """Show exactly these messages (a checkpoint's); keeps the common prefix."""
        self._drop_tail()
        self._replace(message_dicts(messages))

    def _apply_change(self, change: dict[str, Any]) -> None:
        op = change.get("op")
        self._drop_tail()
        if op == "append":
            self._append([m for m in change.get("appended") or [] if isinstance(m, dict)])
        elif op in ("replace", "set") or (op == "remove" and "value" in change):
            value = change.get("value")
            self._replace([m for m in value or [] if isinstance(m, dict)])
        elif op == "clear":
            self._replace([])

    def _append(self, messages: list[dict[str, Any]]) -> None:
        if not messages:
            return
        first = len(self.entries)
        self._before_insert(first, first + len(messages) - 1)
        for m in messages:
            self.entries.append(self._entry(m))
        self._after_insert()

    def _replace(self, messages: list[dict[str, Any]]) -> None:
        keep = 0
        for old, new in zip(self.entries, messages, strict=False):
            if old.message != new:
                break
            keep += 1
        if keep < len(self.entries):
            if self.listener is not None:
                self.listener.before_remove(keep, len(self.entries) - 1)
            del self.entries[keep:]
            if self.listener is not None:
                self.listener.after_remove()
        self._append(messages[keep:])

    def _entry(self, message: dict[str, Any]) -> Entry:
        entry = Entry.of(message, self._tool_names)
        for call in entry.tool_calls:
            if call.get("id") and call.get("name"):
                self._tool_names[str(call["id"])] = str(call["name"])
        return entry

    # -- the streamed reply ----------------------------------------------------------------------

    def _stream(self, text: str, chunks: list[Any]) -> None:
        tail = self.tail
        if tail is None or not tail.streaming:
            self._drop_tail()
            tail = Entry(message={"type": "ai", "content": ""}, streaming=True, pending=True)
            at = len(self.entries)
            self._before_insert(at, at)
            self.tail = tail
            self._after_insert()
        tail.message["content"] = tail.message.get("content", "") + text
        for i, ch in enumerate(chunks):
            if not isinstance(ch, dict):
                continue
            idx = ch.get("index")
            slot = tail.chunks.setdefault(
                idx if isinstance(idx, int) else i, {"name": "", "args": ""}
            )
            slot["name"] = slot["name"] or str(ch.get("name") or "")
            slot["args"] += str(ch.get("args") or "")
        tail.version += 1
        self._tail_dirty = True

    def _responded(self, message: Any, error: Any) -> None:
        if error is not None or not isinstance(message, dict):
            self._drop_tail()
            return
        if self.tail is None:
            return  # not streamed: the state update brings the message
        self.tail.message = message
        self.tail.streaming = False
        self.tail.chunks = {}
        self.tail.version += 1
        self._changed_tail()

    def _drop_tail(self) -> None:
        if self.tail is None:
            return
        at = len(self.entries)
        if self.listener is not None:
            self.listener.before_remove(at, at)
        self.tail = None
        if self.listener is not None:
            self.listener.after_remove()

    def _changed_tail(self) -> None:
        if self.listener is not None:
            at = len(self.entries)
            self.listener.changed(at, at)

    def _before_insert(self, first: int, last: int) -> None:
        if self.listener is not None:
            self.listener.before_insert(first, last)

    def _after_insert(self) -> None:
        if self.listener is not None:
            self.listener.after_insert()


def messages_at(events: Iterable[EventBase], checkpoint_id: str) -> list[dict[str, Any]] | None:
    """The ``messages`` channel as of checkpoint ``checkpoint_id``, replayed from the events
    (for recorded sessions, where there is no graph to ask); None if no such checkpoint."""
    replay = Transcript()
    for ev in events:
        if ev.ns:
            continue
        if ev.kind == "state.updated":
            replay.apply([ev])
        elif ev.kind == "checkpoint.saved" and ev.checkpoint_id == checkpoint_id:
            return [e.message for e in replay.entries]
    return None
