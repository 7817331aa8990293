"""Agent loop overhead: what ``create_agent`` costs per model turn on a scripted conversation,
side by side with LangChain's ``create_agent`` when ``langchain`` is installed (optional).

The model is scripted (no I/O), so the time measured is the framework's: the model node,
routing, one ``Send`` per tool call, the tools node, the barrier and an in-memory checkpoint
per superstep.  Two shapes: a plain agent, and the same agent with three pass-through
middleware (a ``before_model`` hook, a ``wrap_model_call`` and a ``wrap_tool_call``).

Run: ``.venv/bin/python -m tests.bench.bench_agent_loop``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from tests.bench.report import Figure, best_of, peer_available

TURNS = 40
"""Model turns per conversation: ``TURNS - 1`` tool rounds, then a final answer."""


def _script(ai_cls: Any) -> list[Any]:
    calls = [
        ai_cls(
            content="",
            tool_calls=[
                {
                    "name": "echo",
                    "args": {"text": f"step {i}"},
                    "id": f"call_{i}",
                    "type": "tool_call",
                }
            ],
        )
        for i in range(TURNS - 1)
    ]
    return [*calls, ai_cls(content="all done")]


def ours(with_middleware: bool) -> Callable[[], float]:
    """A function running one conversation with our engine; returns seconds per model turn."""
    from engine import create_agent
    from engine.checkpoint import InMemorySaver
    from engine.messages import AIMessage, HumanMessage
    from engine.middleware import before_model, wrap_model_call, wrap_tool_call
    from engine.models import ScriptedChatModel
    from engine.tools import tool

    @tool
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    @before_model
    def look(state: Any) -> None:
        return None

    @wrap_model_call
    def around_model(request: Any, handler: Any) -> Any:
        return handler(request)

    @wrap_tool_call
    def around_tool(request: Any, handler: Any) -> Any:
        return handler(request)

    middleware = [look, around_model, around_tool] if with_middleware else []

    def once() -> float:
        agent = create_agent(
            ScriptedChatModel(_script(AIMessage)),
            [echo],
            middleware=middleware,
            checkpointer=InMemorySaver(),
        )
        t0 = time.perf_counter()
        agent.invoke(
            {"messages": [HumanMessage(content="go")]}, {"configurable": {"thread_id": "bench"}}
        )
        return (time.perf_counter() - t0) / TURNS

    return once


def lc_agent(with_middleware: bool) -> Any:
    """The conversation's agent on LangChain v1 (``langchain.agents.create_agent``): a fresh
    scripted model each time; the three middleware are sync only, like many real ones."""
    from langchain.agents import create_agent
    from langchain.agents.middleware import before_model, wrap_model_call, wrap_tool_call
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver

    class FakeToolModel(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    @tool
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    @before_model
    def look(state: Any, runtime: Any) -> None:
        return None

    @wrap_model_call
    def around_model(request: Any, handler: Any) -> Any:
        return handler(request)

    @wrap_tool_call
    def around_tool(request: Any, handler: Any) -> Any:
        return handler(request)

    middleware = [look, around_model, around_tool] if with_middleware else []
    model = FakeToolModel(messages=iter(_script(AIMessage)))
    return create_agent(model, [echo], middleware=middleware, checkpointer=InMemorySaver())


def theirs(with_middleware: bool) -> Callable[[], float]:
    """The same conversation on LangChain v1 (``langchain.agents.create_agent``)."""
    from langchain_core.messages import HumanMessage

    def once() -> float:
        agent = lc_agent(with_middleware)
        t0 = time.perf_counter()
        agent.invoke(
            {"messages": [HumanMessage(content="go")]}, {"configurable": {"thread_id": "bench"}}
        )
        return (time.perf_counter() - t0) / TURNS

    return once


def per_turn(with_middleware: bool = False, *, peer: bool = False, repeat: int = 5) -> float:
    """Seconds of framework overhead per model turn (best of ``repeat`` conversations)."""
    make = theirs if peer else ours
    return best_of(make(with_middleware), repeat)


def run() -> list[Figure]:
    figs: list[Figure] = []
    peer = peer_available("langchain.agents") and peer_available("langgraph")
    for with_mw, label in ((False, "plain agent"), (True, "agent with 3 pass-through middleware")):
        mine = per_turn(with_mw)
        figs.append(
            Figure(
                f"create_agent loop, {label}", mine * 1e6, "us/model turn", note=f"{TURNS} turns"
            )
        )
        if peer:
            theirs_value = per_turn(with_mw, peer=True)
            figs.append(
                Figure(
                    f"  ratio to LangChain ({theirs_value * 1e6:.0f} us/model turn)",
                    mine / theirs_value,
                    "x",
                    "< 1.0",
                    mine / theirs_value < 1.0,
                )
            )
        else:
            figs.append(
                Figure("  LangChain not installed (pip install '.[bench]')", 0, "", note="no ratio")
            )
    return figs


if __name__ == "__main__":
    for f in run():
        print(f.line())
