"""A LangGraph server's long-term memory store, read through its store API.

``RemoteStore`` offers the reading half of LangGraph's ``BaseStore`` API (``list_namespaces``,
``search``) over ``POST /store/namespaces`` and ``POST /store/items/search``, so the studio's
Store dock browses a server's store as it browses a local one.  It is blocking: each call runs
on the caller's thread (the dock reads on a worker thread) through ``RemoteClient.blocking``.
Pages are fetched until the limit is reached or the server has no more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.remote.client import RemoteClient, explain

__all__ = ["RemoteItem", "RemoteStore"]

T = TypeVar("T")

PAGE = 100
"""Items or namespaces asked for per request."""


@dataclass(frozen=True)
class RemoteItem:
    """One item as the server returned it (the fields the Store dock reads)."""

    namespace: tuple[str, ...]
    key: str
    value: Any
    updated_at: str | None = None
    score: float | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RemoteItem:
        score = data.get("score")
        return cls(
            tuple(str(part) for part in data.get("namespace") or ()),
            str(data.get("key", "")),
            data.get("value"),
            str(data["updated_at"]) if data.get("updated_at") is not None else None,
            float(score) if isinstance(score, int | float) else None,
        )


class RemoteStore:
    """The server's store, read-only, with ``BaseStore``'s reading signatures."""

    blocking = True

    def __init__(self, client: RemoteClient) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"RemoteStore({self.client.display_url})"

    def list_namespaces(
        self, *, prefix: Sequence[str] | None = None, limit: int = 10_000
    ) -> list[tuple[str, ...]]:
        async def fetch(client: RemoteClient) -> list[tuple[str, ...]]:
            out: list[tuple[str, ...]] = []
            while len(out) < limit:
                size = min(PAGE, limit - len(out))
                try:
                    page = await client.sdk.store.list_namespaces(
                        prefix=list(prefix) if prefix else None, limit=size, offset=len(out)
                    )
                except Exception as exc:
                    raise explain(exc, client, "listing the store's namespaces") from None
                names = [tuple(str(p) for p in ns) for ns in page.get("namespaces") or []]
                out.extend(names)
                if len(names) < size:
                    break
            return out

        return self.client.blocking(fetch)

    def search(
        self,
        namespace_prefix: tuple[str, ...],
        /,
        *,
        query: str | None = None,
        filter: Mapping[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[RemoteItem]:
        async def fetch(client: RemoteClient) -> list[RemoteItem]:
            out: list[RemoteItem] = []
            while len(out) < limit:
                size = min(PAGE, limit - len(out))
                try:
                    page = await client.sdk.store.search_items(
                        list(namespace_prefix),
                        filter=dict(filter) if filter else None,
                        limit=size,
                        offset=offset + len(out),
                        query=query or None,
                    )
                except Exception as exc:
                    raise explain(exc, client, "searching the store") from None
                items = [RemoteItem.from_json(i) for i in page.get("items") or []]
                out.extend(items)
                if len(items) < size:
                    break
            return out

        return self.client.blocking(fetch)
