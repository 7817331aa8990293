"""The State dock's tree: a checkpoint's values as a lazily built tree (plain Python, no Qt).

Nothing is converted up front: a node holds the raw value (a ``MessageList``, a message, a
dict, ...) and builds its children on first access, so a state with 10,000 messages shows
its top level at once and builds the message rows only when ``messages`` is expanded.
Messages show their meaningful fields first and hide empty bookkeeping (``additional_kwargs``
and friends when empty); ``to_json`` (copy) always gives the complete value.

``StateTree.find`` searches keys and scalar values (case-insensitive) and returns paths that
``node_at`` resolves, building only the nodes on the way.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from engine.lazy_list import LazyList
from engine.messages import BaseMessage
from engine.serde import to_jsonable

__all__ = ["Path", "StateNode", "StateTree", "inline_preview", "message_preview", "value_kind"]

Path = tuple[str | int, ...]

_MESSAGE_FIRST = ("type", "content", "tool_calls", "tool_call_id", "status", "name", "id")
_EMPTY = (None, "", [], {})
_ROLE = {"human": "human", "ai": "ai", "tool": "tool", "system": "system"}


def value_kind(value: Any) -> str:
    """object | array | message | string | number | bool | null."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, BaseMessage):
        return "message"
    if isinstance(value, Mapping | BaseModel) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        return "object"
    if isinstance(value, Sequence | set | frozenset) and not isinstance(value, bytes | bytearray):
        return "array"
    return "string"


def _message_fields(msg: BaseMessage) -> list[tuple[str, Any]]:
    # the field values as they are (no model_dump: 10,000 dumps would take half a second)
    data = {**msg.__dict__, **(msg.__pydantic_extra__ or {})}
    first = [
        (k, data[k])
        for k in _MESSAGE_FIRST
        if k in data and (k in ("type", "content") or data[k] not in _EMPTY)
    ]
    rest = [(k, v) for k, v in data.items() if k not in _MESSAGE_FIRST and v not in _EMPTY]
    return first + rest


def entries(value: Any) -> list[tuple[str | int, Any]] | None:
    """The children of a container value as ``(key, value)``; None for a scalar."""
    if isinstance(value, BaseMessage):
        return list(_message_fields(value))
    if isinstance(value, Mapping):
        return [(str(k), v) for k, v in value.items()]
    if isinstance(value, BaseModel):
        return list(value.model_dump(mode="json").items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, str | bytes | bytearray):
        return None
    if isinstance(value, Sequence):
        return list(enumerate(value))
    if isinstance(value, set | frozenset):
        return list(enumerate(sorted(value, key=repr)))
    return None


def iter_entries(value: Any) -> Iterator[tuple[str | int, Any]]:
    """``entries`` lazily: sequences by index, so a preview that stops early reads only what it
    shows (a 10,000-message history is never walked for a one-line preview)."""
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return ((i, value[i]) for i in range(len(value)))
    return iter(entries(value) or [])


def _count(value: Any) -> int:
    if isinstance(value, BaseMessage):
        return len(_message_fields(value))
    if isinstance(value, Mapping | Sequence | set | frozenset) and not isinstance(
        value, str | bytes | bytearray
    ):
        return len(value)
    found = entries(value)
    return len(found) if found is not None else 0


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def message_preview(msg: BaseMessage, limit: int = 90) -> str:
    """``ai → write_todos(todos=[2])`` / ``human: Create login.tsx…`` / ``tool ✓ File created``."""
    role = _ROLE.get(msg.type, msg.type)
    calls = getattr(msg, "tool_calls", None) or []
    invalid = getattr(msg, "invalid_tool_calls", None) or []
    if calls or invalid:
        parts = []
        for c in calls:
            args = ", ".join(f"{k}={_arg_preview(v)}" for k, v in (c.get("args") or {}).items())
            parts.append(f"{c.get('name')}({args})")
        parts += (f"{c.get('name') or '?'} ✗ invalid call" for c in invalid)
        head = f"{role} → " + ", ".join(parts)
        text = msg.text.strip()
        return _clip(f"{text} · {head}" if text else head, limit)
    if msg.type == "tool":
        mark = "✗" if getattr(msg, "status", "success") == "error" else "✓"
        return _clip(f"{role} {mark} {msg.text}", limit)
    if not msg.text.strip():
        return f"{role}: (empty)"
    return _clip(f"{role}: {msg.text}", limit)


def _arg_preview(v: Any) -> str:
    if isinstance(v, str):
        return json.dumps(_clip(v, 24), ensure_ascii=False)
    if isinstance(v, list | tuple):
        return f"[{len(v)}]"
    if isinstance(v, dict):
        return "{…}"
    return str(v)


def inline_preview(value: Any, limit: int = 90) -> str:
    """A one-line preview, built only as far as ``limit`` characters need."""
    if isinstance(value, BaseMessage):
        return message_preview(value, limit)
    out: list[str] = []
    budget = [limit]

    def put(s: str) -> bool:
        out.append(s)
        budget[0] -= len(s)
        return budget[0] > 0

    def walk(v: Any) -> bool:
        kind = value_kind(v)
        if kind == "string":
            return put(json.dumps(_clip(str(v), max(8, budget[0])), ensure_ascii=False))
        if kind in ("number", "bool", "null"):
            return put(json.dumps(v))
        if kind == "message":
            return put(f"<{message_preview(v, 40)}>")
        items = iter_entries(v)
        is_obj = kind == "object"
        if not put("{" if is_obj else "["):
            return False
        for i, (k, child) in enumerate(items):
            if i and not put(", "):
                return False
            if is_obj and not put(f"{k}: "):
                return False
            if not walk(child):
                return False
        return put("}" if is_obj else "]")

    walk(value)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 1] + "…"


_UNREAD: Any = object()
"""A node's value not read from its sequence yet."""


class StateNode:
    """One row of the tree; children are built on first access, and the value of an item of a
    sequence is read from it when first asked (a checkpoint's history hands out its messages
    undecoded: expanding 10,000 messages decodes only the rows shown)."""

    __slots__ = ("_children", "_value", "key", "parent", "row")

    def __init__(self, key: str | int, value: Any, parent: StateNode | None, row: int) -> None:
        self.key = key
        self._value = value
        self.parent = parent
        self.row = row
        self._children: list[StateNode] | None = None

    @property
    def value(self) -> Any:
        if self._value is _UNREAD:
            assert self.parent is not None
            self._value = self.parent.value[self.key]
        return self._value

    @property
    def kind(self) -> str:
        return value_kind(self.value)

    def child_count(self) -> int:
        return len(self._children) if self._children is not None else _count(self.value)

    def has_children(self) -> bool:
        """Cheaper than ``child_count() > 0`` (a view asks it of every row it lays out)."""
        if self._children is not None:
            return bool(self._children)
        if self._value is _UNREAD:  # a view asks every row: answer from the stored text
            known = _has_children_stored(self.parent, self.key)
            if known is not None:
                return known
        return isinstance(self.value, BaseMessage) or _count(self.value) > 0

    def children(self) -> list[StateNode]:
        if self._children is None:
            value = self.value
            if _is_sequence(value):
                self._children = [StateNode(i, _UNREAD, self, i) for i in range(len(value))]
            else:
                self._children = [
                    StateNode(k, v, self, i) for i, (k, v) in enumerate(entries(value) or [])
                ]
        return self._children

    def child(self, key: str | int) -> StateNode | None:
        kids = self.children()
        if isinstance(key, int) and self.kind == "array":
            return kids[key] if 0 <= key < len(kids) else None
        return next((c for c in kids if c.key == key), None)

    @property
    def path(self) -> Path:
        out: list[str | int] = []
        node: StateNode | None = self
        while node is not None and node.parent is not None:
            out.append(node.key)
            node = node.parent
        return tuple(reversed(out))

    def path_text(self) -> str:
        return path_text(self.path)

    def display_key(self) -> str:
        return f"[{self.key}]" if isinstance(self.key, int) else str(self.key)

    def type_label(self) -> str:
        kind = self.kind
        if kind == "message":
            return type(self.value).__name__
        if kind == "array":
            n = self.child_count()
            noun = "message" if n and isinstance(_first(self.value), BaseMessage) else "item"
            return f"{n} {noun}{'s' if n != 1 else ''}"
        if kind == "object":
            n = self.child_count()
            return f"{n} key{'s' if n != 1 else ''}"
        return kind

    def preview(self, limit: int = 90) -> str:
        if self.kind == "array" and isinstance(_first(self.value), BaseMessage):
            return f"[{self.type_label()}]"
        return inline_preview(self.value, limit)

    def to_jsonable(self) -> Any:
        return to_jsonable(self.value)

    def to_json(self) -> str:
        """The complete value as pretty JSON (what "Copy value" puts on the clipboard)."""
        value = self.to_jsonable()
        if isinstance(value, str):
            return value
        return json.dumps(value, indent=2, ensure_ascii=False)

    def __repr__(self) -> str:
        return f"StateNode({self.path_text() or '<root>'})"


def _has_children_stored(parent: StateNode | None, key: str | int) -> bool | None:
    """Whether an item not decoded yet has children, told from its stored JSON text (a
    message has; a scalar or an empty container has not); None when the text does not say
    (a tagged value other than a message) or there is none."""
    seq = parent.value if parent is not None else None
    if not isinstance(seq, LazyList) or not isinstance(key, int):
        return None
    text = seq.stored_text(key)
    if text is None:
        return None
    text = text.rstrip(",")
    if text.startswith('{"__sw__":"msg"'):
        return True
    if text.startswith('{"__sw__":'):
        return None
    if text[:1] and text[:1] in "{[":
        return text not in ("{}", "[]")
    return False


def _is_sequence(value: Any) -> bool:
    """A sequence whose children are its items by index (what ``entries`` enumerates)."""
    return (
        isinstance(value, Sequence)
        and not isinstance(value, str | bytes | bytearray | BaseMessage)
        and not isinstance(value, Mapping)
    )


def _first(value: Any) -> Any:
    try:
        return value[0] if len(value) else None
    except (TypeError, KeyError, IndexError):
        return None


def path_text(path: Path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


class StateTree:
    """The values of one checkpoint as a lazy tree (``root`` has one child per state key)."""

    def __init__(self, values: Mapping[str, Any] | None) -> None:
        self.values: Mapping[str, Any] = values or {}
        self.root = StateNode("", self.values, None, 0)

    def node_at(self, path: Path) -> StateNode | None:
        node: StateNode | None = self.root
        for key in path:
            if node is None:
                return None
            node = node.child(key)
        return node

    def find(self, query: str, limit: int = 1000) -> list[Path]:
        """Paths whose key or scalar value contains ``query`` (case-insensitive), in tree order."""
        q = query.strip().casefold()
        if not q:
            return []
        out: list[Path] = []
        for path, key, value, is_leaf in _walk(entries(self.values) or [], ()):
            if q in str(key).casefold() or (
                is_leaf and value is not None and q in _scalar_text(value).casefold()
            ):
                out.append(path)
                if len(out) >= limit:
                    break
        return out


def _scalar_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _walk(
    items: list[tuple[str | int, Any]], path: Path
) -> Iterator[tuple[Path, str | int, Any, bool]]:
    for key, child in items:
        p = (*path, key)
        kids = entries(child)
        yield p, key if not isinstance(key, int) else "", child, kids is None
        if kids is not None:
            yield from _walk(kids, p)
