"""Channels: the storage cells of a graph's state (one per state key, plus internal ones).

Contract (as in LangGraph's ``channels/base.py``): ``update(values) -> bool`` applies the writes
of one superstep (an empty list at a barrier where the channel was not written: ephemeral
channels clear themselves then), ``get()`` reads (raising ``EmptyChannelError`` when empty),
``checkpoint()`` returns the storable value, ``from_checkpoint(value)`` makes a fresh channel of
the same kind holding it.  Channels never mutate a value they have handed out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.errors import EmptyChannelError, ErrorCode, InvalidUpdateError, create_error_message
from engine.message_log import AppendLog, MessageList, PreviewList
from engine.types import Overwrite

__all__ = [
    "MISSING",
    "AppendListChannel",
    "BaseChannel",
    "BinaryOperatorAggregate",
    "EphemeralValue",
    "LastValue",
    "MessagesChannel",
    "NamedBarrierValue",
    "Topic",
    "UntrackedValue",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()


class BaseChannel:
    """Base of all channels. ``key`` is set by the graph when it compiles."""

    tracked = True
    """False for channels that are never saved in checkpoints."""
    ephemeral = False

    def __init__(self, typ: Any = Any) -> None:
        self.typ = typ
        self.key = ""
        self.value: Any = MISSING

    def new(self) -> BaseChannel:
        """A fresh, empty channel of the same kind."""
        c = type(self).__new__(type(self))
        c.__dict__.update(self.__dict__)
        c.value = MISSING
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = self.new()
        if value is not MISSING:
            c.value = value
        return c

    def copy(self) -> BaseChannel:
        return self.from_checkpoint(self.value)

    def is_available(self) -> bool:
        return self.value is not MISSING

    def holds_state(self) -> bool:
        """Has it anything a checkpoint must keep?  What it can be read for, and also what
        it holds before it can be read (a barrier's sources so far, a deferred value)."""
        return self.is_available()

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError(self.key)
        return self.value

    def checkpoint(self) -> Any:
        return self.value

    def update(self, values: Sequence[Any]) -> bool:
        raise NotImplementedError

    def consume(self) -> bool:
        """Called when a task triggered by this channel runs; True if that changed it."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r})"


class LastValue(BaseChannel):
    """Holds the last value written; two writes in one step are an error."""

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise InvalidUpdateError(
                create_error_message(
                    message=f"At key '{self.key}': Can receive only one value per step. "
                    "Use an Annotated key to handle multiple values.",
                    error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
                )
            )
        self.value = values[-1]
        return True


class EphemeralValue(BaseChannel):
    """Holds a value for one step only; cleared at the next barrier that does not write it."""

    ephemeral = True

    def __init__(self, typ: Any = Any, guard: bool = True) -> None:
        super().__init__(typ)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is not MISSING:
                self.value = MISSING
                return True
            return False
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': EphemeralValue(guard=True) can receive only one value per step. "
                "Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True


class UntrackedValue(BaseChannel):
    """Like LastValue, but never saved in checkpoints (lost on resume)."""

    tracked = False

    def __init__(self, typ: Any = Any, guard: bool = True) -> None:
        super().__init__(typ)
        self.guard = guard

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': UntrackedValue(guard=True) can receive only one value per step."
            )
        self.value = values[-1]
        return True

    def checkpoint(self) -> Any:
        return MISSING


def _initial(typ: Any) -> Any:
    origin = getattr(typ, "__origin__", None) or typ
    try:
        return origin()
    except Exception:
        return MISSING


_OVERWRITE_KEY = "__overwrite__"


def find_overwrite(values: Sequence[Any]) -> tuple[bool, Any]:
    """``(True, value)`` if one write of the step is an ``Overwrite`` (or its JSON forms):
    it replaces the channel's value and the step's other writes are dropped.  Two raise."""
    found: list[Any] = []
    for v in values:
        if isinstance(v, Overwrite):
            found.append(v.value)
        elif isinstance(v, dict):
            if len(v) == 1 and _OVERWRITE_KEY in v:
                found.append(v[_OVERWRITE_KEY])
            elif v.get("type") == _OVERWRITE_KEY and "value" in v:
                found.append(v["value"])
    if len(found) > 1:
        raise InvalidUpdateError(
            create_error_message(
                message="Can receive only one Overwrite value per super-step.",
                error_code=ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE,
            )
        )
    return (True, found[0]) if found else (False, None)


class BinaryOperatorAggregate(BaseChannel):
    """Folds every write into the value with ``reducer(current, write)``; starts at ``typ()``."""

    def __init__(self, typ: Any, reducer: Callable[[Any, Any], Any]) -> None:
        super().__init__(typ)
        self.reducer = reducer
        self.value = _initial(typ)

    def new(self) -> BaseChannel:
        c = super().new()
        c.value = _initial(self.typ)
        return c

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        overwritten, new = find_overwrite(values)
        if overwritten:
            self.value = new
            return True
        value = self.value
        for v in values:
            value = v if value is MISSING else self.reducer(value, v)
        self.value = value
        return True


class MessagesChannel(BaseChannel):
    """``Annotated[list, add_messages]``: append-mostly, O(new messages) per step."""

    def __init__(self, typ: Any = list) -> None:
        super().__init__(typ)
        self.value = MessageList()

    def new(self) -> BaseChannel:
        c = super().new()
        c.value = MessageList()
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = self.new()
        if value is not MISSING:
            c.value = value if isinstance(value, MessageList) else MessageList(value)
        return c

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        overwritten, new = find_overwrite(values)
        if overwritten:
            self.value = MessageList().merged(new)
            return True
        incoming: list[Any] = []
        for v in values:
            if isinstance(v, list | tuple | MessageList) and not (
                isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
            ):
                incoming.extend(v)
            else:
                incoming.append(v)
        self.value = self.value.merged(incoming)
        return True


class AppendListChannel(BaseChannel):
    """``Annotated[list, operator.add]``: concatenation, stored as an ``AppendLog`` (O(new) per step)."""

    def __init__(self, typ: Any = list) -> None:
        super().__init__(typ)
        self.value = AppendLog()

    def new(self) -> BaseChannel:
        c = super().new()
        c.value = AppendLog()
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = self.new()
        if value is not MISSING:
            c.value = value if isinstance(value, AppendLog) else AppendLog(value)
        return c

    @staticmethod
    def _items(values: Sequence[Any]) -> list[Any]:
        out: list[Any] = []
        for v in values:
            if not isinstance(v, list | AppendLog):
                raise TypeError(f'can only concatenate list (not "{type(v).__name__}") to list')
            out.extend(v)
        return out

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        overwritten, new = find_overwrite(values)
        if overwritten:
            self.value = AppendLog(list(new))
            return True
        items = self._items(values)
        if items:
            self.value = self.value.extended(items)
        return True


class Topic(BaseChannel):
    """A list of values; without ``accumulate`` it holds only the last step's writes."""

    def __init__(self, typ: Any = Any, accumulate: bool = False) -> None:
        super().__init__(typ)
        self.accumulate = accumulate
        self.ephemeral = not accumulate
        self.written = False
        """Written to once (then kept in checkpoints, emptied or not, as LangGraph keeps it)."""

    def new(self) -> BaseChannel:
        c = super().new()
        assert isinstance(c, Topic)
        c.written = False
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = super().from_checkpoint(value)
        assert isinstance(c, Topic)
        c.written = value is not MISSING
        return c

    def checkpoint(self) -> Any:
        if self.value is MISSING and self.written:
            return []
        return self.value

    def holds_state(self) -> bool:
        return self.written or self.is_available()

    def update(self, values: Sequence[Any]) -> bool:
        flat: list[Any] = []
        for v in values:
            flat.extend(v) if isinstance(v, list) else flat.append(v)
        self.written = self.written or bool(flat)
        if not self.accumulate:
            changed = self.value is not MISSING and bool(self.value)
            if not flat:
                self.value = MISSING
                return changed
            self.value = flat
            return True
        if not flat:
            return False
        self.value = [*(self.value or []), *flat]
        return True

    def get(self) -> Any:
        if not self.value:
            raise EmptyChannelError(self.key)
        return self.value

    def is_available(self) -> bool:
        return bool(self.value)


class NamedBarrierValue(BaseChannel):
    """Fires once every named source has written (``add_edge([a, b], c)``)."""

    def __init__(self, names: set[str]) -> None:
        super().__init__(set)
        self.names = frozenset(names)
        self.value = frozenset()
        self.written = False
        """Written to once (then kept in checkpoints, emptied or not, as LangGraph keeps it)."""

    def new(self) -> BaseChannel:
        c = super().new()
        assert isinstance(c, NamedBarrierValue)
        c.value = frozenset()
        c.written = False
        return c

    def from_checkpoint(self, value: Any) -> BaseChannel:
        c = self.new()
        assert isinstance(c, NamedBarrierValue)
        if value is not MISSING and value is not None:
            c.value = frozenset(value)
            c.written = True
        return c

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        seen = set(self.value)
        for v in values:
            if v not in self.names:
                raise InvalidUpdateError(
                    f"At key '{self.key}': value {v!r} not in {sorted(self.names)}"
                )
            if v not in seen:
                seen.add(v)
                changed = True
        self.value = frozenset(seen)
        self.written = self.written or bool(values)
        return changed

    def is_available(self) -> bool:
        return self.value == self.names

    def holds_state(self) -> bool:
        return self.written  # the sources that wrote so far, even none since it fired

    def get(self) -> Any:
        if not self.is_available():
            raise EmptyChannelError(self.key)
        return None

    def checkpoint(self) -> Any:
        return sorted(self.value)

    def consume(self) -> bool:
        if self.value == self.names:
            self.value = frozenset()
            return True
        return False


def preview(channel: BaseChannel, values: Sequence[Any]) -> Any:
    """The value ``channel`` would hold after ``update(values)``, leaving it unchanged."""
    if isinstance(channel, MessagesChannel):
        from engine.message_log import preview_merged

        flat: list[Any] = []
        for v in values:
            if isinstance(v, list | tuple | MessageList) and not (
                isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
            ):
                flat.extend(v)
            else:
                flat.append(v)
        return preview_merged(channel.value, flat)
    if isinstance(channel, AppendListChannel):
        return PreviewList(channel.value, AppendListChannel._items(values))
    c = channel.copy()
    c.update(values)
    return c.value
