"""ToolTimeoutMiddleware: a hung tool is abandoned after its time limit, sync or async."""

from __future__ import annotations

import asyncio
import threading

import pytest

from engine.agents import create_agent
from engine.events import EventBase
from engine.messages import AIMessage, HumanMessage, ToolMessage
from engine.middleware.builtins import ToolTimeoutError, ToolTimeoutMiddleware
from engine.models import ScriptedChatModel
from engine.tools import tool

RELEASE = threading.Event()


@tool
def hang_sync(x: int) -> str:
    """Never answers (until the test releases it)."""
    RELEASE.wait(60)
    return "late"


@tool
async def hang_async(x: int) -> str:
    """Never answers."""
    await asyncio.Event().wait()
    return "late"


@tool
def quick(x: int) -> str:
    """Answers at once."""
    return f"quick {x}"


def _model(tool_name: str) -> ScriptedChatModel:
    return ScriptedChatModel(
        [
            AIMessage(content="", tool_calls=[{"name": tool_name, "args": {"x": 1}, "id": "c1"}]),
            "done",
        ]
    )


@pytest.fixture(autouse=True)
def _release() -> object:
    RELEASE.clear()
    yield
    RELEASE.set()


@pytest.mark.parametrize("name", ["hang_sync", "hang_async"])
async def test_hung_tool_becomes_an_error_message(name: str) -> None:
    agent = create_agent(
        _model(name), [hang_sync, hang_async], middleware=[ToolTimeoutMiddleware(0.05)]
    )
    events: list[EventBase] = []
    with agent.subscribe(events.append):
        out = await agent.ainvoke({"messages": [HumanMessage(content="go")]})
    RELEASE.set()  # let the abandoned worker thread end before the loop closes
    reply = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    assert reply.status == "error"
    assert reply.content == f"Tool '{name}' did not finish within 0.05s."
    assert out["messages"][-1].text == "done"
    (action,) = [e for e in events if e.kind == "middleware.action"]
    assert action.action == "tool_timeout" and action.detail["tool"] == name  # type: ignore[attr-defined]


def test_sync_invoke_and_on_timeout_error() -> None:
    # under a sync invoke a sync tool runs on the run's own thread (it cannot be abandoned);
    # an async tool can
    agent = create_agent(
        _model("hang_async"),
        [hang_async],
        middleware=[ToolTimeoutMiddleware(0.05, on_timeout="error")],
    )
    with pytest.raises(ToolTimeoutError, match=r"did not finish within 0\.05s"):
        agent.invoke({"messages": [HumanMessage(content="go")]})


async def test_only_listed_tools_are_limited() -> None:
    agent = create_agent(
        _model("quick"), [quick], middleware=[ToolTimeoutMiddleware(0.05, tools=["other"])]
    )
    out = await agent.ainvoke({"messages": [HumanMessage(content="go")]})
    assert any(m.text == "quick 1" for m in out["messages"])


def test_validation() -> None:
    with pytest.raises(ValueError, match="timeout must be > 0"):
        ToolTimeoutMiddleware(0)
    with pytest.raises(ValueError, match="on_timeout"):
        ToolTimeoutMiddleware(1, on_timeout="ignore")  # type: ignore[arg-type]
