"""``JsonPlusSerializer``, as a program ported from LangGraph names it: a saver built with
``serde=JsonPlusSerializer(...)`` stores what it always stores, the engine's JSON
(``engine.serde``: messages, pydantic models, dataclasses, dates... and never pickle, so
``pickle_fallback`` changes nothing); ``dumps_typed`` / ``loads_typed`` give that JSON too."""

from __future__ import annotations

from typing import Any

from engine import serde

__all__ = ["JsonPlusSerializer"]


class JsonPlusSerializer:
    """LangGraph's default checkpoint serializer, as the engine's JSON."""

    def __init__(self, *, pickle_fallback: bool = False, **options: Any) -> None:
        self.pickle_fallback = pickle_fallback
        """Accepted as LangGraph's is; the engine never pickles."""
        self.options = options

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        return "json", serde.dumps(obj).encode()

    def loads_typed(self, data: tuple[str, bytes]) -> Any:
        kind, payload = data
        if kind != "json":
            raise ValueError(f"JsonPlusSerializer reads the engine's JSON, not {kind!r}")
        return serde.loads(payload)
