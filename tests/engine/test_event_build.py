"""``RunEmitter._build`` builds in one pass exactly what ``construct`` built from the caller's
fields plus the envelope: the same keys in the same order (the recorded JSON follows it), the
same values, the same set fields."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.events import EVENT_CLASSES, EventBase
from engine.observe.bus import CURRENT_SPAN, EventBus, construct
from engine.observe.emitter import RunEmitter

_REQUIRED: dict[str, Any] = {
    "node": "model",
    "task_id": "t1",
    "middleware": "M",
    "hook": "before_model",
    "wrapper": "wrap_model_call",
    "attempt": 2,
    "action": "context_edit",
    "model": "m",
    "tool": "search",
    "from_node": "model",
    "op": "get",
    "index": 0,
    "name": "step",
    "loop": "repeated_call",
}


def _eager(em: RunEmitter, cls: type[EventBase], fields: dict[str, Any], ev: EventBase) -> Any:
    """What the emitter built before: the envelope added to the caller's fields, then
    ``construct`` (times taken from ``ev``, the only values that differ between two builds)."""
    fields = dict(fields)
    fields.setdefault("parent_span_id", CURRENT_SPAN.get())
    fields.setdefault("step", em.step)
    fields.setdefault("checkpoint_id", em.checkpoint_id)
    fields["run_id"] = em.run_id
    fields["thread_id"] = em.thread_id
    fields["ts"] = ev.ts
    fields["mono_ns"] = ev.mono_ns
    fields["ns"] = em.ns
    return construct(cls, fields)


@pytest.mark.parametrize("kind", sorted(EVENT_CLASSES))
@pytest.mark.parametrize(
    "extra",
    [{}, {"span_id": "s1", "step": 7, "parent_span_id": None, "run_id": "mine", "ts": 1.0}],
    ids=["plain", "envelope given"],
)
def test_build_equals_the_eager_recipe(kind: str, extra: dict[str, Any]) -> None:
    cls = EVENT_CLASSES[kind]

    async def build() -> tuple[EventBase, EventBase]:
        em = RunEmitter("run-1", "thread-1", [EventBus()], ns="sub:1")
        em.step, em.checkpoint_id = 3, "cp-1"
        required = {k: v for k, v in _REQUIRED.items() if k in cls.model_fields}
        fields = {**required, **extra}
        token = CURRENT_SPAN.set("parent-span")
        try:
            ev = em._build(cls, dict(fields))
        finally:
            CURRENT_SPAN.reset(token)
        return ev, _eager(
            em, cls, {**fields, "parent_span_id": fields.get("parent_span_id", "parent-span")}, ev
        )

    ev, want = asyncio.run(build())
    assert list(ev.__dict__) == list(want.__dict__)
    assert ev.__dict__ == want.__dict__
    assert ev.model_fields_set == want.model_fields_set
    assert ev.model_dump_json() == want.model_dump_json()
    assert ev.__pydantic_extra__ is None and ev.__pydantic_private__ is None
