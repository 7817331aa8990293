"""What is recorded, rewritten first: the personal data an agent redacts (``PIIMiddleware``,
see ``engine.middleware.pii.pii_text_filter``) is redacted in the session file too.

``filter_strings`` rewrites the strings of JSON data (events, run rows), never its structure:
keys, ids, names and tags stay.  ``FilteringSaver`` is the session's checkpointer: it rewrites
the channel values, pending writes and metadata it is given before it stores them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine import serde
from engine.checkpoint.sqlite import SqliteSaver

__all__ = ["FilteringSaver", "TextFilter", "filter_strings", "filter_value"]

TextFilter = Callable[[str], str]

STRUCTURAL_KEYS = frozenset(
    {
        serde.TAG,
        "cls",
        "kind",
        "type",
        "id",
        "tool_call_id",
        "run_id",
        "span_id",
        "parent_span_id",
        "thread_id",
        "checkpoint_id",
        "parent_id",
        "ns",
        "node",
        "graph",
        "middleware",
        "hook",
        "wrapper",
        "status",
        "source",
    }
)
"""Keys whose values say what the data is, never what someone wrote."""
_SCALAR_TAGS = frozenset({"bytes", "uuid", "datetime", "date", "float", "enum"})


def _apply(text: str, filters: Sequence[TextFilter]) -> str:
    for flt in filters:
        text = flt(text)
    return text


def filter_strings(data: Any, filters: Sequence[TextFilter]) -> Any:
    """JSON data with every string value passed through ``filters`` (keys and the values of
    ``STRUCTURAL_KEYS`` kept)."""
    if not filters:
        return data
    if isinstance(data, str):
        return _apply(data, filters)
    if isinstance(data, list):
        return [filter_strings(v, filters) for v in data]
    if isinstance(data, dict):
        if data.get(serde.TAG) in _SCALAR_TAGS:
            return data
        return {
            k: v if k in STRUCTURAL_KEYS else filter_strings(v, filters) for k, v in data.items()
        }
    return data


def filter_value(value: Any, filters: Sequence[TextFilter]) -> Any:
    """A state value (messages, models, plain data) with its strings passed through ``filters``."""
    if not filters:
        return value
    return serde.decode(filter_strings(serde.encode(value), filters))


class FilteringSaver(SqliteSaver):
    """A ``SqliteSaver`` that passes what it stores through ``text_filters`` first."""

    text_filters: list[TextFilter]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text_filters = []

    async def aput(
        self,
        config: dict[str, Any],
        checkpoint: Any,
        metadata: Any,
        new_versions: dict[str, str],
    ) -> dict[str, Any]:
        filters = self.text_filters
        if filters:
            values = checkpoint["channel_values"]
            checkpoint = {
                **checkpoint,
                "channel_values": {
                    ch: filter_value(v, filters) if ch in new_versions else v
                    for ch, v in values.items()
                },
            }
            metadata = filter_value(dict(metadata), filters)
        return await super().aput(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self,
        config: dict[str, Any],
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        filters = self.text_filters
        if filters:
            writes = [(ch, filter_value(v, filters)) for ch, v in writes]
        await super().aput_writes(config, writes, task_id, task_path)
