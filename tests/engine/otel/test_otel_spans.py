"""``SpanBuilder`` on hand-made events: requests that continue an earlier one, unfinished runs."""

from __future__ import annotations

import json
from typing import Any

from engine.events import ModelRequest, ModelResponse, RunStarted
from engine.observe.bus import construct
from engine.otel.spans import provider_of, spans_from_events

RUN = "run-1"


def _ev(cls: Any, seq: int, **fields: Any) -> Any:
    base = {"run_id": RUN, "thread_id": "t", "seq": seq, "ts": 1000.0 + seq, "mono_ns": seq * 1000}
    return construct(cls, {**base, **fields})


def test_a_request_that_continues_an_earlier_one_exports_the_whole_conversation() -> None:
    schema = {"name": "lookup", "description": "d", "parameters": {"type": "object"}}
    human = {"type": "human", "content": "hi"}
    ai = {"type": "ai", "content": "", "tool_calls": [{"name": "lookup", "args": {}, "id": "c1"}]}
    tool = {"type": "tool", "content": "sunny", "tool_call_id": "c1"}
    events = [
        _ev(RunStarted, 1, span_id="r", graph="g"),
        _ev(ModelRequest, 2, span_id="m1", parent_span_id="r", model="gpt-4o",
            messages=[human], tool_schemas=[schema], last_messages=[human]),
        _ev(ModelResponse, 3, span_id="m1", parent_span_id="r", model="gpt-4o", message=ai),
        _ev(ModelRequest, 4, span_id="m2", parent_span_id="r", model="gpt-4o",
            messages=[ai, tool], messages_base=2, messages_reused=1, tool_schemas_reused=True,
            last_messages=[human, ai, tool]),
        _ev(ModelResponse, 5, span_id="m2", parent_span_id="r", model="gpt-4o",
            message={"type": "ai", "content": "It is sunny."}),
    ]  # fmt: skip
    spans = {s.span_key: s for s in spans_from_events(events)}
    second = spans["m2"].attributes
    roles = [m["role"] for m in json.loads(str(second["gen_ai.input.messages"]))]
    assert roles == ["user", "assistant", "tool"]
    assert json.loads(str(second["gen_ai.tool.definitions"]))[0]["parameters"] == {"type": "object"}
    assert "stepwise.input.messages_truncated" not in second
    assert spans["r"].attributes["stepwise.unfinished"] is True  # the run never finished
    assert spans["r"].end_ns == spans["m2"].end_ns  # closed at its last event


def test_provider_names_are_never_guessed_from_unknown_models() -> None:
    assert provider_of("gpt-4o-mini") == "openai"
    assert provider_of("claude-3-5-sonnet") == "anthropic"
    assert provider_of("openai:gpt-4o") == "openai"
    assert provider_of("scripted-coder") == "stepwise"
    assert provider_of("my-finetune") == "_OTHER"
    assert provider_of("my-finetune", "azure.ai.openai") == "azure.ai.openai"


def test_the_hook_a_run_waits_at_is_exported_as_interrupted() -> None:
    from engine.events import HookFinished, HookStarted

    names = {"middleware": "HumanInTheLoopMiddleware", "hook": "after_model"}
    events = [
        _ev(RunStarted, 1, span_id="r", graph="g"),
        _ev(HookStarted, 2, span_id="h1", parent_span_id="r", **names),
        _ev(HookFinished, 3, span_id="h1", parent_span_id="r", outcome="interrupted", **names),
        _ev(HookStarted, 4, span_id="h2", parent_span_id="r", **names),
        _ev(HookFinished, 5, span_id="h2", parent_span_id="r", jump_to="end", **names),
    ]
    spans = {s.span_key: s for s in spans_from_events(events)}
    assert spans["h1"].attributes["stepwise.outcome"] == "interrupted"
    assert spans["h1"].status == "unset"  # waiting for a person is not an error
    assert "stepwise.outcome" not in spans["h2"].attributes
    assert spans["h2"].attributes["stepwise.jump_to"] == "end"
