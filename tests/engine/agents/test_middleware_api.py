"""The middleware API's upstream shapes: generics, ModelRequest's system prompt, and
``ExtendedModelResponse`` state updates from ``wrap_model_call``."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from engine import create_agent
from engine.errors import InvalidUpdateError
from engine.messages import AIMessage, HumanMessage, SystemMessage
from engine.middleware import (
    AgentMiddleware,
    AgentState,
    ExtendedModelResponse,
    InputAgentState,
    ModelRequest,
    ModelResponse,
    OutputAgentState,
)
from engine.models import ScriptedChatModel
from engine.types import Command

from .helpers import ask


@dataclass
class Ctx:
    user: str


class Notes(AgentState[str]):
    note: str


def test_public_types_are_subscriptable():
    assert Command[Literal["a"]](goto="a").goto == "a"

    class Typed(AgentMiddleware[Notes, Ctx, str]):
        state_schema = Notes

    assert Typed().name == "Typed"
    assert ModelRequest[Ctx] is not None and ModelResponse[int] is not None
    assert set(InputAgentState.__annotations__) == {"messages"}
    assert set(OutputAgentState.__annotations__) == {"messages", "structured_response"}
    assert "note" in Notes.__annotations__ and "jump_to" in Notes.__annotations__


def test_request_takes_a_system_prompt_string_or_a_message_not_both():
    req = ModelRequest(model=None, messages=[], system_prompt="be brief")
    assert isinstance(req.system_message, SystemMessage) and req.system_prompt == "be brief"
    with pytest.raises(ValueError, match="both system_prompt and system_message"):
        ModelRequest(model=None, messages=[], system_prompt="a", system_message=SystemMessage("b"))
    with pytest.raises(ValueError, match="both system_prompt and system_message"):
        req.override(system_prompt="a", system_message=SystemMessage("b"))
    assert req.override(system_prompt=None).system_message is None


def test_assigning_the_system_prompt_still_works_but_warns():
    req = ModelRequest(model=None, messages=[])
    with pytest.warns(DeprecationWarning, match="system_prompt is deprecated"):
        req.system_prompt = "new"  # type: ignore[misc]
    assert req.system_message is not None and req.system_message.text == "new"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert req.override(messages=[]).messages == []  # override never warns


def test_override_keeps_unchanged_objects():
    msgs = [HumanMessage("q")]
    req = ModelRequest(model=None, messages=msgs, tools=[])
    assert req.override(tool_choice="any").messages is msgs


class Summarize(AgentMiddleware):
    state_schema = Notes

    def __init__(self, tag: str, key: str = "note") -> None:
        self.tag, self.key = tag, key

    @property
    def name(self) -> str:
        return f"Summarize{self.tag}"

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        response = handler(request)
        return ExtendedModelResponse(
            model_response=response,
            command=Command(
                update={"messages": [HumanMessage(f"from {self.tag}")], self.key: self.tag}
            ),
        )


def test_wrapper_command_updates_state_next_to_the_reply():
    model = ScriptedChatModel(["answer"])
    out = create_agent(model, middleware=[Summarize("outer")]).invoke(ask())
    assert [m.text for m in out["messages"]] == ["hi", "answer", "from outer"]
    assert out["note"] == "outer"


def test_two_wrappers_writing_one_plain_key_conflict():
    agent = create_agent(ScriptedChatModel(["answer"]), middleware=[Summarize("a"), Summarize("b")])
    with pytest.raises(InvalidUpdateError):
        agent.invoke(ask())


def test_inner_commands_come_first_and_a_retry_drops_the_first_attempt():
    class Twice(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            handler(request)
            return handler(request)

    class Count(AgentMiddleware):
        calls = 0

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            Count.calls += 1
            return ExtendedModelResponse(
                model_response=handler(request),
                command=Command(update={"messages": [HumanMessage(f"inner {Count.calls}")]}),
            )

    model = ScriptedChatModel(["one", "two"])
    out = create_agent(model, middleware=[Summarize("outer", key="note"), Twice(), Count()]).invoke(
        ask()
    )
    assert [m.text for m in out["messages"]] == ["hi", "two", "inner 2", "from outer"]


def test_wrapper_command_may_not_route():
    class Jumpy(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return ExtendedModelResponse(handler(request), Command(goto="model"))

    with pytest.raises(NotImplementedError, match="goto is not yet supported"):
        create_agent(ScriptedChatModel(["x"]), middleware=[Jumpy()]).invoke(ask())


def test_messages_appended_to_the_request_in_place_are_stored():
    class Remind(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            request.messages.append(HumanMessage("be kind"))
            return handler(request)

    model = ScriptedChatModel(["ok"])
    out = create_agent(model, middleware=[Remind()]).invoke(ask())
    assert [m.text for m in out["messages"]] == ["hi", "be kind", "ok"]
    assert [m.text for m in model.calls[0].messages] == ["hi", "be kind"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda ms: ms.insert(0, HumanMessage("first")),
        lambda ms: ms.__setitem__(0, HumanMessage("first")),
        lambda ms: (ms.pop(0), ms.insert(0, HumanMessage("first"))),
        lambda ms: ms.__setitem__(slice(0, 1), [HumanMessage("first")]),
    ],
    ids=["insert", "assign", "pop", "slice"],
)
def test_messages_rewritten_in_place_replace_the_stored_history(edit: Any) -> None:
    class Rewrite(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            if len(request.messages) == 1:
                edit(request.messages)
            return handler(request)

    model = ScriptedChatModel(["ok"])
    out = create_agent(model, middleware=[Rewrite()]).invoke(ask())
    assert [m.text for m in out["messages"]][-1] == "ok"
    assert out["messages"][0].text == "first"
    assert model.calls[0].messages[0].text == "first"


def test_a_messages_list_knows_it_was_edited() -> None:
    from engine.messages import Messages

    ms = Messages.of([HumanMessage("a")])
    ms.append(HumanMessage("b"))
    ms += [HumanMessage("c")]
    ms.extend([HumanMessage("d")])
    assert not ms.edited
    for edit in (
        lambda m: m.insert(0, HumanMessage("x")),
        lambda m: m.__setitem__(0, HumanMessage("x")),
        lambda m: m.__delitem__(0),
        lambda m: m.pop(),
        lambda m: m.remove(m[0]),
        lambda m: m.clear(),
        lambda m: m.sort(key=lambda x: x.text),
        lambda m: m.reverse(),
    ):
        other = Messages.of(ms)
        edit(other)
        assert other.edited


def test_content_blocks():
    assert HumanMessage("hi").content_blocks == [{"type": "text", "text": "hi"}]
    assert HumanMessage("").content_blocks == []
    mixed = HumanMessage(content=["a", {"type": "text", "text": "b"}, {"type": "weird"}])
    assert mixed.content_blocks == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
        {"type": "non_standard", "value": {"type": "weird"}},
    ]
    reply = AIMessage(content="", tool_calls=[{"name": "f", "args": {"x": 1}, "id": "c1"}])
    assert reply.content_blocks == [
        {"type": "tool_call", "id": "c1", "name": "f", "args": {"x": 1}}
    ]


def test_messages_built_from_content_blocks_keep_extra_keys():
    cached = {"type": "text", "text": "Cached", "cache_control": {"type": "ephemeral"}}
    msg = SystemMessage(content_blocks=[cached, {"type": "text", "text": "more"}])
    assert msg.content_blocks[0]["cache_control"] == {"type": "ephemeral"}
    assert msg.text == "Cachedmore"


def test_wrapper_finished_event_carries_the_state_update():
    agent = create_agent(ScriptedChatModel(["answer"]), middleware=[Summarize("outer")])
    events: list[Any] = []
    agent.subscribe(events.append)
    agent.invoke(ask())
    finished = [e for e in events if e.kind == "wrapper.finished"]
    assert len(finished) == 1
    assert finished[0].state_update["note"] == "outer"
    assert finished[0].state_update["messages"][0]["content"] == "from outer"
