"""Spec scenarios 13 and 14: hook order, wrapper composition, once-per-invocation hooks."""

from __future__ import annotations

from typing import Any

import pytest

from engine import create_agent
from engine.checkpoint import InMemorySaver
from engine.messages import AIMessage, ToolMessage
from engine.middleware import AgentMiddleware, ModelResponse, wrap_model_call, wrap_tool_call
from engine.models import ScriptedChatModel

from .helpers import Tracer, ai, ask, call, cfg, echo, kinds

ROUND = [
    "M1.before_model", "M2.before_model", "M3.before_model",
    "M1>model", "M2>model", "M3>model", "M3<model", "M2<model", "M1<model",
    "M3.after_model", "M2.after_model", "M1.after_model",
]  # fmt: skip


def tracers(log: list[str]) -> list[Tracer]:
    return [Tracer("M1", log), Tracer("M2", log), Tracer("M3", log)]


@pytest.mark.parametrize("mode", ["sync", "async"])
async def test_13_every_hook_one_tool_round(mode: str):
    log: list[str] = []
    model = ScriptedChatModel([ai(call("echo", "c1", text="a")), "done"])
    agent = create_agent(model, [echo], middleware=tracers(log))
    out = agent.invoke(ask()) if mode == "sync" else await agent.ainvoke(ask())
    assert kinds(out["messages"]) == ["Human", "AI[echo]", "Tool(echo:a)", "AI(done)"]
    assert log == [
        "M1.before_agent", "M2.before_agent", "M3.before_agent",
        *ROUND,
        "M1>tool", "M2>tool", "M3>tool", "M3<tool", "M2<tool", "M1<tool",
        *ROUND,
        "M3.after_agent", "M2.after_agent", "M1.after_agent",
    ]  # fmt: skip


async def test_14_agent_hooks_run_once_across_three_model_turns():
    log: list[str] = []
    model = ScriptedChatModel(
        [ai(call("echo", "c1", text="a")), ai(call("echo", "c2", text="b")), "done"]
    )
    agent = create_agent(model, [echo], middleware=tracers(log), checkpointer=InMemorySaver())
    await agent.ainvoke(ask(), cfg())
    assert len(model.calls) == 3
    assert log.count("M1.before_model") == 3
    assert [e for e in log if "agent" in e] == [
        "M1.before_agent", "M2.before_agent", "M3.before_agent",
        "M3.after_agent", "M2.after_agent", "M1.after_agent",
    ]  # fmt: skip
    # START, 3 before_agent, 3x(3 before_model, model, 3 after_model), 2 tools, 3 after_agent
    history = list(agent.get_state_history(cfg()))
    assert len(history) == 1 + 1 + 3 + 3 * 7 + 2 + 3


async def test_handler_called_many_times_reruns_inner_layers_and_model():
    log: list[str] = []

    @wrap_model_call
    async def twice(request: Any, handler: Any) -> Any:
        first = await handler(request)
        second = await handler(request)
        return ModelResponse([AIMessage(content=f"{first.result[0].text}+{second.result[0].text}")])

    model = ScriptedChatModel(["one", "two"])
    agent = create_agent(model, middleware=[twice, Tracer("Inner", log)])
    out = await agent.ainvoke(ask())
    assert out["messages"][-1].text == "one+two"
    assert len(model.calls) == 2
    assert [e for e in log if e.startswith("Inner>") or e.startswith("Inner<")] == [
        "Inner>model",
        "Inner<model",
    ] * 2


async def test_handler_called_zero_times_short_circuits_with_an_ai_message():
    @wrap_model_call
    async def cached(request: Any, handler: Any) -> AIMessage:
        return AIMessage(content="from cache")

    model = ScriptedChatModel([])
    out = await create_agent(model, middleware=[cached]).ainvoke(ask())
    assert out["messages"][-1].text == "from cache"
    assert model.calls == []


def test_tool_wrapper_can_short_circuit_and_rewrite_args():
    @wrap_tool_call
    def guard(request: Any, handler: Any) -> Any:
        if request.tool_call["args"]["text"] == "secret":
            return ToolMessage(
                content="blocked", tool_call_id=request.tool_call["id"], status="error"
            )
        request.tool_call["args"]["text"] += "!"
        return handler(request)

    model = ScriptedChatModel(
        [ai(call("echo", "c1", text="secret"), call("echo", "c2", text="hi")), "done"]
    )
    out = create_agent(model, [echo], middleware=[guard]).invoke(ask())
    assert kinds(out["messages"]) == [
        "Human",
        "AI[echo,echo]",
        "Tool(blocked)",
        "Tool(echo:hi!)",
        "AI(done)",
    ]
    # the model's own message was not changed by the wrapper
    assert out["messages"][1].tool_calls[1]["args"] == {"text": "hi"}


def test_wrapper_returning_something_else_is_a_type_error():
    class Broken(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return "not a response"

    with pytest.raises(
        TypeError, match="wrap_model_call must return a ModelResponse or an AIMessage, got str"
    ):
        create_agent(ScriptedChatModel([]), middleware=[Broken()]).invoke(ask())
