"""The attached graph returns and calls what the app's own graph does, where the two used to
differ (found running the docs programs with every compiled graph attached): ``invoke`` leaves
out a middleware's private state; ``invoke(stream_mode=...)`` gives the stream's parts; the
app's async calls run its models' async methods; a subgraph's tokens stream with
``subgraphs=True``; an attached graph called inside a node runs as that node's nested graph;
the app's code sees its own store's class.  Each case compares with the plain graph."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langgraph.graph")
pytest.importorskip("langchain.agents")
from langchain.agents import create_agent
from langchain.agents.middleware import ModelCallLimitMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.memory import InMemoryStore

from engine.attach import attach
from tests.engine.attach.test_attach_stream import CFG, INPUT, _agent, _nested, _same

_CALLED: list[str] = []


class _Calls(GenericFakeChatModel):
    """Replies from a script and notes which of its methods LangChain called (``_CALLED``)."""

    def bind_tools(self, tools: Any, **kw: Any) -> Any:
        return self

    def _generate(self, *a: Any, **kw: Any) -> Any:
        _CALLED.append("sync")
        return super()._generate(*a, **kw)

    async def _agenerate(self, *a: Any, **kw: Any) -> Any:
        _CALLED.append("async")
        return await super()._agenerate(*a, **kw)


def test_invoke_leaves_out_a_middlewares_private_state() -> None:
    def make() -> Any:
        model = _Calls(messages=iter([AIMessage("hi")]))
        limit = ModelCallLimitMiddleware(run_limit=3)
        return create_agent(model, middleware=[limit], checkpointer=InMemorySaver())

    out = _same(make, lambda g: g.invoke(INPUT, CFG))
    assert set(out) == {"messages"}  # no thread_model_call_count / run_model_call_count


def test_invoke_with_a_stream_mode_gives_the_parts() -> None:
    parts = _same(_agent, lambda g: g.invoke(INPUT, CFG, stream_mode="updates"))
    assert [next(iter(p)) for p in parts] == ["model", "tools", "model"]


@pytest.mark.parametrize("call", ["invoke", "ainvoke", "astream"])
def test_the_apps_async_calls_run_its_models_async_methods(call: str) -> None:
    def run(graph: Any) -> list[str]:
        if call == "invoke":
            graph.invoke(INPUT, CFG)
        elif call == "ainvoke":
            asyncio.run(graph.ainvoke(INPUT, CFG))
        else:

            async def drain() -> None:
                async for _ in graph.astream(INPUT, CFG):
                    pass

            asyncio.run(drain())
        return list(_CALLED)

    def make() -> Any:
        _CALLED.clear()
        model = _Calls(messages=iter([AIMessage("hi")]))
        return create_agent(model, checkpointer=InMemorySaver())

    called = _same(make, run)
    # (LangChain's own async method of a model with only a sync one runs that one after)
    assert called == (["sync"] if call == "invoke" else ["async", "sync"])


def test_a_subgraph_nodes_tokens_stream_with_subgraphs() -> None:
    def make() -> Any:
        model = GenericFakeChatModel(messages=iter([AIMessage("reply one")]))
        inner = StateGraph(MessagesState)
        inner.add_node("call", lambda s: {"messages": [model.invoke(s["messages"])]})
        inner.add_edge(START, "call")
        outer = StateGraph(MessagesState)
        outer.add_node("outer", inner.compile())
        outer.add_edge(START, "outer")
        return outer.compile()

    def run(g: Any) -> Any:
        parts = g.stream(INPUT, stream_mode=["messages", "updates"], subgraphs=True)
        return [
            (
                ns[0].split(":")[0] if ns else "",
                mode,
                type(d[0]).__name__ if mode == "messages" else d,
            )
            for ns, mode, d in parts
        ]

    parts = _same(make, run)
    assert ["outer", "messages", "AIMessageChunk"] in parts  # (as _same gives it)


def test_an_attached_graph_called_inside_a_node_runs_as_its_nested_graph() -> None:
    sub = _nested()  # with an interrupt: the enclosing run stops with it

    def make(inner: Any) -> Any:
        b = StateGraph(MessagesState)
        b.add_node("call", lambda s: {"messages": [AIMessage(str(inner.invoke({"log": []})))]})
        b.add_edge(START, "call")
        return b.compile(checkpointer=InMemorySaver())

    plain = make(sub).invoke(INPUT, CFG)
    attached = make(attach(_nested())).invoke(INPUT, CFG)
    assert [m.content for m in attached["messages"]] == [m.content for m in plain["messages"]]
    assert "__interrupt__" in plain and "__interrupt__" in attached


def test_the_apps_code_sees_its_own_store() -> None:
    def make() -> Any:
        def node(state: MessagesState, runtime: Runtime) -> dict[str, Any]:
            store = runtime.store
            assert store is not None
            store.put(("n",), "k", {"v": 1})
            kind = isinstance(store, InMemoryStore)
            value = store.get(("n",), "k").value
            return {"messages": [AIMessage(f"{kind} {type(store).__name__} {value}")]}

        b = StateGraph(MessagesState)
        b.add_node("node", node)
        b.add_edge(START, "node")
        return b.compile(store=InMemoryStore())

    out = _same(make, lambda g: g.invoke({"messages": [HumanMessage("go")]}))
    assert out["messages"][-1][1] == "True InMemoryStore {'v': 1}"
