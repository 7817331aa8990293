"""``MessageList``: an immutable view over an append-only message buffer.

The ``messages`` channel grows by a few messages per step.  Copying the whole history at every
step (what a plain ``add_messages`` reducer does) makes a long conversation quadratic.  Here
every version of the channel is a ``(buffer, length)`` view: appending to the view at the tip
of its buffer extends the buffer in place and returns a longer view; older views keep their
own length, so they never change.  Only a replacement or removal by id (rare: HITL edits,
summarization) copies.  Checkpoint savers use ``delta_since`` to store only what was added.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeVar, overload

from engine.lazy_list import LazyList
from engine.messages import (
    BaseMessage,
    BaseMessageChunk,
    RemoveMessage,
    coerce_messages,
    merge_messages,
)

__all__ = ["AppendLog", "MessageList", "PreviewList", "preview_merged"]


class _Buffer:
    __slots__ = ("__weakref__", "index", "items")

    def __init__(self, items: list[Any], index: dict[Any, int] | None = None) -> None:
        self.items = items
        self.index = index


T = TypeVar("T")


class AppendLog(Sequence[T]):
    """A read-only list that grows by appending (indexing, slicing, ``len``, ``+``, ``==``).

    Used for ``Annotated[list, operator.add]`` channels; ``MessageList`` adds ids.
    """

    __slots__ = ("_buf", "_n")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._buf = self._new_buffer(list(items))
        self._n = len(self._buf.items)

    @classmethod
    def _new_buffer(cls, items: list[Any]) -> _Buffer:
        return _Buffer(items)

    @classmethod
    def _view(cls, buf: _Buffer, n: int) -> Any:
        obj = cls.__new__(cls)
        obj._buf = buf
        obj._n = n
        return obj

    @staticmethod
    def _append(buf: _Buffer, new: Sequence[Any]) -> None:
        buf.items.extend(new)

    @classmethod
    def over(cls, items: list[Any]) -> Any:
        """A view of all of ``items`` (taken, not copied: e.g. a ``LazyList`` a checkpoint
        saver read, whose items are decoded when first read)."""
        return cls._view(cls._new_buffer(items), len(items))

    @property
    def buffer(self) -> object:
        """The buffer this view reads.  Views of one buffer are prefixes of one another and a
        buffer's items never change once appended, so it keys caches of facts about a prefix
        (e.g. a scan of the history done up to some length, continued from there)."""
        return self._buf

    # -- sequence protocol -----------------------------------------------------------------

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._n)
            return self._buf.items[start:stop:step]  # O(len(slice)), never a copy of the prefix
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("list index out of range")
        return self._buf.items[i]

    def __iter__(self) -> Iterator[T]:
        return itertools.islice(self._buf.items, self._n)  # a C iterator: no per-item frames

    def __reversed__(self) -> Iterator[T]:
        items = self._buf.items
        for i in range(self._n - 1, -1, -1):
            yield items[i]

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        return [*self, *other]

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        return [*other, *self]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, AppendLog):
            return self._n == other._n and (self._buf is other._buf or list(self) == list(other))
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(list(self))

    def copy(self) -> list[T]:
        return list(self)

    def copy_into(self, target: list[Any]) -> None:
        """Append this view's items to ``target`` in one C-level copy (a long history is
        copied many times a run: iterating it item by item costs several times more).  A list
        subclass's own ``extend`` is not called: its items are already what the log holds."""
        items = self._buf.items
        list.extend(target, items if len(items) == self._n else items[: self._n])

    def to_jsonable(self) -> list[Any]:
        from engine.serde import to_jsonable

        return [to_jsonable(x) for x in self]

    # -- persistent updates ------------------------------------------------------------------

    def extended(self, new: Sequence[Any]) -> Any:
        """A longer view with ``new`` appended; this view is unchanged."""
        buf = self._buf
        if len(buf.items) != self._n:  # another view already grew this buffer: copy on write
            buf = self._new_buffer(buf.items[: self._n])
        self._append(buf, new)
        return self._view(buf, len(buf.items))

    def prefix(self, n: int) -> Any:
        """The view of this view's first ``n`` items (an older version of the log)."""
        if not 0 <= n <= self._n:
            raise ValueError(f"a prefix of {n} items of a log of {self._n}")
        return self._view(self._buf, n)

    def extends(self, older: AppendLog[Any]) -> bool:
        """True if this view is ``older`` plus appended items (same buffer)."""
        return self._buf is older._buf and older._n <= self._n

    def delta_since(self, older: AppendLog[Any]) -> list[T]:
        """The items appended since ``older`` (requires ``self.extends(older)``)."""
        return self._buf.items[older._n : self._n]


class MessageList(AppendLog[BaseMessage]):
    """The ``messages`` channel's value: an ``AppendLog`` of messages indexed by id."""

    __slots__ = ()

    @classmethod
    def _new_buffer(cls, items: list[Any]) -> _Buffer:
        if isinstance(items, LazyList) and items.pending:
            return _Buffer(items)  # indexed when first asked (it decodes every message)
        return _Buffer(items, {m.id: i for i, m in enumerate(items)})

    @staticmethod
    def _append(buf: _Buffer, new: Sequence[Any]) -> None:
        index = buf.index
        if index is None:
            buf.items.extend(new)
            return
        for m in new:
            index[m.id] = len(buf.items)
            buf.items.append(m)

    def __hash__(self) -> int:
        return hash(tuple(m.id for m in self))

    def to_jsonable(self) -> list[Any]:
        return [m.model_dump(mode="json") for m in self]

    def id_position(self, message_id: str | None) -> int | None:
        buf = self._buf
        index = buf.index
        if index is None:
            index = buf.index = {m.id: i for i, m in enumerate(buf.items)}
        pos = index.get(message_id)
        return pos if pos is not None and pos < self._n else None

    def merged(self, right: Any) -> MessageList:
        """``add_messages(self, right)`` as a new view; O(len(right)) when it only appends."""
        incoming = [_with_id(m) for m in coerce_messages(right)] if right is not None else []
        seen: set[str | None] = set()
        for m in incoming:
            if isinstance(m, RemoveMessage) or self.id_position(m.id) is not None or m.id in seen:
                return MessageList(merge_messages(list(self), incoming))
            seen.add(m.id)
        return self.extended(incoming) if incoming else self


class PreviewList(Sequence[Any]):
    """A read-only ``base + extra`` without touching ``base``'s buffer.

    Conditional edges read a "fresh" state (committed values plus the running task's own
    writes) before the barrier applies them; this lets them see appended messages in O(1).
    """

    __slots__ = ("_base", "_extra")

    def __init__(self, base: AppendLog[Any], extra: list[Any]) -> None:
        self._base = base
        self._extra = extra

    def __len__(self) -> int:
        return len(self._base) + len(self._extra)

    @overload
    def __getitem__(self, i: int) -> BaseMessage: ...
    @overload
    def __getitem__(self, i: slice) -> list[BaseMessage]: ...
    def __getitem__(self, i: int | slice) -> BaseMessage | list[BaseMessage]:
        if isinstance(i, slice):
            return [*self._base, *self._extra][i]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("message index out of range")
        nb = len(self._base)
        return self._base[i] if i < nb else self._extra[i - nb]

    def __iter__(self) -> Iterator[BaseMessage]:
        yield from self._base
        yield from self._extra

    def __reversed__(self) -> Iterator[BaseMessage]:
        yield from reversed(self._extra)
        yield from reversed(self._base)

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        return [*self, *other]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(m.id for m in self))

    def __repr__(self) -> str:
        return repr(list(self))


def preview_merged(base: MessageList, right: Any) -> Sequence[BaseMessage]:
    """What ``base.merged(right)`` will be, without growing ``base``'s buffer."""
    incoming = coerce_messages(right) if right is not None else []
    if any(
        isinstance(m, RemoveMessage) or (m.id is not None and base.id_position(m.id) is not None)
        for m in incoming
    ):
        return MessageList(merge_messages(list(base), [_with_id(m) for m in incoming]))
    return PreviewList(base, [_with_id(m) for m in incoming])


def _with_id(m: BaseMessage) -> BaseMessage:
    if isinstance(m, BaseMessageChunk):
        m = m.to_message()  # a streamed chunk is stored as the final message
    if m.id is None:
        m.id = str(uuid.uuid4())
    return m


def plain(value: Any) -> Any:
    """A plain ``list`` for an ``AppendLog`` view (what invoke/get_state hand to users)."""
    return value._buf.items[: value._n] if isinstance(value, AppendLog) else value
