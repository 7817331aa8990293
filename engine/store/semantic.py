"""Semantic search for a store built with ``index=`` (LangGraph's ``InMemoryStore(index={...})``).

``index={"embed": ..., "dims": 1536, "fields": ["food", "$"]}``: ``embed`` is a LangChain
``Embeddings`` object, a function from a list of texts to their vectors, or a
``"provider:model"`` string (made by LangChain's ``init_embeddings`` when ``langchain`` is
installed).  Each field path names the text of a value to embed: ``"$"`` the whole value as
JSON, ``"a.b"`` a nested field, ``"a[0]"`` / ``"a[*]"`` list items.  A search with a ``query``
ranks the items that have vectors by their best cosine similarity to the query's vector; items
without vectors fill the rest of the page, unscored.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["SemanticIndex", "cosine", "text_at_path"]

Vector = list[float]

_TOKEN = re.compile(r"[^.\[\]]+|\[[^\]]*\]")


def text_at_path(value: Any, path: str) -> list[str]:
    """The texts at ``path`` in ``value`` (none when the path is absent)."""
    if not path or path == "$":
        return [json.dumps(value, sort_keys=True, ensure_ascii=False)]
    found: list[Any] = [value]
    for token in _TOKEN.findall(path):
        nxt: list[Any] = []
        for obj in found:
            if token.startswith("["):
                if not isinstance(obj, list):
                    continue
                inner = token[1:-1]
                if inner == "*":
                    nxt.extend(obj)
                elif inner.lstrip("-").isdigit() and -len(obj) <= int(inner) < len(obj):
                    nxt.append(obj[int(inner)])
            elif isinstance(obj, dict) and token in obj:
                nxt.append(obj[token])
        found = nxt
    out: list[str] = []
    for obj in found:
        if isinstance(obj, str | int | float | bool):
            out.append(str(obj))
        elif isinstance(obj, list | dict):
            out.append(json.dumps(obj, sort_keys=True, ensure_ascii=False))
    return out


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def _embedder(embed: Any) -> tuple[Callable[[list[str]], list[Vector]], Callable[[str], Vector]]:
    if isinstance(embed, str):
        try:
            from langchain.embeddings import init_embeddings  # type: ignore[import-not-found]
        except ImportError:
            raise ImportError(
                f"index={{'embed': {embed!r}}} needs LangChain's init_embeddings "
                "(pip install langchain); or pass an Embeddings object or a function"
            ) from None
        embed = init_embeddings(embed)
    if hasattr(embed, "embed_documents") and hasattr(embed, "embed_query"):
        return embed.embed_documents, embed.embed_query
    if callable(embed):
        if inspect.iscoroutinefunction(embed):
            raise ValueError("index 'embed' must be a synchronous function or an Embeddings object")
        fn: Callable[[list[str]], Any] = embed
        return (lambda texts: [list(v) for v in fn(texts)]), (lambda text: list(fn([text])[0]))
    raise TypeError(
        f"index 'embed' must be an Embeddings object, a function or a 'provider:model' "
        f"string, got {type(embed).__name__}"
    )


class SemanticIndex:
    """A store's ``index=`` configuration: which texts of a value are embedded, and how."""

    def __init__(self, config: dict[str, Any]) -> None:
        if "embed" not in config:
            raise ValueError("index= needs an 'embed' entry (an Embeddings object or a function)")
        self.config = dict(config)
        self.dims = config.get("dims")
        self.fields: list[str] = list(config.get("fields") or ["$"])
        self._embed_documents, self._embed_query = _embedder(config["embed"])

    def texts(self, value: dict[str, Any], index: Any) -> list[tuple[str, str]]:
        """``(path, text)`` pairs to embed for ``value`` (``index``: a put's ``index=``)."""
        if index is False:
            return []
        paths = self.fields if index is None else list(index)
        out: list[tuple[str, str]] = []
        for path in paths:
            texts = text_at_path(value, path)
            if len(texts) == 1:
                out.append((path, texts[0]))
            else:
                out.extend((f"{path}.{i}", t) for i, t in enumerate(texts))
        return out

    def vectors(self, value: dict[str, Any], index: Any) -> dict[str, Vector]:
        pairs = self.texts(value, index)
        if not pairs:
            return {}
        embedded = self._embed_documents([t for _p, t in pairs])
        if len(embedded) != len(pairs):
            raise ValueError(
                f"Number of embeddings ({len(embedded)}) does not match number of texts "
                f"({len(pairs)})"
            )
        return {p: list(v) for (p, _t), v in zip(pairs, embedded, strict=True)}

    def query_vector(self, query: str) -> Vector:
        return list(self._embed_query(query))
