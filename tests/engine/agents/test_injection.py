"""InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime (seed 001 sections 4-5)."""

from __future__ import annotations

import re
from typing import Annotated, Any, NotRequired

import pytest

from engine import AgentState, create_agent
from engine.middleware import AgentMiddleware
from engine.models import ScriptedChatModel
from engine.store import BaseStore, InMemoryStore
from engine.tools import InjectedState, InjectedStore, InjectedToolCallId, ToolRuntime, tool

from .helpers import ai, ask, call, kinds


class UserState(AgentState):
    user_id: NotRequired[str]


class WithUser(AgentMiddleware):
    state_schema = UserState


@tool
def remember_fact(
    fact: str,
    state: Annotated[dict, InjectedState],
    store: Annotated[BaseStore, InjectedStore()],
) -> str:
    """Remember a fact about the user."""
    store.put(("facts", state.get("user_id", "default")), "fact", {"fact": fact})
    return f"remembered: {fact}"


@tool
def recall_fact(
    user: Annotated[str, InjectedState("user_id")], store: Annotated[BaseStore, InjectedStore()]
) -> str:
    """Recall the fact."""
    item = store.get(("facts", user), "fact")
    return item.value["fact"] if item else "nothing"


def test_injected_state_and_store_across_threads():
    store = InMemoryStore()
    model = ScriptedChatModel(
        [
            ai(call("remember_fact", "c1", fact="likes tea")),
            "saved",
            ai(call("recall_fact", "c2")),
            "recalled",
        ]
    )
    agent = create_agent(model, [remember_fact, recall_fact], middleware=[WithUser()], store=store)
    agent.invoke({**ask(), "user_id": "u7"})
    assert store.get(("facts", "u7"), "fact").value == {"fact": "likes tea"}
    out = agent.invoke({**ask("what do I like?"), "user_id": "u7"})
    assert kinds(out["messages"])[-2:] == ["Tool(likes tea)", "AI(recalled)"]


def test_injected_parameters_are_hidden_from_the_model_and_model_values_dropped():
    seen: list[Any] = []

    @tool
    def spy(
        q: str, state: Annotated[dict, InjectedState], call_id: Annotated[str, InjectedToolCallId]
    ) -> str:
        """Look around."""
        seen.append((q, sorted(state), call_id))
        return "ok"

    model = ScriptedChatModel(
        [ai(call("spy", "c9", q="x", state={"forged": True}, call_id="fake")), "done"]
    )
    create_agent(model, [spy]).invoke(ask())
    schema = model.calls[0].tools[0]["parameters"]
    assert list(schema["properties"]) == ["q"]
    assert seen == [("x", ["messages"], "c9")]


def test_injected_store_without_store_names_the_tool():
    model = ScriptedChatModel([ai(call("recall_fact", "c1"))])
    agent = create_agent(model, [recall_fact], middleware=[WithUser()])
    with pytest.raises(
        ValueError, match=re.escape("Store not available but required by tool 'recall_fact'")
    ):
        agent.invoke({**ask(), "user_id": "u1"})


def test_tool_runtime_has_state_context_config_store_and_call_id():
    seen: dict[str, Any] = {}

    @tool
    def inspect_run(topic: str, runtime: ToolRuntime) -> str:
        """Look at the run."""
        seen.update(
            messages=len(runtime.state["messages"]),
            context=runtime.context,
            call_id=runtime.tool_call_id,
            store=runtime.store,
            node=runtime.config["metadata"]["langgraph_node"],
        )
        runtime.stream_writer({"progress": topic})
        return "done"

    store = InMemoryStore()
    model = ScriptedChatModel([ai(call("inspect_run", "c1", topic="t")), "fin"])
    agent = create_agent(model, [inspect_run], store=store, context_schema=dict)
    chunks = list(agent.stream(ask(), stream_mode="custom", context={"user": "ada"}))
    assert chunks == [{"progress": "t"}]
    assert seen == {
        "messages": 2,
        "context": {"user": "ada"},
        "call_id": "c1",
        "store": store,
        "node": "tools",
    }
    assert list(model.calls[0].tools[0]["parameters"]["properties"]) == ["topic"]


async def test_async_tool_with_injected_state():
    @tool
    async def count_messages(state: Annotated[dict, InjectedState]) -> int:
        """How long is the conversation."""
        return len(state["messages"])

    model = ScriptedChatModel([ai(call("count_messages", "c1")), "done"])
    out = await create_agent(model, [count_messages]).ainvoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[count_messages]", "Tool(2)", "AI(done)"]
