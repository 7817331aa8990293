"""What the ``messages`` and ``tasks`` streams say about an agent's tasks, as LangGraph says it:
a tool's ``Send`` task is triggered by ``("__pregel_push",)``; an agent added as a node of a
graph keeps its ``lc_agent_name`` (its own config under the calling task's); a model that
gives its reply whole (no chunks) is reported once, with the model call's metadata."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from engine import create_agent
from engine.graph import START, MessagesState, StateGraph
from engine.messages import AIMessage
from engine.models import ScriptedChatModel
from engine.models.base import ChatRequest

from .helpers import ai, ask, call, echo


class WholeReplies(ScriptedChatModel):
    """Streams nothing but the whole reply (as a model with streaming disabled)."""

    async def _astream(self, request: ChatRequest) -> AsyncIterator[AIMessage]:
        yield await self._agenerate(request)


def _agent(model: Any) -> Any:
    return create_agent(model, [echo], name="helper")


def test_a_tools_task_is_triggered_by_a_push() -> None:
    agent = _agent(ScriptedChatModel([ai(call("echo", "c1", text="x")), AIMessage(content="ok")]))
    tasks = [
        (c["name"], c["triggers"])
        for c in agent.stream(ask(), stream_mode="tasks")
        if "triggers" in c
    ]
    assert tasks == [
        ("model", ("branch:to:model",)),
        ("tools", ("__pregel_push",)),
        ("model", ("branch:to:model",)),
    ]


def test_an_agent_as_a_node_keeps_its_name_and_the_callers_recursion_limit() -> None:
    agent = _agent(ScriptedChatModel([AIMessage(content="hello there")]))
    graph = StateGraph(MessagesState)
    graph.add_node("helper_agent", agent)
    graph.add_edge(START, "helper_agent")
    app = graph.compile()
    metas = [meta for _, (_, meta) in app.stream(ask(), stream_mode="messages", subgraphs=True)]
    assert metas and all(m["lc_agent_name"] == "helper" for m in metas)
    assert agent.config["recursion_limit"] == 9_999
    limits = []

    def probe(state: MessagesState, config: dict[str, Any]) -> dict[str, Any]:
        limits.append(config["recursion_limit"])
        return {}

    inner = StateGraph(MessagesState)
    inner.add_node("probe", probe)
    inner.add_edge(START, "probe")
    outer = StateGraph(MessagesState)
    outer.add_node("sub", inner.compile().with_config(recursion_limit=99, tags=["t"]))
    outer.add_edge(START, "sub")
    outer.compile().invoke(ask(), {"recursion_limit": 7})
    assert limits == [7]


def test_a_whole_reply_is_streamed_once_with_the_model_calls_metadata() -> None:
    model = WholeReplies([AIMessage(content="all at once", id="r1")])
    out = list(_agent(model).stream(ask(), stream_mode="messages"))
    assert [(m.content, m.name, meta["langgraph_node"]) for m, meta in out] == [
        ("all at once", "helper", "model")
    ]
    assert out[0][1]["checkpoint_ns"].startswith("model:")
