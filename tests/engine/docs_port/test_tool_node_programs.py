"""``ToolNode`` docs programs, real LangGraph vs ported by their imports: each
``handle_tool_errors`` form against a tool that raises, a ``ToolException`` and arguments that
do not match the schema (a ``ToolInvocationError``), ``InjectedState`` (whole and one field), an
unknown tool; a graph with ``tools_condition`` and its Mermaid drawing."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

PROGRAM = """
from typing import Annotated
from langgraph.prebuilt import ToolNode, InjectedState, tools_condition
from langgraph.graph import StateGraph, START, END, MessagesState
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import ToolException

@tool
def divide(a: int, b: int) -> float:
    '''Divide a by b.'''
    return a / b

@tool
def fails() -> str:
    '''Always fails.'''
    raise ToolException("bad thing")

@tool
def count_msgs(state: Annotated[dict, InjectedState]) -> int:
    '''Count the messages.'''
    return len(state["messages"])

@tool
def pick(field: Annotated[str, InjectedState("who")]) -> str:
    '''Say who.'''
    return f"who={field}"

class WhoState(MessagesState):
    who: str

def run(node, calls):
    msg = AIMessage("", tool_calls=[{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(calls)])
    gb = StateGraph(WhoState)
    gb.add_node("tools", node)
    gb.add_edge(START, "tools")
    try:
        out = gb.compile().invoke({"messages": [HumanMessage("hi"), msg], "who": "ada"})
        for m in out["messages"][2:]:
            print("  ", type(m).__name__, repr(m.content), m.tool_call_id, m.name, m.status)
    except Exception as e:
        print("  RAISED", type(e).__name__, e)

tools = [divide, fails, count_msgs, pick]
for label, node in [
    ("default", ToolNode(tools)),
    ("True", ToolNode(tools, handle_tool_errors=True)),
    ("False", ToolNode(tools, handle_tool_errors=False)),
    ("str", ToolNode(tools, handle_tool_errors="Tool failed, sorry.")),
    ("ZeroDivisionError", ToolNode(tools, handle_tool_errors=ZeroDivisionError)),
    ("tuple", ToolNode(tools, handle_tool_errors=(ValueError, ToolException))),
    ("callable", ToolNode(tools, handle_tool_errors=lambda e: f"handled {type(e).__name__}: {e}")),
]:
    print("==", label)
    run(node, [("divide", {"a": 1, "b": 0})])
    run(node, [("fails", {})])
    run(node, [("divide", {"a": "x", "b": 1})])
    run(node, [("count_msgs", {}), ("pick", {}), ("divide", {"a": 6, "b": 3})])
    run(node, [("nope", {})])

print("== in a graph with tools_condition")
calls = iter([AIMessage("", tool_calls=[{"name": "divide", "args": {"a": 8, "b": 2}, "id": "d1"}]), AIMessage("4")])
def chatbot(state: MessagesState):
    return {"messages": [next(calls)]}
b = StateGraph(MessagesState)
b.add_node("chatbot", chatbot); b.add_node("tools", ToolNode([divide]))
b.add_edge(START, "chatbot"); b.add_conditional_edges("chatbot", tools_condition); b.add_edge("tools", "chatbot")
g = b.compile()
for chunk in g.stream({"messages": [HumanMessage("8/2")]}, stream_mode="updates"):
    for k, v in chunk.items():
        print(k, [(type(m).__name__, m.content) for m in v["messages"]])
print(g.get_graph().draw_mermaid())
"""


def test_tool_node_error_handlers_and_injected_state() -> None:
    compare(PROGRAM)
