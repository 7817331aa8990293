"""``LazyList``: a ``list`` whose items are decoded from their stored JSON when first read.

A cold read of a long thread (the studio opening a session) needs the state at once, but shows
only some of its messages: building 10,000 pydantic messages to show twenty is most of the
read.  A checkpoint saver hands out the stored items' JSON texts in a ``LazyList``: ``len``,
``bool`` and slicing cost nothing per item, reading an item decodes it (once; the decoded item
is kept in its slot), iterating decodes as it goes (in chunks, with one validation call per
chunk).  Anything that reorders or changes items, compares or prints the list decodes every
item first and then behaves as a plain ``list`` does.

A slice of a lazy list is lazy too and decodes through the list it was cut from, so the two
hand out the same objects (as slices of a plain list do).

Code that reads a ``list``'s storage directly from C without going through its methods (the
``json`` module's C encoder, pydantic-core's list validator) would see the stored texts: hand
such code ``list(x)`` or call ``materialize()`` first (``engine.serde`` and the engine's own
validation do).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any, SupportsIndex, overload

__all__ = ["LazyList", "materialized", "same_stored"]

Decoder = Callable[[list[str]], list[Any]]
"""Decodes stored texts (one JSON text per item, maybe ending with a separating comma) into
items, in order; raises a clear error (e.g. ``CheckpointError``) for a text it cannot read."""

_CHUNK = 256
"""Items decoded at once when iteration starts (one validation call per chunk); each next
chunk is twice as large."""


class LazyList(list[Any]):
    """A list of items decoded on first read (see the module's docstring)."""

    __slots__ = ("_decode", "_done", "_epoch", "_map", "_src", "_src_epoch")

    _decode: Decoder | None
    _done: bytearray | None  # 1 where the slot holds its decoded item; None: all decoded
    _src: LazyList | None  # the list this one was cut from (decodes through it)
    _map: range | None  # this list's slot i is ``_src``'s slot ``_map[i]``
    _epoch: int  # counts changes that move items (a slice cut before one decodes on its own)
    _src_epoch: int  # ``_src``'s epoch when this list was cut from it

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__(items)
        self._decode = None
        self._done = None
        self._src = None
        self._map = None
        self._epoch = 0
        self._src_epoch = 0

    @classmethod
    def of_texts(cls, parts: list[tuple[bool, list[Any]]], decode: Decoder) -> LazyList:
        """A list of ``parts`` in order: ``(True, texts)`` still to decode, ``(False, items)``
        already decoded."""
        out = cls()
        done = bytearray()
        for pending, items in parts:
            if isinstance(items, LazyList) and items._done is not None:
                # its pending items stay pending here (decoded with ``decode``)
                list.extend(out, list.__getitem__(items, slice(None)))
                flags = items._done[: list.__len__(items)]
                done.extend(flags)
                done.extend(b"\x01" * (list.__len__(items) - len(flags)))
                continue
            list.extend(out, items)
            done.extend(b"\x00" * len(items) if pending else b"\x01" * len(items))
        if 0 in done:
            out._decode = decode
            out._done = done
        return out

    # -- decoding ----------------------------------------------------------------------------

    @property
    def pending(self) -> int:
        """How many items are not decoded yet."""
        done = self._done
        if done is None:
            return 0
        return min(len(done), list.__len__(self)) - done.count(1)

    def _fill(self, start: int, stop: int) -> None:
        """Decode the pending items of slots ``start:stop``."""
        done = self._done
        if done is None:
            return
        stop = min(stop, len(done), list.__len__(self))
        self._fill_at([i for i in range(start, stop) if not done[i]])

    def _fill_at(self, todo: list[int]) -> None:
        """Decode the items of slots ``todo`` (pending ones, in order)."""
        done = self._done
        if done is None or not todo:
            return
        source = self._source()
        if source is not None:
            src, smap = source
            src._fill_at([j for j in (smap[i] for i in todo) if src._is_pending(j)])
            get = list.__getitem__
            items = [get(src, smap[i]) for i in todo]
        else:
            assert self._decode is not None
            items = self._decode([list.__getitem__(self, i) for i in todo])
        for i, item in zip(todo, items, strict=True):
            list.__setitem__(self, i, item)
            done[i] = 1
        if 0 not in done:
            self._settled()

    def _source(self) -> tuple[LazyList, range] | None:
        """The list this one decodes through, while its items are where they were cut."""
        src, smap = self._src, self._map
        if src is None or smap is None or src._epoch != self._src_epoch:
            return None
        return src, smap

    def _is_pending(self, i: int) -> bool:
        done = self._done
        return done is not None and i < len(done) and not done[i]

    def _item(self, i: int) -> Any:
        done = self._done
        if done is not None and i < len(done) and not done[i]:
            source = self._source()
            if source is not None:
                item = source[0]._item(source[1][i])
            else:
                assert self._decode is not None
                item = self._decode([list.__getitem__(self, i)])[0]
            list.__setitem__(self, i, item)
            done[i] = 1
            return item
        return list.__getitem__(self, i)

    def _stored_slot(self, i: int) -> object | None:
        """What slot ``i`` holds while its item is not decoded yet, else None."""
        return list.__getitem__(self, i) if self._is_pending(i) else None

    def stored_text(self, i: int) -> str | None:
        """Item ``i``'s stored JSON text while it is not decoded yet, else None (lets a view
        tell e.g. a message from a number without decoding it)."""
        if not self._is_pending(i):
            return None
        text = list.__getitem__(self, i)
        if isinstance(text, str):
            return text
        # a placeholder for a text still stored packed (engine.checkpoint.log_blobs)
        resolve = getattr(text, "text", None)
        if callable(resolve):
            text = resolve()
        return text if isinstance(text, str) else None

    def _settled(self) -> None:
        self._done = None
        self._src = None
        self._map = None
        self._decode = None

    def materialize(self) -> LazyList:
        """Decode every item (in one call); returns this list."""
        if self._done is not None:
            self._fill(0, list.__len__(self))
        return self

    # -- reading -----------------------------------------------------------------------------

    @overload
    def __getitem__(self, i: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> list[Any]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> Any:
        if self._done is None:
            return list.__getitem__(self, i)
        n = list.__len__(self)
        if isinstance(i, slice):
            done = self._done
            if len(done) < n:
                done = done + b"\x01" * (n - len(done))
            out = LazyList()
            list.extend(out, list.__getitem__(self, i))
            out_done = done[i]
            if 0 in out_done:
                out._done = out_done
                out._decode = self._decode
                out._src = self
                out._map = range(n)[i]
                out._src_epoch = self._epoch
            return out
        k = i.__index__()
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("list index out of range")
        return self._item(k)

    def __iter__(self) -> Iterator[Any]:
        if self._done is None:
            return list.__iter__(self)
        return self._lazy_iter()

    def _lazy_iter(self) -> Iterator[Any]:
        i = 0
        chunk = _CHUNK
        while i < list.__len__(self):
            if self._done is None:  # settled meanwhile
                yield from list.__iter__(self[i:])
                return
            self._fill(i, i + chunk)
            stop = min(i + chunk, list.__len__(self))
            for j in range(i, stop):
                yield list.__getitem__(self, j)
            i = stop
            chunk *= 2  # a loop that goes on likely reads them all: fewer, larger calls

    def __reversed__(self) -> Iterator[Any]:
        if self._done is None:
            return list.__reversed__(self)
        return self._lazy_reversed()

    def _lazy_reversed(self) -> Iterator[Any]:
        for j in range(list.__len__(self) - 1, -1, -1):
            if j < list.__len__(self):
                yield self._item(j)

    def __contains__(self, x: object) -> bool:
        return any(item is x or item == x for item in self)

    def index(self, x: Any, start: SupportsIndex = 0, stop: SupportsIndex = 2**63 - 1) -> int:
        return list.index(self.materialize(), x, start, stop)

    def count(self, x: Any) -> int:
        return list.count(self.materialize(), x)

    def copy(self) -> list[Any]:
        return self[:]

    def __copy__(self) -> list[Any]:
        return self[:]

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        out: list[Any] = []
        memo[id(self)] = out
        out.extend(copy.deepcopy(item, memo) for item in self)
        return out

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (list, (list(self),))  # copies and other protocol users get a plain list

    def __repr__(self) -> str:
        return list.__repr__(self.materialize())

    # -- comparisons and arithmetic (on the decoded items) -----------------------------------

    def __eq__(self, other: object) -> bool:
        return list.__eq__(self.materialize(), materialized(other))

    def __ne__(self, other: object) -> bool:
        return list.__ne__(self.materialize(), materialized(other))

    def __lt__(self, other: list[Any]) -> bool:
        return list.__lt__(self.materialize(), materialized(other))

    def __le__(self, other: list[Any]) -> bool:
        return list.__le__(self.materialize(), materialized(other))

    def __gt__(self, other: list[Any]) -> bool:
        return list.__gt__(self.materialize(), materialized(other))

    def __ge__(self, other: list[Any]) -> bool:
        return list.__ge__(self.materialize(), materialized(other))

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: list[Any]) -> list[Any]:  # type: ignore[override]
        return list.__add__(self.materialize(), materialized(other))

    def __radd__(self, other: list[Any]) -> list[Any]:
        if not isinstance(other, list):
            return NotImplemented
        return list.__add__(materialized(other), self.materialize())

    def __mul__(self, n: SupportsIndex) -> list[Any]:
        return list.__mul__(self.materialize(), n)

    def __rmul__(self, n: SupportsIndex) -> list[Any]:
        return list.__mul__(self.materialize(), n)

    # -- changes: every item decoded first, then as a plain list ----------------------------

    def _moved(self) -> None:
        """Before a change that moves or replaces items: decode them all, and let slices cut
        from this list decode their own texts from now on."""
        self.materialize()
        self._epoch += 1

    # (``append``, ``extend`` and ``+=`` add decoded items after the pending ones: slots past
    # the end of ``_done`` count as decoded)

    def __setitem__(self, i: Any, value: Any) -> None:
        self._moved()
        list.__setitem__(self, i, value)

    def __delitem__(self, i: Any) -> None:
        self._moved()
        list.__delitem__(self, i)

    def __imul__(self, n: SupportsIndex) -> LazyList:
        self._moved()
        list.__imul__(self, n)
        return self

    def insert(self, i: SupportsIndex, x: Any) -> None:
        self._moved()
        list.insert(self, i, x)

    def pop(self, i: SupportsIndex = -1) -> Any:
        self._moved()
        return list.pop(self, i)

    def remove(self, x: Any) -> None:
        self._moved()
        list.remove(self, x)

    def clear(self) -> None:
        self._epoch += 1
        list.clear(self)
        self._settled()

    def reverse(self) -> None:
        self._moved()
        list.reverse(self)

    def sort(self, *, key: Callable[[Any], Any] | None = None, reverse: bool = False) -> None:
        self._moved()
        list.sort(self, key=key, reverse=reverse)


def same_stored(a: Any, i: int, b: Any, j: int) -> bool:
    """Whether item ``i`` of ``a`` and item ``j`` of ``b`` are known to be the same stored item
    without decoding them: both pending in lazy lists cut from the same read (they hold the
    one stored text).  False says nothing: compare the items."""
    if not (isinstance(a, LazyList) and isinstance(b, LazyList)):
        return False
    # the stored slots themselves (a text, or a placeholder of a text still packed): telling
    # them apart must not unpack them
    slot = a._stored_slot(i)
    return slot is not None and slot is b._stored_slot(j)


def materialized(value: Any) -> Any:
    """``value`` with every item decoded if it is a ``LazyList`` (for code that reads a
    list's storage from C); any other value as it is."""
    if isinstance(value, LazyList):
        value.materialize()
    return value
