"""Spec scenario 27: sync/async mismatch errors; the same agent under both APIs."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.middleware import (
    AgentMiddleware,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from engine.models import ScriptedChatModel

from .helpers import Tracer, ai, ask, call, cfg, echo, kinds

ASYNC_ONLY_HOOK = (  # LangGraph's words; a decorated hook's function is LangChain's wrapper
    'No synchronous function provided to "async_wrapped".\nEither initialize with a synchronous '
    "function or invoke via the async API (ainvoke, astream, etc.)"
)


def _sync_text(wrapper: str) -> str:
    return (
        f"Synchronous implementation of {wrapper} is not available. You are likely encountering this "
        f"error because you defined only the async version (a{wrapper}) and invoked your agent in a "
        "synchronous context (e.g., using `stream()` or `invoke()`). To resolve this, either: (1) "
        f"subclass AgentMiddleware and implement the synchronous {wrapper} method, (2) use the "
        f"@{wrapper} decorator on a standalone sync function, or (3) invoke your agent asynchronously "
        "using `astream()` or `ainvoke()`."
    )


def _async_text(wrapper: str) -> str:
    return (
        f"Asynchronous implementation of a{wrapper} is not available. You are likely encountering this "
        f"error because you defined only the sync version ({wrapper}) and invoked your agent in an "
        "asynchronous context (e.g., using `astream()` or `ainvoke()`). To resolve this, either: (1) "
        f"subclass AgentMiddleware and implement the asynchronous a{wrapper} method, (2) use the "
        f"@{wrapper} decorator on a standalone async function, or (3) invoke your agent synchronously "
        "using `stream()` or `invoke()`."
    )


def test_27_async_only_hook_under_sync_invoke():
    @before_model
    async def only_async(state: Any) -> None:
        return None

    agent = create_agent(ScriptedChatModel(["x"]), middleware=[only_async])
    with pytest.raises(TypeError) as ei:
        agent.invoke(ask())
    assert str(ei.value) == ASYNC_ONLY_HOOK


async def test_27_sync_only_hook_under_ainvoke_works():
    seen: list[int] = []

    @before_model
    def only_sync(state: Any) -> None:
        seen.append(len(state["messages"]))

    out = await create_agent(ScriptedChatModel(["x"]), middleware=[only_sync]).ainvoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI(x)"]
    assert seen == [1]


async def test_27_sync_only_wrappers_under_ainvoke():
    @wrap_model_call
    def sync_model(request: Any, handler: Any) -> Any:
        return handler(request)

    @wrap_tool_call
    def sync_tool(request: Any, handler: Any) -> Any:
        return handler(request)

    with pytest.raises(NotImplementedError) as ei:
        await create_agent(ScriptedChatModel(["x"]), middleware=[sync_model]).ainvoke(ask())
    assert str(ei.value) == _async_text("wrap_model_call")
    model = ScriptedChatModel([ai(call("echo", "c1", text="a"))])
    with pytest.raises(NotImplementedError) as ei:
        await create_agent(model, [echo], middleware=[sync_tool]).ainvoke(ask())
    assert str(ei.value) == _async_text("wrap_tool_call")


def test_27_async_only_wrappers_under_invoke():
    @wrap_model_call
    async def async_model(request: Any, handler: Any) -> Any:
        return await handler(request)

    @wrap_tool_call
    async def async_tool(request: Any, handler: Any) -> Any:
        return await handler(request)

    with pytest.raises(NotImplementedError) as ei:
        create_agent(ScriptedChatModel(["x"]), middleware=[async_model]).invoke(ask())
    assert str(ei.value) == _sync_text("wrap_model_call")
    model = ScriptedChatModel([ai(call("echo", "c1", text="a"))])
    with pytest.raises(NotImplementedError) as ei:
        create_agent(model, [echo], middleware=[async_tool]).invoke(ask())
    assert str(ei.value) == _sync_text("wrap_tool_call")


def _script() -> list[Any]:
    return [ai(call("echo", "c1", text="a"), call("echo", "c2", text="b")), "done"]


async def test_same_agent_sync_and_async_give_the_same_run():
    log: list[str] = []
    model = ScriptedChatModel([*_script(), *_script()])
    agent = create_agent(model, [echo], middleware=[Tracer("T", log)], checkpointer=InMemorySaver())

    def run_sync() -> Any:
        return agent.invoke(ask(), cfg("sync"))

    sync_out = await asyncio.to_thread(run_sync)
    sync_log, log[:] = list(log), []
    async_out = await agent.ainvoke(ask(), cfg("async"))
    assert kinds(sync_out["messages"]) == kinds(async_out["messages"])
    assert kinds(async_out["messages"]) == [
        "Human",
        "AI[echo,echo]",
        "Tool(echo:a)",
        "Tool(echo:b)",
        "AI(done)",
    ]
    assert sync_log == log
    assert len(list(agent.get_state_history(cfg("sync")))) == len(
        list(agent.get_state_history(cfg("async")))
    )


def test_sync_wrappers_run_off_the_loop_thread_and_may_block():
    threads: set[str] = set()

    class Blocking(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            threads.add(threading.current_thread().name)
            return handler(request)

    main = threading.current_thread().name
    out = create_agent(ScriptedChatModel(["ok"]), middleware=[Blocking()]).invoke(ask())
    assert out["messages"][-1].text == "ok"
    assert threads and main not in threads


def test_dynamic_prompt_replaces_the_system_prompt_under_both_apis():
    @dynamic_prompt
    def by_length(request: Any) -> str:
        return f"You have seen {len(request.state['messages'])} messages."

    model = ScriptedChatModel(["a", "b"])
    agent = create_agent(model, system_prompt="static", middleware=[by_length])
    agent.invoke(ask())
    asyncio.run(agent.ainvoke(ask()))
    assert [c.messages[0].text for c in model.calls] == ["You have seen 1 messages."] * 2
    assert [c.messages[0].type for c in model.calls] == ["system", "system"]


async def test_async_dynamic_prompt():
    @dynamic_prompt(name="Prompted")
    async def prompt(request: Any) -> str:
        return "be brief"

    model = ScriptedChatModel(["a"])
    agent = create_agent(model, middleware=[prompt])
    assert "Prompted" in agent.get_graph().nodes["model"].metadata["wrappers"]
    await agent.ainvoke(ask())
    assert model.calls[0].messages[0].text == "be brief"
