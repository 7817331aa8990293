"""A ``ToolNode`` without a ``wrap_tool_call`` of the app's keeps its own error handling when
attached (Stepwise's layer wraps each call's execution, not the node): an error its
``handle_tool_errors`` does not name is raised, as on LangGraph; and a fault the debugger
injects is raised by the tool's stand-in, so the node handles it as it would the tool's own
error, without touching the app's tool."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph.prebuilt")
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import ToolException, tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from engine.attach import attach
from engine.debug import Debugger
from engine.events import EventBase


@tool
def fails() -> str:
    """Always fails."""
    raise ToolException("bad thing")


@tool
def fine() -> str:
    """Works."""
    return "ok"


def _graph(node: ToolNode) -> Any:
    b = StateGraph(MessagesState)
    b.add_node("tools", node)
    b.add_edge(START, "tools")
    return b.compile()


def _input(name: str) -> dict[str, Any]:
    call = AIMessage("", tool_calls=[{"name": name, "args": {}, "id": "c1"}])
    return {"messages": [HumanMessage("go"), call]}


def _outcome(graph: Any, name: str, **kw: Any) -> Any:
    try:
        out = graph.invoke(_input(name), **kw)
    except Exception as exc:
        return ("raised", type(exc).__name__, str(exc))
    return [(m.content, m.status) for m in out["messages"][2:]]


def test_an_error_the_handler_does_not_name_is_raised_as_on_langgraph() -> None:
    def make() -> Any:
        return _graph(ToolNode([fails], handle_tool_errors=ZeroDivisionError))

    plain = _outcome(make(), "fails")
    attached = attach(make())
    seen: list[EventBase] = []
    attached.subscribe(seen.append)
    assert _outcome(attached, "fails") == plain == ("raised", "ToolException", "bad thing")
    assert [e.__dict__.get("status") for e in seen if e.kind == "tool.finished"] == ["error"]


def test_an_injected_fault_is_handled_as_the_tools_own_error() -> None:
    attached = attach(_graph(ToolNode([fine], handle_tool_errors=True)))
    debugger = Debugger()
    debugger.inject_tool_error("fine")
    seen: list[EventBase] = []
    attached.subscribe(seen.append)
    out = _outcome(attached, "fine", debugger=debugger)
    assert out == [
        (
            "Error: OSError(\"Injected failure of tool 'fine' (Stepwise debugger)\")\n"
            " Please fix your mistakes.",
            "error",
        )
    ]
    assert any(e.kind == "middleware.action" for e in seen)
    assert fine.invoke({}) == "ok"  # the app's tool is untouched
    assert _outcome(attached, "fine") == [("ok", "success")]  # the fault was used up
