"""A node's input as ``node.started`` shows it: the first characters of its display form.

``str(to_jsonable(value, max_str=..., max_items=...))[:limit]`` renders a whole state (the last
messages of a history, each dumped in full) to keep its first few hundred characters.
``summary`` writes the same text part by part and stops once it has ``limit`` characters: a
state's summary costs the first message it reaches, not every message it would keep.
"""

from __future__ import annotations

import sys
from typing import Any

from pydantic import BaseModel

from engine.serde import to_jsonable

__all__ = ["summary"]


def summary(value: Any, limit: int, *, max_str: int, max_items: int) -> str:
    """``str(to_jsonable(value, max_str=max_str, max_items=max_items))[:limit]``, computed
    only as far as ``limit`` needs."""
    if type(value) not in (dict, list, tuple):  # one value (a string is not quoted by str)
        return str(to_jsonable(value, max_str=max_str, max_items=max_items))[:limit]
    out: list[str] = []
    _write(value, out, limit, max_str, max_items)
    return "".join(out)[:limit]


def _write(value: Any, out: list[str], left: int, max_str: int, max_items: int) -> int:
    """Append the ``repr`` of ``to_jsonable(value, ...)`` to ``out`` until ``left`` characters
    are written; returns how many are still wanted.  The containers ``to_jsonable`` walks
    itself (plain dicts, lists, tuples) are walked here, item by item, so only the items
    reached are converted; anything else is converted and written whole."""
    t = type(value)
    if t is dict:
        out.append("{")
        left -= 1
        for i, (k, v) in enumerate(value.items()):
            if left <= 0:
                return left
            key = repr(k if type(k) is str else str(k))
            out.append(f", {key}: " if i else f"{key}: ")
            left = _write(v, out, left - len(out[-1]), max_str, max_items)
        out.append("}")
        return left - 1
    if t is list or t is tuple:
        items: Any = value
        out.append("[")
        left -= 1
        if len(value) > max_items:  # to_jsonable keeps the last items after a marker
            out.append(repr(f"… {len(value) - max_items} earlier items"))
            left -= len(out[-1])
            items = value[len(value) - max_items :]
            if items:
                out.append(", ")
                left -= 2
        for i, v in enumerate(items):
            if left <= 0:
                return left
            if i:
                out.append(", ")
                left -= 2
            left = _write(v, out, left, max_str, max_items)
        out.append("]")
        return left - 1
    if isinstance(value, BaseModel):  # a message: its dump walked as far as needed
        try:
            dumped = value.model_dump(mode="json")
        except Exception:
            dumped = _FAILED
        if dumped is not _FAILED:
            # ``to_jsonable`` gives the dump, its long strings shortened (no items left out:
            # it walks the dump without ``max_items``); the dump is plain JSON, which ``_write``
            # renders alike, part by part
            return _write(dumped, out, left, max_str, _ALL_ITEMS)
    text = repr(to_jsonable(value, max_str=max_str, max_items=max_items))
    out.append(text)
    return left - len(text)


_FAILED: Any = object()
_ALL_ITEMS = sys.maxsize
