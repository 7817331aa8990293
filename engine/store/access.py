"""The ``store.access`` events of the engine's stores: one per store call, when anyone
listens (what each run read, wrote, deleted and searched), and their one-line summary."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.events import StoreAccessed
from engine.observe.bus import current_emitter

if TYPE_CHECKING:
    from engine.store import Item, Row

__all__ = ["access_summary"]

_MAX_HITS = 100


def _record(op: str, namespace: tuple[str, ...], **fields: Any) -> None:
    """Emit a ``store.access`` event on the run this call belongs to (if anyone listens)."""
    em = current_emitter()
    if em is None or not em.active:
        return
    em.emit_sync(StoreAccessed, op=op, namespace=list(namespace), **fields)


def _record_get(namespace: tuple[str, ...], key: str, row: Row | None) -> None:
    """A ``get``'s event, with the value it read (decoded again: a copy the caller cannot
    change), so a recorded session shows what the run saw."""
    em = current_emitter()
    if em is None or not em.active:
        return
    value = None if row is None else json.loads(row[2])
    em.emit_sync(
        StoreAccessed,
        op="get",
        namespace=list(namespace),
        key=key,
        found=row is not None,
        value=value,
    )


def access_summary(fields: dict[str, Any]) -> str:
    """One line for a ``store.access`` event's fields: ``store get user/u1 · facts (missing)``."""
    op = fields.get("op")
    where = "/".join(str(x) for x in fields.get("namespace") or ()) or "(root)"
    key = fields.get("key")
    text = f"store {op} {where}" + (f" · {key}" if key is not None else "")
    if op == "get":
        text += "" if fields.get("found") else " (missing)"
    elif op == "put" and fields.get("value") is None:
        text += " (deleted)"
    elif op == "search":
        query = fields.get("query")
        text += (f" “{query}”" if query else "") + f" → {fields.get('hit_count', 0)} item(s)"
    elif op == "list_namespaces":
        text += f" → {fields.get('hit_count', 0)} namespace(s)"
    return text


def _hits(items: Sequence[Item]) -> list[dict[str, Any]]:
    """A search's event names the first ``_MAX_HITS`` items it returned."""
    return [{"namespace": list(i.namespace), "key": i.key} for i in items[:_MAX_HITS]]
