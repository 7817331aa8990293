"""What the ``values`` stream and ``get_state`` show: every key of the state, the input and
output schemas and the nodes' own (private) schemas, while ``invoke`` returns the output
schema's keys (the docs' input/output and private-state program); a low-level ``Pregel``
streams no values for its input (written straight to its channels) and ports by its
``langgraph.channels`` / ``langgraph.pregel`` imports.  Real LangGraph vs ported vs attached."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

SCHEMAS = """
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver

class InputState(TypedDict):
    user_input: str
class OutputState(TypedDict):
    graph_output: str
class OverallState(TypedDict):
    foo: str
    user_input: str
    graph_output: str
class PrivateState(TypedDict):
    bar: str

def node_1(state: InputState) -> OverallState:
    return {"foo": state["user_input"] + " name"}
def node_2(state: OverallState) -> PrivateState:
    return {"bar": state["foo"] + " is"}
def node_3(state: PrivateState) -> OutputState:
    return {"graph_output": state["bar"] + " Lance"}

builder = StateGraph(OverallState, input_schema=InputState, output_schema=OutputState)
builder.add_node("node_1", node_1)
builder.add_node("node_2", node_2)
builder.add_node("node_3", node_3)
builder.add_edge(START, "node_1")
builder.add_edge("node_1", "node_2")
builder.add_edge("node_2", "node_3")
builder.add_edge("node_3", END)
graph = builder.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
print(graph.invoke({"user_input": "My"}, cfg))
for chunk in graph.stream({"user_input": "My"}, {"configurable": {"thread_id": "2"}}, stream_mode="values"):
    print("values", chunk)
for chunk in graph.stream({"user_input": "My"}, {"configurable": {"thread_id": "3"}}, stream_mode="updates"):
    print("updates", chunk)
print(graph.get_state(cfg).values)
print([h.values for h in graph.get_state_history(cfg)][:3])
"""

LOW_LEVEL = """
from langgraph.channels import EphemeralValue, LastValue, Topic
from langgraph.pregel import Pregel, NodeBuilder

node1 = NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b")
node2 = NodeBuilder().subscribe_only("b").do(lambda x: x + x).write_to("c")
app = Pregel(
    nodes={"node1": node1, "node2": node2},
    channels={"a": EphemeralValue(str), "b": LastValue(str), "c": Topic(str, accumulate=True)},
    input_channels=["a"],
    output_channels=["b", "c"],
)
print(app.invoke({"a": "foo"}))
for chunk in app.stream({"a": "foo"}, stream_mode="values"):
    print("values", chunk)
for chunk in app.stream({"a": "foo"}, stream_mode="updates"):
    print("updates", chunk)
"""


def test_values_and_state_show_every_key_invoke_the_output_schema() -> None:
    compare(SCHEMAS)


def test_a_low_level_pregel_streams_no_values_for_its_input() -> None:
    compare(LOW_LEVEL, attached=False)  # a Pregel is not a StateGraph: nothing to attach
