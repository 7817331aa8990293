"""What changed between two checkpoints' states (plain Python, no Qt).

Three sections, each in the terms a user thinks in:

- messages (any key holding a list of messages): appended, replaced (same id, different
  content: which fields changed, e.g. ``tool_calls[0].args.path``) and removed;
- todos (a list of ``{"content", "status"}`` items): added, removed, status changes;
- every other key: added / removed / changed, down to nested paths (``config.temperature``).

A message list that only grew (the common case, an ``AppendLog`` extending its parent's)
is diffed in O(new messages), so two checkpoints of a 10,000-message thread diff at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.lazy_list import same_stored
from engine.message_log import AppendLog, MessageList
from engine.messages import BaseMessage
from engine.serde import to_jsonable
from studio.models.state_tree import message_preview, path_text

__all__ = ["MessageChange", "StateDiff", "TodoChange", "ValueChange", "diff_states", "is_todo_list"]

_MAX_VALUE_CHANGES = 200


@dataclass(frozen=True)
class ValueChange:
    path: str
    kind: Literal["added", "removed", "changed"]
    before: Any = None
    after: Any = None

    def text(self) -> str:
        if self.kind == "added":
            return f"+ {self.path} = {_short(self.after)}"
        if self.kind == "removed":
            return f"- {self.path} (was {_short(self.before)})"
        return f"~ {self.path}: {_short(self.before)} → {_short(self.after)}"


@dataclass(frozen=True)
class MessageChange:
    kind: Literal["appended", "replaced", "removed"]
    index: int
    """Position in the newer list (appended, replaced) or in the older one (removed)."""
    message_id: str | None
    before: BaseMessage | None = None
    after: BaseMessage | None = None
    fields: tuple[ValueChange, ...] = ()
    """For ``replaced``: the message fields that changed."""
    key: str = "messages"

    def text(self) -> str:
        mark = {"appended": "+", "removed": "-", "replaced": "~"}[self.kind]
        msg = self.after if self.after is not None else self.before
        head = (
            f"{mark} {self.key}[{self.index}] {message_preview(msg, 70) if msg is not None else ''}"
        )
        if self.kind == "replaced" and self.fields:
            head += " (" + "; ".join(f.text()[2:] for f in self.fields) + ")"
        return head


@dataclass(frozen=True)
class TodoChange:
    content: str
    kind: Literal["added", "removed", "status"]
    before: str | None = None
    after: str | None = None

    def text(self) -> str:
        if self.kind == "added":
            return f"+ todo {self.content!r} ({self.after})"
        if self.kind == "removed":
            return f"- todo {self.content!r} (was {self.before})"
        return f"~ todo {self.content!r}: {self.before} → {self.after}"


@dataclass(frozen=True)
class StateDiff:
    keys: tuple[ValueChange, ...] = ()
    messages: tuple[MessageChange, ...] = ()
    todos: tuple[TodoChange, ...] = ()
    next_before: tuple[str, ...] | None = None
    next_after: tuple[str, ...] | None = None
    truncated: bool = False
    """More than ``_MAX_VALUE_CHANGES`` value changes: the rest are not listed."""
    unchanged_keys: tuple[str, ...] = field(default=())

    @property
    def is_empty(self) -> bool:
        return not (self.keys or self.messages or self.todos)

    def summary(self) -> str:
        parts: list[str] = []
        for kind in ("appended", "replaced", "removed"):
            n = sum(1 for m in self.messages if m.kind == kind)
            if n:
                parts.append(f"{n} message{'s' if n != 1 else ''} {kind}")
        if self.todos:
            n = len(self.todos)
            parts.append(f"{n} todo change{'s' if n != 1 else ''}")
        if self.keys:
            n = len(self.keys)
            parts.append(f"{n} value change{'s' if n != 1 else ''}")
        return " · ".join(parts) if parts else "no changes"

    def lines(self) -> list[str]:
        return (
            [c.text() for c in self.messages]
            + [t.text() for t in self.todos]
            + [k.text() for k in self.keys]
        )


def _short(value: Any, limit: int = 60) -> str:
    import json

    text = " ".join(json.dumps(to_jsonable(value), ensure_ascii=False).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_message_list(value: Any) -> bool:
    if isinstance(value, MessageList):
        return True
    # any other list (an ``AppendLog`` too: an ``operator.add`` channel holds whatever its
    # nodes append) is messages when its first items are
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and bool(value)
        and all(isinstance(m, BaseMessage) for m in value[:3])
    )


def is_todo_list(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str)
        and bool(value)
        and all(isinstance(t, Mapping) and "content" in t and "status" in t for t in value)
    )


def _as_mapping(values: Any) -> Mapping[str, Any]:
    if values is None:
        return {}
    return values if isinstance(values, Mapping) else {"(value)": values}


def diff_states(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    *,
    next_before: tuple[str, ...] | None = None,
    next_after: tuple[str, ...] | None = None,
) -> StateDiff:
    """The changes from ``before`` to ``after`` (state values as ``get_state`` returns them).

    A graph whose state is one value, not a dict (``StateGraph(Annotated[list, add])``, an
    ``@entrypoint``'s return value), is compared as that value under the key ``(value)``."""
    before = _as_mapping(before)
    after = _as_mapping(after)
    keys: list[ValueChange] = []
    messages: list[MessageChange] = []
    todos: list[TodoChange] = []
    unchanged: list[str] = []
    for key in [*after.keys(), *(k for k in before if k not in after)]:
        a, b = before.get(key), after.get(key)
        if a is b:
            unchanged.append(key)
            continue
        if _is_message_list(a) or _is_message_list(b):
            found = _diff_messages(a or [], b or [], key)
            messages.extend(found)
            if not found:
                unchanged.append(key)
            continue
        if is_todo_list(a) or is_todo_list(b):
            found_todos = _diff_todos(a or [], b or [])
            todos.extend(found_todos)
            if not found_todos:
                unchanged.append(key)
            continue
        n = len(keys)
        if key not in before:
            keys.append(ValueChange(key, "added", None, to_jsonable(b)))
        elif key not in after:
            keys.append(ValueChange(key, "removed", to_jsonable(a), None))
        else:
            _value_changes((key,), to_jsonable(a), to_jsonable(b), keys)
        if len(keys) == n:
            unchanged.append(key)
    truncated = len(keys) > _MAX_VALUE_CHANGES
    return StateDiff(
        keys=tuple(keys[:_MAX_VALUE_CHANGES]),
        messages=tuple(messages),
        todos=tuple(todos),
        next_before=next_before,
        next_after=next_after,
        truncated=truncated,
        unchanged_keys=tuple(unchanged),
    )


def _value_changes(path: tuple[str | int, ...], a: Any, b: Any, out: list[ValueChange]) -> None:
    if len(out) > _MAX_VALUE_CHANGES or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*b.keys(), *(k for k in a if k not in b)]:
            p = (*path, k)
            if k not in a:
                out.append(ValueChange(path_text(p), "added", None, b[k]))
            elif k not in b:
                out.append(ValueChange(path_text(p), "removed", a[k], None))
            else:
                _value_changes(p, a[k], b[k], out)
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _value_changes((*path, i), x, y, out)
        return
    out.append(ValueChange(path_text(path), "changed", a, b))


def _diff_messages(a: Sequence[Any], b: Sequence[Any], key: str) -> list[MessageChange]:
    out: list[MessageChange] = []
    if isinstance(a, AppendLog) and isinstance(b, AppendLog) and b.extends(a):
        return [
            MessageChange("appended", i, m.id, None, m, key=key)
            for i, m in enumerate(b[len(a) :], len(a))
        ]
    # the common prefix (the same stored items of one read, same objects, or equal) needs no
    # ids, and no decoding where it holds the same stored items (also under the views a
    # message channel hands out: item n of a view is item n of the list it reads)
    n = 0
    limit = min(len(a), len(b))
    sa, sb = _read_list(a), _read_list(b)
    while n < limit and (same_stored(sa, n, sb, n) or a[n] is b[n] or a[n] == b[n]):
        n += 1
    old = {m.id: i for i, m in enumerate(a[n:], n) if getattr(m, "id", None)}
    new_ids = {getattr(m, "id", None) for m in b[n:]}
    for i, m in enumerate(b[n:], n):
        j = (
            old.get(getattr(m, "id", None))
            if getattr(m, "id", None)
            else (i if i < len(a) else None)
        )
        if j is None:
            out.append(MessageChange("appended", i, m.id, None, m, key=key))
        elif not (a[j] is m or a[j] == m):
            fields: list[ValueChange] = []
            _value_changes((), _dump(a[j]), _dump(m), fields)
            out.append(MessageChange("replaced", i, m.id, a[j], m, tuple(fields), key=key))
    for j, m in enumerate(a[n:], n):
        mid = getattr(m, "id", None)
        if (mid and mid not in new_ids) or (not mid and j >= len(b)):
            out.append(MessageChange("removed", j, mid, m, None, key=key))
    return out


def _read_list(seq: Sequence[Any]) -> Any:
    """The list a message channel's view reads (a saver's lazily decoded list: its first
    ``len(seq)`` items are the view's), else ``seq`` itself."""
    if isinstance(seq, AppendLog):
        return getattr(seq.buffer, "items", seq)
    return seq


def _dump(m: Any) -> Any:
    return m.model_dump(mode="json") if isinstance(m, BaseMessage) else to_jsonable(m)


def _diff_todos(a: Sequence[Mapping[str, Any]], b: Sequence[Mapping[str, Any]]) -> list[TodoChange]:
    old = {str(t.get("content")): str(t.get("status")) for t in a}
    new = {str(t.get("content")): str(t.get("status")) for t in b}
    out: list[TodoChange] = []
    for content, status in new.items():
        if content not in old:
            out.append(TodoChange(content, "added", None, status))
        elif old[content] != status:
            out.append(TodoChange(content, "status", old[content], status))
    out.extend(TodoChange(c, "removed", s, None) for c, s in old.items() if c not in new)
    return out
