"""``model.request`` records the whole request the model received (messages, tools with their
schemas, tool choice, structured-output schema, parameters), each message once per run."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from engine.agents import create_agent
from engine.agents.structured import ProviderStrategy
from engine.events import EventBase, event_from_json, event_to_json
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.models import ScriptedChatModel
from engine.observe.request_log import RequestLog, public_params, resolve
from engine.serde import to_jsonable
from engine.tools import tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: the first
        b: the second
    """
    return a + b


def _script() -> list[Any]:
    return [
        AIMessage(content="", tool_calls=[ToolCall(name="add", args={"a": 1, "b": 2}, id="c1")]),
        AIMessage(content="", tool_calls=[ToolCall(name="add", args={"a": 3, "b": 3}, id="c2")]),
        "3 and 6",
    ]


async def _run(agent: Any, text: str = "add things") -> list[EventBase]:
    seen: list[EventBase] = []
    with agent.subscribe(seen.append):
        await agent.ainvoke(
            {"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": "t"}}
        )
    return seen


def _finder(events: list[EventBase]) -> Any:
    by_seq = {e.seq: e for e in events}
    return by_seq.get


async def test_each_request_resolves_to_exactly_what_the_model_received() -> None:
    model = ScriptedChatModel(_script(), temperature=0.2, max_tokens=300, api_key="sk-secret-1")
    agent = create_agent(model, [add], system_prompt="You add.")
    events = await _run(agent)
    requests = [e for e in events if e.kind == "model.request"]
    assert len(requests) == len(model.calls) == 3
    find = _finder(events)
    for ev, call in zip(requests, model.calls, strict=True):
        messages, tools = resolve(ev, find)
        assert messages == [to_jsonable(m, max_str=100_000) for m in call.messages]
        assert tools == call.tools
        assert tools and tools[0]["name"] == "add" and "a" in tools[0]["parameters"]["properties"]
        assert ev.__dict__["params"] == {
            "temperature": 0.2,
            "max_tokens": 300,
            "api_key": "[redacted]",
        }
    assert "sk-secret-1" not in "".join(event_to_json(e) for e in events)
    # the history is not repeated: later requests carry only their new messages
    first, second, third = (r.__dict__ for r in requests)
    assert first["messages_base"] is None and len(first["messages"]) == 2  # system + human
    assert second["messages_base"] == requests[0].seq and second["messages_reused"] == 2
    assert len(second["messages"]) == 2  # the AI call and its tool result
    assert second["tool_schemas_reused"] and second["tool_schemas"] is None
    assert third["messages_reused"] == 4 and len(third["messages"]) == 2
    # and it survives a trip through JSON (a session file)
    restored = [event_from_json(event_to_json(e)) for e in events]
    assert (
        resolve(restored[events.index(requests[2])], _finder(restored))[0]
        == resolve(requests[2], find)[0]
    )


async def test_a_system_prompt_rebuilt_for_every_call_does_not_repeat_the_history() -> None:
    from engine.middleware import TodoListMiddleware

    model = ScriptedChatModel(_script())
    agent = create_agent(model, [add], system_prompt="You add.", middleware=[TodoListMiddleware()])
    events = await _run(agent)
    requests = [e for e in events if e.kind == "model.request"]
    # the middleware makes a new system message (same text) for each call
    assert model.calls[0].messages[0] is not model.calls[1].messages[0]
    second, third = (r.__dict__ for r in requests[1:])
    assert second["messages_reused"] == 2 and len(second["messages"]) == 2
    assert third["messages_reused"] == 4 and len(third["messages"]) == 2
    find = _finder(events)
    for ev, call in zip(requests, model.calls, strict=True):
        assert resolve(ev, find)[0] == [to_jsonable(m, max_str=100_000) for m in call.messages]


def test_a_changed_message_that_is_not_the_same_object_ends_the_reused_part() -> None:
    from engine.events import ModelRequest
    from engine.messages import SystemMessage

    log = RequestLog()
    h = HumanMessage("hi")
    first = ModelRequest(run_id="r", seq=1, model="x", **log.fields("l", [SystemMessage("a"), h]))
    log.remember("l", first, [SystemMessage("a"), h], [])
    fields = log.fields("l", [SystemMessage("b"), h, AIMessage("yo")])
    assert fields["messages_reused"] == 0 and len(fields["messages"]) == 3
    same = log.fields("l", [SystemMessage("a"), HumanMessage("hi"), AIMessage("yo")])
    assert same["messages_reused"] == 2 and same["messages"] == [to_jsonable(AIMessage("yo"))]


class Answer(BaseModel):
    total: int


async def test_the_structured_output_schema_is_recorded() -> None:
    model = ScriptedChatModel(['{"total": 3}'])
    agent = create_agent(model, [], response_format=ProviderStrategy(Answer))
    events = await _run(agent, "total?")
    request = next(e for e in events if e.kind == "model.request")
    schema = request.__dict__["response_schema"]
    assert schema == model.calls[0].response_format
    assert "total" in str(schema)


def test_a_missing_base_resolves_to_unknown_not_to_a_partial_history() -> None:
    log = RequestLog()
    from engine.events import ModelRequest

    fields = log.fields("lane", ["m1"], [])
    first = ModelRequest(run_id="r", seq=5, model="x", **fields)
    log.remember("lane", first, ["m1"], [])
    second = ModelRequest(run_id="r", seq=9, model="x", **log.fields("lane", ["m1", "m2"], []))
    assert second.messages_base == 5 and second.messages == ["m2"]
    assert resolve(second, {5: first}.get) == (["m1", "m2"], [])
    assert resolve(second, {}.get) == (None, None)
    old = ModelRequest(run_id="r", seq=3, model="x")  # recorded before requests were
    assert resolve(old, {}.get) == (None, None)


def test_public_params_redacts_credentials_and_leaves_request_fields_out() -> None:
    params = public_params(
        {
            "temperature": 0,
            "max_tokens": 5,
            "openai_api_key": "sk-x",
            "default_headers": {"Authorization": "Bearer y"},
            "auth_token": "z",
            "messages": ["not a param"],
            "tools": [],
            "stop": None,
        }
    )
    assert params == {
        "temperature": 0,
        "max_tokens": 5,
        "openai_api_key": "[redacted]",
        "default_headers": "[redacted]",
        "auth_token": "[redacted]",
    }
