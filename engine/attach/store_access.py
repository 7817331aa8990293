"""The attached app's long-term memory, watched: a ``store.access`` event for every call a node
or tool makes to the graph's LangGraph store during an attached run, as the engine's own
stores report theirs (``engine.store``): what each run read, wrote, deleted and searched, so
the Store dock marks a run's items and follows them live.

``observed(store, report)`` is a LangGraph ``BaseStore`` standing in for the app's store in the
run's runtime (``engine.attach.tapped``).  Every LangGraph store method goes through
``batch`` / ``abatch`` with operation objects; this one hands them to the app's store unchanged
and reports each operation with its result.  The app's store is never changed, and what it
returns is returned as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.serde import to_jsonable

__all__ = ["observed"]

_MAX_HITS = 100
"""As ``engine.store``: a search reports the addresses of its first 100 hits."""

Report = Callable[[dict[str, Any]], None]
"""Takes one event's fields (``op``, ``namespace``, ...)."""


def _value(value: Any) -> Any:
    """An item's value as an event carries it (read or written); None for none."""
    return None if value is None else to_jsonable(dict(value), max_str=4000)


def _fields(op: Any, result: Any) -> dict[str, Any] | None:
    """A ``StoreAccessed`` event's fields for one LangGraph store operation and its result."""
    kind = type(op).__name__
    if kind == "GetOp":
        return {
            "op": "get",
            "namespace": list(op.namespace),
            "key": str(op.key),
            "found": result is not None,
            "value": _value(getattr(result, "value", None)),
        }
    if kind == "PutOp":
        value = op.value
        return {
            "op": "put",
            "namespace": list(op.namespace),
            "key": str(op.key),
            "value": _value(value),
        }
    if kind == "SearchOp":
        items = list(result or ())
        return {
            "op": "search",
            "namespace": list(op.namespace_prefix),
            "query": op.query,
            "filter": to_jsonable(op.filter) if op.filter else None,
            "hits": [
                {"namespace": list(getattr(i, "namespace", ())), "key": str(getattr(i, "key", ""))}
                for i in items[:_MAX_HITS]
            ],
            "hit_count": len(items),
        }
    if kind == "ListNamespacesOp":
        prefix: Sequence[Any] = ()
        for cond in op.match_conditions or ():
            if getattr(cond, "match_type", None) == "prefix":
                prefix = tuple(p for p in cond.path if p != "*")
        return {
            "op": "list_namespaces",
            "namespace": [str(p) for p in prefix],
            "hit_count": len(result or ()),
        }
    return None


def observed(store: Any, report: Report) -> Any:
    """A LangGraph store that passes every operation to ``store`` and reports it to
    ``report``; ``store`` itself when it is not a LangGraph ``BaseStore``."""
    try:
        from langgraph.store.base import BaseStore
    except ImportError:
        return store
    if not isinstance(store, BaseStore):
        return store

    class ObservedStore(BaseStore):
        """The app's store, each operation reported (``engine.attach.store_access``)."""

        supports_ttl = bool(getattr(store, "supports_ttl", False))
        ttl_config = getattr(store, "ttl_config", None)

        def __init__(self) -> None:
            self.real = store

        def __getattr__(self, name: str) -> Any:  # the app's own store API (index, setup, ...)
            return getattr(store, name)

        @property  # the app's ``isinstance`` checks find its own store's class
        def __class__(self) -> type:  # pyright: ignore[reportIncompatibleMethodOverride]
            return type(store)

        def batch(self, ops: Iterable[Any]) -> list[Any]:
            ops = list(ops)
            results = store.batch(ops)
            _report_all(ops, results, report)
            return results

        async def abatch(self, ops: Iterable[Any]) -> list[Any]:
            ops = list(ops)
            results = await store.abatch(ops)
            _report_all(ops, results, report)
            return results

    # named as the app's store's class: its code that prints or compares the name finds its own
    for attr in ("__name__", "__qualname__", "__module__"):
        setattr(ObservedStore, attr, getattr(type(store), attr, getattr(ObservedStore, attr)))
    return ObservedStore()


def _report_all(ops: Sequence[Any], results: Sequence[Any], report: Report) -> None:
    for op, result in zip(ops, results, strict=False):
        try:
            fields = _fields(op, result)
        except Exception:  # an operation of a newer LangGraph: the call itself went through
            continue
        if fields is not None:
            report(fields)
