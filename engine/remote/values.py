"""Values between a LangGraph server's JSON and ours.

A server sends state values as JSON: LangChain messages are dicts with a ``type`` (``human``,
``ai``, ``tool``...).  Every view of the studio reads our message objects, so
``from_server`` rebuilds them (everything else stays as it came).  ``to_server`` is the
reverse for inputs, ``update_state`` values and ``Command(resume=...)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.types import Interrupt, PregelTask, StateSnapshot

__all__ = ["command_payload", "from_server", "snapshot_from_server", "to_server"]

_MESSAGE_TYPES = frozenset({"human", "ai", "tool", "system", "AIMessageChunk", "remove"})


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") in _MESSAGE_TYPES and "content" in value


def from_server(value: Any) -> Any:
    """``value`` with every serialized LangChain message in it rebuilt as ours."""
    from engine.messages import message_from_dict

    if _is_message(value):
        try:
            return message_from_dict(dict(value))
        except Exception:  # an odd message stays a dict rather than failing the view
            return value
    if isinstance(value, list):
        return [from_server(v) for v in value]
    if isinstance(value, dict):
        return {k: from_server(v) for k, v in value.items()}
    return value


def to_server(value: Any) -> Any:
    """Our values (messages, dataclasses...) as the JSON a server accepts."""
    from engine.messages import BaseMessage, message_to_dict
    from engine.serde import to_jsonable

    if isinstance(value, BaseMessage):
        data = message_to_dict(value)
        return {k: v for k, v in data.items() if v not in (None, {}, [])} | {
            "type": data["type"],
            "content": data.get("content", ""),
        }
    if isinstance(value, Mapping):
        return {str(k): to_server(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_server(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return to_jsonable(value)


def command_payload(value: Any) -> dict[str, Any] | None:
    """The server ``command`` of one of our ``Command`` values (None for other inputs)."""
    from engine.types import Command

    if not isinstance(value, Command):
        return None
    out: dict[str, Any] = {}
    if value.resume is not None:
        out["resume"] = to_server(value.resume)
    if value.update is not None:
        out["update"] = to_server(value.update)
    goto = value.goto_list()
    if goto:
        out["goto"] = [
            g if isinstance(g, str) else {"node": g.node, "input": to_server(g.arg)} for g in goto
        ]
    return out


def _interrupt(data: Any) -> Interrupt:
    if not isinstance(data, Mapping):
        return Interrupt(from_server(data), "")
    schema = data.get("response_schema")
    return Interrupt(
        from_server(data.get("value")),
        str(data.get("id") or ""),
        response_schema=schema if isinstance(schema, dict) else None,
    )


def _task(data: Mapping[str, Any]) -> PregelTask:
    error = data.get("error")
    return PregelTask(
        str(data.get("id") or ""),
        str(data.get("name") or ""),
        tuple(data.get("path") or ()),
        RuntimeError(str(error)) if error else None,
        tuple(_interrupt(i) for i in data.get("interrupts") or ()),
        data.get("state"),
        from_server(data.get("result")),
    )


def _config(thread_id: str, ref: Any) -> dict[str, Any] | None:
    if not isinstance(ref, Mapping) or not ref.get("checkpoint_id"):
        return None
    return {
        "configurable": {
            "thread_id": str(ref.get("thread_id") or thread_id),
            "checkpoint_ns": str(ref.get("checkpoint_ns") or ""),
            "checkpoint_id": str(ref["checkpoint_id"]),
        }
    }


def snapshot_from_server(thread_id: str, data: Mapping[str, Any]) -> StateSnapshot:
    """A server ``ThreadState`` (``get_state`` / one entry of ``history``) as our snapshot."""
    config = _config(thread_id, data.get("checkpoint")) or {
        "configurable": {"thread_id": thread_id, "checkpoint_ns": ""}
    }
    metadata = data.get("metadata")
    return StateSnapshot(
        values=from_server(data.get("values") if data.get("values") is not None else {}),
        next=tuple(str(n) for n in data.get("next") or ()),
        config=config,
        metadata=dict(metadata) if isinstance(metadata, Mapping) else None,
        created_at=data.get("created_at"),
        parent_config=_config(thread_id, data.get("parent_checkpoint")),
        tasks=tuple(_task(t) for t in data.get("tasks") or () if isinstance(t, Mapping)),
        interrupts=tuple(_interrupt(i) for i in data.get("interrupts") or ()),
    )
