"""A docs multi-agent program run on the real libraries, ported and attached
(``port.compare``): a handoff tool inside a subgraph's ``ToolNode`` returns
``Command(goto=..., graph=Command.PARENT)``; the tools node's list of commands carries it to
the parent graph, which goes to the other agent."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

HANDOFF = '''
from typing import Annotated
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool, InjectedToolCallId
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.prebuilt import ToolNode, tools_condition, InjectedState
from langgraph.types import Command

class FakeModel(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def transfer_to_hotel(state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Transfer to the hotel assistant."""
    msg = ToolMessage(content="Transferred to hotel", tool_call_id=tool_call_id, name="transfer_to_hotel")
    return Command(goto="hotel", update={"messages": state["messages"] + [msg]}, graph=Command.PARENT)

flight_model = FakeModel(messages=iter([
    AIMessage(content="", tool_calls=[{"name": "transfer_to_hotel", "args": {}, "id": "h1"}], id="f1"),
]))
hotel_model = FakeModel(messages=iter([AIMessage(content="Booked the hotel.", id="ho1")]))

def flight_agent_node(state: MessagesState):
    return {"messages": [flight_model.invoke(state["messages"])]}
fb = StateGraph(MessagesState)
fb.add_node("agent", flight_agent_node); fb.add_node("tools", ToolNode([transfer_to_hotel]))
fb.add_edge(START, "agent"); fb.add_conditional_edges("agent", tools_condition); fb.add_edge("tools", "agent")
flight = fb.compile(name="flight")

def hotel(state: MessagesState):
    return {"messages": [hotel_model.invoke(state["messages"])]}

pb = StateGraph(MessagesState)
pb.add_node("flight", flight, destinations=("hotel",)); pb.add_node("hotel", hotel)
pb.add_edge(START, "flight")
g = pb.compile()
for ns, chunk in g.stream({"messages": [HumanMessage("book a flight and hotel", id="u1")]}, subgraphs=True):
    for node, upd in chunk.items():
        msgs = (upd or {}).get("messages", []) if isinstance(upd, dict) else []
        print(" ", [n.split(":")[0] for n in ns], node, [(type(m).__name__, m.content) for m in msgs][-2:])

print(sorted((e.source, e.target, e.conditional) for e in g.get_graph().edges))
'''


def test_handoff_from_a_tool_node_to_the_parent_graph() -> None:
    compare(HANDOFF)
