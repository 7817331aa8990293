"""A node's input as ``node.started`` shows it: the first characters of its display form.

``str(to_jsonable(value, max_str=..., max_items=...))[:limit]`` renders a whole state (the last
messages of a history, each dumped in full) to keep its first few hundred characters.
``summary`` writes the same text piece by piece and stops once it has ``limit`` characters: a
state's summary costs the first message it reaches, not every message it would keep.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from engine.serde import to_jsonable

__all__ = ["summary"]


def summary(value: Any, limit: int, *, max_str: int, max_items: int) -> str:
    """``str(to_jsonable(value, max_str=max_str, max_items=max_items))[:limit]``, computed
    only as far as ``limit`` needs."""
    if type(value) not in (dict, list, tuple):  # one value (a string is not quoted by str)
        return str(to_jsonable(value, max_str=max_str, max_items=max_items))[:limit]
    out: list[str] = []
    size = 0
    for piece in _pieces(value, max_str, max_items):
        out.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return "".join(out)[:limit]


def _pieces(value: Any, max_str: int, max_items: int) -> Iterator[str]:
    """The ``repr`` of ``to_jsonable(value, ...)`` in pieces, each part converted only when
    it is reached (the containers ``to_jsonable`` walks itself: plain dicts, lists, tuples)."""
    t = type(value)
    if t is dict:
        yield "{"
        for i, (k, v) in enumerate(value.items()):
            if i:
                yield ", "
            yield repr(k if type(k) is str else str(k))
            yield ": "
            yield from _pieces(v, max_str, max_items)
        yield "}"
    elif t is list or t is tuple:
        items: Any = value
        yield "["
        if len(value) > max_items:  # to_jsonable keeps the last items after a marker
            yield repr(f"… {len(value) - max_items} earlier items")
            items = value[len(value) - max_items :]
            if items:
                yield ", "
        for i, v in enumerate(items):
            if i:
                yield ", "
            yield from _pieces(v, max_str, max_items)
        yield "]"
    else:  # converted whole (a message: its dump), then written as plain values
        yield from _plain(to_jsonable(value, max_str=max_str, max_items=max_items))


def _plain(value: Any) -> Iterator[str]:
    """The ``repr`` of an already plain value in pieces."""
    t = type(value)
    if t is dict:
        yield "{"
        for i, (k, v) in enumerate(value.items()):
            if i:
                yield ", "
            yield repr(k)
            yield ": "
            yield from _plain(v)
        yield "}"
    elif t is list:
        yield "["
        for i, v in enumerate(value):
            if i:
                yield ", "
            yield from _plain(v)
        yield "]"
    else:
        yield repr(value)
