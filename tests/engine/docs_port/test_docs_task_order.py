"""Docs programs whose parallel nodes finish in LangGraph's order: a step after one that named
its updated channels runs its triggered nodes by name (pushes first), so a stream shows them
in that order; ``get_state().next`` keeps the order the nodes were added in."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

FAN_OUT_ORDER = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Send, interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    seen: Annotated[list[str], operator.add]

print("== fan out to nodes added in reverse name order, with Sends")
b = StateGraph(S)
b.add_node("zeta", lambda s: {"seen": ["zeta"]})
b.add_node("alpha", lambda s: {"seen": ["alpha"]})
b.add_node("mid", lambda s: {"seen": ["mid"]})
b.add_node("start", lambda s: {"seen": ["start"]})
b.add_edge(START, "start")
b.add_conditional_edges("start", lambda s: ["zeta", Send("mid", {"seen": []}), "alpha"])
g = b.compile(checkpointer=InMemorySaver(), interrupt_before=["alpha", "zeta"])
cfg = {"configurable": {"thread_id": "1"}}
for p in g.stream({"seen": []}, cfg, stream_mode=["updates", "tasks"]):
    print(" ", p[0], {k: v for k, v in p[1].items() if k != "id"})
print(g.get_state(cfg).next, [t.name for t in g.get_state(cfg).tasks])
for p in g.stream(None, cfg):
    print(" ", p)
print(g.get_state(cfg).values)

print("== parallel interrupts")
def ask_z(s): return {"seen": [interrupt("z?")]}
def ask_a(s): return {"seen": [interrupt("a?")]}
b = StateGraph(S)
b.add_node("zed", ask_z); b.add_node("ann", ask_a)
b.add_edge(START, "zed"); b.add_edge(START, "ann")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "2"}}
out = g.invoke({"seen": []}, cfg)
print([i.value for i in out["__interrupt__"]])
st = g.get_state(cfg)
print(st.next, [i.value for i in st.interrupts])
res = {i.id: "ans-" + i.value for i in st.interrupts}
for p in g.stream(Command(resume=res), cfg):
    print(" ", p)
"""


def test_fan_out_runs_nodes_by_name() -> None:
    compare(FAN_OUT_ORDER)
