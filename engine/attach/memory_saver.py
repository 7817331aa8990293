"""The in-memory checkpointer attach mode gives an app that has none of its own.

Time travel, resume and fork need checkpoints, so an app without a checkpointer runs attached
on an in-memory one.  LangGraph's ``InMemorySaver`` stores each new version of a channel in
full: a conversation's message list is stored again at every step, so a 2,000-turn run keeps
millions of copies of its messages (gigabytes, and as much time spent serialising them).
``AppendingMemorySaver`` is LangGraph's ``InMemorySaver`` storing a list that only grew since
the channel's previous version as that version plus the new items: a thread's history costs
what its messages cost once.  Everything else (and every read) is ``InMemorySaver``'s own: a
value is still serialised when saved, so what a node changes in place later does not change a
saved checkpoint.
"""

from __future__ import annotations

import operator
from typing import Any, cast

from langgraph.checkpoint.base import Checkpoint
from langgraph.checkpoint.memory import InMemorySaver

__all__ = ["AppendingMemorySaver"]

_APPENDED = "stepwise-appended"
"""The type tag of a blob stored as (the previous version's blob key, the new items)."""


class AppendingMemorySaver(InMemorySaver):
    """LangGraph's in-memory saver, with grown lists stored as what they gained (see module
    docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self._lists: dict[tuple[str, str, str], tuple[Any, tuple[Any, ...]]] = {}
        """(thread, ns, channel) -> (the blob key of its newest version, its items then): what
        the next version of the channel may extend (the items as they were when saved: a
        list a node changes in place later is compared with what was saved)."""

    def put(self, config: Any, checkpoint: Any, metadata: Any, new_versions: Any) -> Any:
        thread = config["configurable"]["thread_id"]
        ns = config["configurable"]["checkpoint_ns"]
        values = checkpoint["channel_values"]
        grown: dict[str, Any] = {}
        for channel, version in new_versions.items():
            value = values.get(channel)
            if not isinstance(value, list):
                self._lists.pop((thread, ns, channel), None)
                continue
            key = (thread, ns, channel, version)
            last = self._lists.get((thread, ns, channel))
            if last is not None and _extends(last[1], value):
                grown[channel] = (last[0], value[len(last[1]) :])
            self._lists[(thread, ns, channel)] = (key, tuple(value))
        if not grown:
            return super().put(config, checkpoint, metadata, new_versions)
        kept = {k: v for k, v in values.items() if k not in grown}
        out = super().put(
            config,
            cast("Checkpoint", {**checkpoint, "channel_values": kept}),
            metadata,
            {k: v for k, v in new_versions.items() if k not in grown},
        )
        blobs = self._blobs()
        for channel, (previous, tail) in grown.items():
            blobs[(thread, ns, channel, new_versions[channel])] = (
                _APPENDED,
                (previous, self.serde.dumps_typed(list(tail))),
            )
        return out

    def delete_thread(self, thread_id: str) -> None:
        super().delete_thread(thread_id)
        for key in [k for k in self._lists if k[0] == thread_id]:
            del self._lists[key]

    def _load_blobs(self, thread_id: str, checkpoint_ns: str, versions: Any) -> dict[str, Any]:
        plain = {
            k: v
            for k, v in versions.items()
            if self.blobs.get((thread_id, checkpoint_ns, k, v), ("",))[0] != _APPENDED
        }
        result = super()._load_blobs(thread_id, checkpoint_ns, plain)
        for channel, version in versions.items():
            if channel not in plain:
                result[channel] = self._grown((thread_id, checkpoint_ns, channel, version))
        return result

    def _blobs(self) -> dict[Any, Any]:
        """``self.blobs``, which also holds appended blobs (not the serde's pairs)."""
        return cast("dict[Any, Any]", self.blobs)

    def _grown(self, key: Any) -> list[Any]:
        """The list a chain of appended blobs ends in (walked without recursion)."""
        tails: list[list[Any]] = []
        blobs = self._blobs()
        blob = blobs.get(key)
        while blob is not None and blob[0] == _APPENDED:
            previous, tail = blob[1]
            tails.append(self.serde.loads_typed(tail))
            blob = blobs.get(previous)
        items: list[Any] = []
        if blob is not None and blob[0] != "empty":
            items = list(self.serde.loads_typed(blob))
        for tail in reversed(tails):
            items.extend(tail)
        return items


def _extends(previous: tuple[Any, ...], value: list[Any]) -> bool:
    """Does ``value`` hold the very items ``previous`` held, then more?  (Items are compared
    by identity: messages are not changed in place, a new version is a new object.)"""
    if len(value) <= len(previous) or not previous:
        return False
    return all(map(operator.is_, previous, value))
