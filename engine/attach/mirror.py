"""Copies of an attached run's checkpoints in a session file, so a recorded attach-mode session
replays offline like an engine one: its Timeline lists the checkpoints and every dock shows the
state at each of them, with neither the app nor its database at hand.

The app's own saver stays the one the run uses (time travel, resume and fork go through it);
the copy is for reading.  Each checkpoint LangGraph streams (``checkpoints`` mode, subgraphs
included) carries its state values: they are stored with our serialiser, LangChain messages
as ours, anything our serialiser cannot store as its display form.  A channel whose value did
not change since the thread's previous copy keeps its stored blob.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from engine import serde
from engine.checkpoint.base import make_config

__all__ = ["CheckpointMirror"]


def _storable(value: Any) -> Any:
    """``value`` as our serialiser stores it (LangChain messages become ours)."""
    from engine.interop import from_langchain, is_langchain_message

    if is_langchain_message(value):
        return from_langchain(value)
    if isinstance(value, list | tuple) and any(is_langchain_message(v) for v in value):
        return [_storable(v) for v in value]
    if isinstance(value, dict):
        return {k: _storable(v) for k, v in value.items()}
    try:
        serde.dumps(value)
    except Exception:  # a value of the app's own type: keep what a viewer shows of it
        return serde.to_jsonable(value)
    return value


class CheckpointMirror:
    """Writes a copy of each checkpoint of attached runs into ``saver`` (a session's)."""

    def __init__(self, saver: Any) -> None:
        self.saver = saver
        self._last: dict[tuple[str, str], dict[str, tuple[str, str]]] = {}
        """(thread, ns) -> channel -> (version, stored text) of the thread's previous copy."""

    async def put(
        self,
        *,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        parent_id: str | None,
        values: Any,
        metadata: dict[str, Any],
        ts: str | None = None,
    ) -> None:
        if not isinstance(values, dict):  # a one-value state: LangGraph's root channel
            values = {"__root__": values}
        stored = {str(k): _storable(v) for k, v in values.items()}
        previous = self._last.get((thread_id, ns), {})
        versions: dict[str, str] = {}
        new_versions: dict[str, str] = {}
        seen: dict[str, tuple[str, str]] = {}
        for channel, value in stored.items():
            text = serde.dumps(value)
            old = previous.get(channel)
            version = old[0] if old is not None and old[1] == text else checkpoint_id
            if version == checkpoint_id:
                new_versions[channel] = version
            versions[channel] = version
            seen[channel] = (version, text)
        self._last[(thread_id, ns)] = seen
        meta = {
            k: v
            for k, v in metadata.items()
            if k in ("source", "step", "run_id", "parents") and v is not None
        }
        await self.saver.aput(
            make_config(thread_id, ns, parent_id)
            if parent_id
            else {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}},
            {
                "v": 1,
                "id": checkpoint_id,
                "ts": ts or dt.datetime.now(dt.UTC).isoformat(timespec="microseconds"),
                "channel_values": stored,
                "channel_versions": versions,
                "versions_seen": {},
            },
            meta,  # type: ignore[arg-type]
            new_versions,
        )
