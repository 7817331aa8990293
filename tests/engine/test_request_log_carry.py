"""A run's first ``model.request`` reuses the message JSON the thread's previous request made
(``engine.observe.request_log``): a long conversation's next run does not serialize its whole
history again, and what it records is unchanged."""

from __future__ import annotations

from typing import Any

from engine.agents import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase
from engine.messages import HumanMessage
from engine.models import ScriptedChatModel
from engine.observe import request_log
from engine.observe.request_log import RequestLog, resolve
from engine.serde import to_jsonable


def _requests(events: list[EventBase]) -> list[tuple[list[Any] | None, list[Any] | None]]:
    by_key = {(e.run_id, e.seq): e for e in events}
    return [
        resolve(e, lambda seq, run=e.run_id: by_key.get((run, seq)))
        for e in events
        if e.kind == "model.request"
    ]


def test_a_runs_first_request_reuses_the_history_json_and_records_it_whole() -> None:
    model = ScriptedChatModel([f"answer {i}" for i in range(4)])
    agent = create_agent(model, [], system_prompt="Be brief.", checkpointer=InMemorySaver())
    seen: list[EventBase] = []
    agent.subscribe(seen.append)
    cfg = {"configurable": {"thread_id": "t"}}
    for i in range(4):
        agent.invoke({"messages": [HumanMessage(f"question {i}")]}, cfg)
    full = _requests(seen)
    assert len(full) == len(model.calls) == 4
    for (messages, _tools), call in zip(full, model.calls, strict=True):
        assert messages == [to_jsonable(m, max_str=100_000) for m in call.messages]
    # the fourth run's first request: the history's JSON is the third's, not made again
    third, fourth = full[2][0], full[3][0]
    assert third is not None and fourth is not None and len(fourth) == len(third) + 2
    assert all(a is b for a, b in zip(third[1:], fourth[1 : len(third)], strict=True))


def test_a_message_that_is_not_the_same_is_serialized_again(monkeypatch: Any) -> None:
    made: list[Any] = []
    real = request_log.to_jsonable

    def counting(value: Any, **kw: Any) -> Any:
        made.append(value)
        return real(value, **kw)

    monkeypatch.setattr(request_log, "to_jsonable", counting)
    history = [HumanMessage("system-ish"), HumanMessage("hi"), HumanMessage("more")]
    first = RequestLog()
    first.remember("|model", _event(first.fields("|model", history)), history, [])
    made.clear()
    edited = HumanMessage("more, edited")
    later = [*history[:2], edited, HumanMessage("new")]
    fields = RequestLog().fields("|model", later)
    assert fields["messages"] == [to_jsonable(m, max_str=100_000) for m in later]
    assert made == later[2:]  # only what the previous request did not have


def _event(fields: dict[str, Any]) -> EventBase:
    from engine.events import ModelRequest

    ev = ModelRequest.model_construct(model="m", **fields)
    ev.seq = 1
    return ev
