"""``push_message``: a node hands a finished message to ``stream_mode="messages"`` itself."""

from __future__ import annotations

from typing import Any

from engine.graph.runtime import current_task
from engine.messages import BaseMessage, BaseMessageChunk, coerce_message

__all__ = ["push_message"]


def push_message(message: Any, *, state_key: str | None = "messages") -> BaseMessage:
    """Send ``message`` to the ``messages`` stream now; also write it to ``state_key``
    (unless None) as part of the running node's update.  The message needs an id."""
    task = current_task()
    if task is None:
        raise RuntimeError("push_message() can only be called from inside a running graph node")
    msg = coerce_message(message)
    if isinstance(msg, BaseMessageChunk):
        msg = msg.to_message()
    if not msg.id:
        raise ValueError("Message ID is required")
    run = task.run
    run.streamed_message_ids.add(msg.id)
    if run.wants("messages"):
        run.push_any_thread("messages", (msg, dict(task.config.get("metadata", {}))), task.ns)
    if state_key is not None:
        task.extra_writes.append((state_key, msg))
    return msg
