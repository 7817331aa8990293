"""The event protocol: one pydantic discriminated union on ``kind``.

Every event carries the envelope ``run_id, thread_id, seq, ts, mono_ns, step, span_id,
parent_span_id, checkpoint_id, ns``.  Start/end pairs share a ``span_id``; ``parent_span_id``
nests run > superstep > node task > hook/wrapper > attempt > model/tool call.  Payloads are
plain JSON (already rendered with ``serde.to_jsonable``), so an event round-trips through
``event_to_json`` / ``event_from_json`` unchanged.

The envelope is in ``engine.event_base``, the kinds in ``engine.event_kinds``; this module
offers them all with the union and the codec.  Delivery (``EventBus``) lives in
``engine.observe.bus``; this module is only the data.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, TypeAlias, Union

from pydantic import Field, TypeAdapter

from engine.event_base import ErrorInfo, EventBase
from engine.event_kinds import (
    AttemptFinished,
    AttemptStarted,
    CheckpointSaved,
    CustomEvent,
    DebugPaused,
    DebugResumed,
    HookFinished,
    HookStarted,
    InterruptRaised,
    InterruptResumed,
    LoopDetected,
    MiddlewareAction,
    ModelRequest,
    ModelResponse,
    ModelToken,
    NodeFinished,
    NodeStarted,
    PlannedTask,
    PlanStep,
    Route,
    RunFinished,
    RunStarted,
    StateUpdated,
    StoreAccessed,
    SuperstepFinished,
    SuperstepStarted,
    ToolFinished,
    ToolStarted,
    WrapperFinished,
    WrapperStarted,
)

__all__ = [
    "EVENT_KINDS",
    "AttemptFinished",
    "AttemptStarted",
    "CheckpointSaved",
    "CustomEvent",
    "DebugPaused",
    "DebugResumed",
    "ErrorInfo",
    "Event",
    "EventBase",
    "HookFinished",
    "HookStarted",
    "InterruptRaised",
    "InterruptResumed",
    "LoopDetected",
    "MiddlewareAction",
    "ModelRequest",
    "ModelResponse",
    "ModelToken",
    "NodeFinished",
    "NodeStarted",
    "PlanStep",
    "PlannedTask",
    "Route",
    "RunFinished",
    "RunStarted",
    "StateUpdated",
    "StoreAccessed",
    "SuperstepFinished",
    "SuperstepStarted",
    "ToolFinished",
    "ToolStarted",
    "WrapperFinished",
    "WrapperStarted",
    "event_from_dict",
    "event_from_json",
    "event_to_dict",
    "event_to_json",
]

Event: TypeAlias = Annotated[
    Union[  # noqa: UP007
        RunStarted,
        RunFinished,
        SuperstepStarted,
        SuperstepFinished,
        NodeStarted,
        NodeFinished,
        HookStarted,
        HookFinished,
        WrapperStarted,
        WrapperFinished,
        AttemptStarted,
        AttemptFinished,
        MiddlewareAction,
        ModelRequest,
        ModelToken,
        ModelResponse,
        ToolStarted,
        ToolFinished,
        Route,
        StateUpdated,
        CheckpointSaved,
        InterruptRaised,
        InterruptResumed,
        StoreAccessed,
        PlanStep,
        CustomEvent,
        LoopDetected,
        DebugPaused,
        DebugResumed,
    ],
    Field(discriminator="kind"),
]

EVENT_CLASSES: dict[str, type[EventBase]] = {
    cls.model_fields["kind"].default: cls for cls in EventBase.__subclasses__()
}
EVENT_KINDS: tuple[str, ...] = tuple(EVENT_CLASSES)

_ADAPTER: TypeAdapter[Any] = TypeAdapter(Event)

#: Kinds that open a span; the matching closing kind shares the span_id.
SPAN_OPENERS: dict[str, str] = {
    "run.started": "run.finished",
    "superstep.started": "superstep.finished",
    "node.started": "node.finished",
    "hook.started": "hook.finished",
    "wrapper.started": "wrapper.finished",
    "attempt.started": "attempt.finished",
    "model.request": "model.response",
    "tool.started": "tool.finished",
}
SPAN_CLOSERS: dict[str, str] = {v: k for k, v in SPAN_OPENERS.items()}


def event_to_dict(event: EventBase) -> dict[str, Any]:
    return event.model_dump(mode="json")


def event_from_dict(data: dict[str, Any]) -> EventBase:
    return _ADAPTER.validate_python(data)


def event_to_json(event: EventBase) -> str:
    return event.model_dump_json()


def event_from_json(text: str | bytes) -> EventBase:
    return _ADAPTER.validate_python(json.loads(text))
