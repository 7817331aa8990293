"""Copies of an attached run's checkpoints in a session file, so a recorded attach-mode session
replays offline like an engine one: its Timeline lists the checkpoints and every dock shows the
state at each of them, with neither the app nor its database at hand.

The app's own saver stays the one the run uses (time travel, resume and fork go through it);
the copy is for reading.  Each checkpoint LangGraph streams (``checkpoints`` mode, subgraphs
included) carries its state values: they are stored with our serialiser, LangChain messages
as ours, anything our serialiser cannot store as its display form.

Only what changed is converted and written.  A channel no node wrote since the thread's
previous copy keeps its stored blob (LangGraph hands back the very same object); one a node
wrote is stored again even when it is the same object, changed in place.  A
message list that grew by appending is stored as a ``MessageList`` extending the previous copy:
only the new messages are converted, and the saver writes them as a delta, so a long thread's
session file grows with its messages, not with their square.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Collection
from typing import Any, NamedTuple

from engine import serde
from engine.checkpoint.base import make_config
from engine.message_log import MessageList

__all__ = ["CheckpointMirror", "MirrorCopy"]


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
        serde.encode(value)
    except Exception:  # a value of the app's own type: keep what a viewer shows of it
        return serde.to_jsonable(value)
    if type(value) in _IMMUTABLE:
        return value
    try:  # a copy of its own: the run may change the app's object in place before it is written
        return copy.deepcopy(value)
    except Exception:
        return value


_IMMUTABLE = frozenset({type(None), bool, int, float, str, bytes})


def _is_message_list(value: Any) -> bool:
    from engine.interop import is_langchain_message

    return isinstance(value, list) and bool(value) and all(map(is_langchain_message, value))


def _grown(previous: tuple[str, Any, Any] | None, value: Any) -> Any:
    """``value`` stored, reusing the previous copy of its channel when ``value`` extends it."""
    from engine.interop import from_langchain

    if previous is not None and isinstance(previous[2], MessageList) and isinstance(value, list):
        raw = previous[1]
        # the same message objects, or equal ones (a new run reads the thread back from the
        # app's saver: new objects for the same messages)
        same = all(a is b or a == b for a, b in zip(raw, value, strict=False))
        if len(value) >= len(raw) and same:
            tail = value[len(raw) :]
            if not tail or _is_message_list(tail):
                return previous[2].extended(from_langchain(tail)) if tail else previous[2]
    if _is_message_list(value):
        return MessageList(from_langchain(value))
    return _storable(value)


class CheckpointMirror:
    """Writes a copy of each checkpoint of attached runs into ``saver`` (a session's)."""

    def __init__(self, saver: Any) -> None:
        self.saver = saver
        self._last: dict[tuple[str, str], dict[str, tuple[str, Any, Any]]] = {}
        """(thread, ns) -> channel -> (version, LangGraph's value as it was, what was stored)
        of the thread's previous copy (see the module docstring)."""

    def prepare(
        self,
        *,
        thread_id: str,
        ns: str,
        checkpoint_id: str,
        parent_id: str | None,
        values: Any,
        metadata: dict[str, Any],
        ts: str | None = None,
        written: Collection[str] = (),
    ) -> MirrorCopy:
        """The copy of one checkpoint, converted now (where the run's thread is: nothing the
        run does next changes it), written later (``write``); ``written``: the channels its
        superstep wrote (stored again even when LangGraph hands back the same object: a node
        may have changed it in place)."""
        if not isinstance(values, dict):  # a one-value state: LangGraph's root channel
            values = {"__root__": values}
        previous = self._last.get((thread_id, ns), {})
        versions: dict[str, str] = {}
        changed: dict[str, Any] = {}
        seen: dict[str, tuple[str, Any, Any]] = {}
        for key, value in values.items():
            channel = str(key)
            old = previous.get(channel)
            if old is not None and old[1] is value and channel not in written:
                seen[channel] = old
            else:
                changed[channel] = stored = _grown(old, value)
                raw = list(value) if isinstance(stored, MessageList) else value
                seen[channel] = (checkpoint_id, raw, stored)
            versions[channel] = seen[channel][0]
        self._last[(thread_id, ns)] = seen
        meta = {
            k: v
            for k, v in metadata.items()
            if k in ("source", "step", "run_id", "parents") and v is not None
        }
        config = (
            make_config(thread_id, ns, parent_id)
            if parent_id
            else {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        )
        checkpoint = {
            "v": 1,
            "id": checkpoint_id,
            "ts": ts or dt.datetime.now(dt.UTC).isoformat(timespec="microseconds"),
            # every channel is present; only the changed ones' values are encoded (the
            # saver writes blobs for ``new_versions`` and reads the rest by version)
            "channel_values": {ch: changed.get(ch) for ch in versions},
            "channel_versions": versions,
            "versions_seen": {},
        }
        return MirrorCopy(config, checkpoint, meta, {channel: checkpoint_id for channel in changed})

    async def write(self, copy: MirrorCopy) -> None:
        """Write a copy ``prepare`` made into the session's saver (on the loop it lives on)."""
        await self.saver.aput(copy.config, copy.checkpoint, copy.metadata, copy.new_versions)

    async def put(self, **checkpoint: Any) -> None:
        """``prepare`` and ``write`` at once."""
        await self.write(self.prepare(**checkpoint))

    def forget(self, thread_id: str, ns: str) -> None:
        """A copy prepared for this thread was not written (the app's saver failed): the next
        one stores every channel again instead of referring to it."""
        self._last.pop((thread_id, ns), None)


class MirrorCopy(NamedTuple):
    """What ``CheckpointMirror.write`` hands the session's saver (``aput``'s arguments)."""

    config: Any
    checkpoint: Any
    metadata: dict[str, Any]
    new_versions: dict[str, str]
