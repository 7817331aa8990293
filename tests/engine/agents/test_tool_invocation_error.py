"""Arguments that do not match a tool's schema, as LangGraph's tools node reports them: a
``ToolInvocationError`` (a ``ToolException``) whose message the model gets by default, which
``handle_tool_errors=True`` / an exception type / a callable handle as any other error, and which
escapes when not handled; a ToolNode the user adds is drawn with its tools."""

from __future__ import annotations

from typing import Any

import pytest

from engine.agents import ToolNode
from engine.graph import START, MessagesState, StateGraph
from engine.messages import AIMessage, HumanMessage, ToolCall
from engine.tools import ToolException, ToolInvocationError, tool

MESSAGE = (
    "Error invoking tool 'divide' with kwargs {'a': 'x', 'b': 1} with error:\n"
    " a: Input should be a valid integer, unable to parse string as an integer\n"
    " Please fix the error and try again."
)


@tool
def divide(a: int, b: int) -> float:
    """Divide a by b."""
    return a / b


def _answer(handler: Any) -> str:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([divide], handle_tool_errors=handler))
    graph.add_edge(START, "tools")
    call = ToolCall(name="divide", args={"a": "x", "b": 1}, id="c1", type="tool_call")
    out = graph.compile().invoke(
        {"messages": [HumanMessage(content="hi"), AIMessage(content="", tool_calls=[call])]}
    )
    return str(out["messages"][-1].content)


def test_the_default_and_each_handler() -> None:
    assert _answer(ToolNode([divide]).handle_tool_errors) == MESSAGE
    assert (
        _answer(True)
        == f"Error: {ToolInvocationError('divide', ValueError(), {}, MESSAGE)!r}\n Please fix your mistakes."
    )
    assert _answer(ToolException).startswith("Error: ToolInvocationError(")
    assert _answer(lambda e: f"{type(e).__name__}: {e}") == f"ToolInvocationError: {MESSAGE}"
    with pytest.raises(ToolInvocationError) as info:
        _answer(False)
    assert str(info.value) == MESSAGE and info.value.tool_kwargs == {"a": "x", "b": 1}
    with pytest.raises(ToolInvocationError):
        _answer(ZeroDivisionError)


def test_a_tool_node_the_user_adds_is_drawn_with_its_tools() -> None:
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([divide]))
    graph.add_edge(START, "tools")
    assert "tools(tools<hr/><small><em>__tools = divide</em></small>)" in (
        graph.compile().get_graph().draw_mermaid()
    )
