"""Spec scenarios 15 and 16, and ``jump_to`` from each kind of hook."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.events import EventBase, HookFinished, Route
from engine.messages import AIMessage
from engine.middleware import (
    AgentMiddleware,
    after_agent,
    after_model,
    before_agent,
    before_model,
    hook_config,
    wrap_model_call,
)
from engine.models import ScriptedChatModel

from .helpers import ai, ask, call, cfg, echo, kinds


def test_15_jump_to_end_from_before_model_skips_the_model():
    ended: list[int] = []

    @before_model(can_jump_to=["end"])
    def stop(state: Any) -> dict[str, Any]:
        return {"jump_to": "end"}

    @after_agent
    def bye(state: Any) -> None:
        ended.append(len(state["messages"]))

    model = ScriptedChatModel([])
    agent = create_agent(model, [echo], middleware=[stop, bye], checkpointer=InMemorySaver())
    out = agent.invoke(ask(), cfg())
    assert kinds(out["messages"]) == ["Human"]
    assert model.calls == []
    assert ended == [1]  # after_agent still runs
    assert "jump_to" not in out
    assert agent.get_state(cfg()).next == ()


def test_16_jump_without_can_jump_to_is_ignored_and_unseen():
    seen: list[Any] = []
    events: list[EventBase] = []

    @before_model
    def wants_out(state: Any) -> dict[str, Any]:
        return {"jump_to": "end"}

    @wrap_model_call
    def look(request: Any, handler: Any) -> Any:
        seen.append(request.state.get("jump_to"))
        return handler(request)

    model = ScriptedChatModel(["answered"])
    agent = create_agent(model, middleware=[wants_out, look])
    agent.subscribe(events.append)
    out = agent.invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(answered)"]
    assert seen == [None]
    finished = [e for e in events if isinstance(e, HookFinished)]
    assert [(e.node, e.jump_to, e.update) for e in finished] == [
        ("wants_out.before_model", None, {})
    ]


def test_jump_from_before_agent_to_end():
    @before_agent(can_jump_to=["end"])
    def closed(state: Any) -> dict[str, Any]:
        return {"jump_to": "end", "messages": [AIMessage(content="closed today")]}

    model = ScriptedChatModel([])
    out = create_agent(model, middleware=[closed]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(closed today)"]
    assert model.calls == []


def test_jump_from_after_model_back_to_model():
    @after_model(can_jump_to=["model"])
    def again(state: Any) -> dict[str, Any] | None:
        if state["messages"][-1].text == "draft":
            return {"jump_to": "model"}
        return None

    model = ScriptedChatModel(["draft", "final"])
    out = create_agent(model, middleware=[again]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(draft)", "AI(final)"]


def test_jump_from_after_model_to_end_leaves_tool_calls_unrun():
    @after_model(can_jump_to=["end"])
    def veto(state: Any) -> dict[str, Any]:
        return {"jump_to": "end"}

    out = create_agent(
        ScriptedChatModel([ai(call("echo", "c1", text="x"))]), [echo], middleware=[veto]
    ).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[echo]"]


def test_jump_from_before_model_to_tools_runs_every_call_of_the_last_ai_message():
    calls: list[str] = []

    @before_model(can_jump_to=["tools"])
    def rerun(state: Any) -> dict[str, Any] | None:
        calls.append("before_model")
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and last.tool_calls:
            return {"jump_to": "tools"}
        return None

    history = [*ask()["messages"], ai(call("echo", "old", text="again"))]
    model = ScriptedChatModel(["done"])
    out = create_agent(model, [echo], middleware=[rerun]).invoke({"messages": history})
    assert kinds(out["messages"]) == ["Human", "AI[echo]", "Tool(echo:again)", "AI(done)"]
    assert calls == ["before_model", "before_model"]


def test_loop_entry_jumping_to_model_goes_to_the_model_node():
    events: list[EventBase] = []

    class Entry(AgentMiddleware):
        @hook_config(can_jump_to=["model"])
        def before_model(self, state: Any, runtime: Any) -> dict[str, Any]:
            return {"jump_to": "model"}

    agent = create_agent(ScriptedChatModel(["ok"]), middleware=[Entry()])
    agent.subscribe(events.append)
    assert kinds(agent.invoke(ask())["messages"]) == ["Human", "AI(ok)"]
    routes = [(e.from_node, e.to, e.reason, e.detail) for e in events if isinstance(e, Route)]
    assert (
        "Entry.before_model",
        ["model"],
        "jump_to",
        "jump_to=model from Entry.before_model",
    ) in routes


def test_a_jump_never_leaks_into_the_next_nodes_routing():
    """after_model jumps to the loop entry; the entry hook can jump too but did not, so it must
    take its default edge (the next before_model), although jump_to is still readable."""
    log: list[str] = []

    class First(AgentMiddleware):
        @hook_config(can_jump_to=["model"])
        def before_model(self, state: Any, runtime: Any) -> None:
            log.append(f"First sees jump_to={state.get('jump_to')}")

    class Second(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            log.append("Second")

    class Retry(AgentMiddleware):
        @hook_config(can_jump_to=["model"])
        def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
            return {"jump_to": "model"} if state["messages"][-1].text == "draft" else None

    model = ScriptedChatModel(["draft", "final"])
    out = create_agent(model, middleware=[First(), Second(), Retry()]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(draft)", "AI(final)"]
    assert log == ["First sees jump_to=None", "Second", "First sees jump_to=model", "Second"]


def test_jump_to_tools_without_a_tools_node_is_langgraphs_unknown_target_error():
    @before_model(can_jump_to=["tools"])
    def bad(state: Any) -> dict[str, Any]:
        return {"jump_to": "tools"}

    with pytest.raises(
        ValueError,
        match=re.escape(
            "At 'bad.before_model' node, 'jump_edge' branch found unknown target 'tools'"
        ),
    ):
        create_agent(ScriptedChatModel([]), middleware=[bad]).invoke(ask())


def test_a_jump_to_no_known_place_takes_the_default_edge():
    @before_model(can_jump_to=["end"])
    def odd(state: Any) -> dict[str, Any]:
        return {"jump_to": "elsewhere"}

    out = create_agent(ScriptedChatModel(["answer"]), middleware=[odd]).invoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(answer)"]
