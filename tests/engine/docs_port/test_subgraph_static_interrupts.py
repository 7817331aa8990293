"""Static interrupts (``interrupt_before`` / ``interrupt_after``) named for a subgraph's nodes,
real LangGraph vs ported: compiled into the subgraph (a node of the parent, or a graph a node
invokes) the parent run stops inside it with the subgraph's state pending (``next`` is the
parent's node, the subgraph task's state says where it stopped), no ``__interrupt__``, and a
``None`` (or a ``Command(resume=...)``) goes on from there; named at the parent's compile, a
subgraph's node is not found; ``"*"`` at the parent stops before each parent node only."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PROGRAM = """
import asyncio
from typing import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

class S(TypedDict):
    log: list

def step(name):
    def fn(state):
        return {"log": state["log"] + [name]}
    return fn

def sub(**kw):
    g = StateGraph(S)
    g.add_node("s1", step("s1")); g.add_node("s2", step("s2"))
    g.add_edge(START, "s1"); g.add_edge("s1", "s2")
    return g.compile(**kw)

def parent_calling(subgraph, **kw):
    def child(state):
        return subgraph.invoke(state)
    g = StateGraph(S)
    g.add_node("p1", step("p1")); g.add_node("child", child); g.add_node("p2", step("p2"))
    g.add_edge(START, "p1"); g.add_edge("p1", "child"); g.add_edge("child", "p2")
    return g.compile(checkpointer=InMemorySaver(), **kw)

def parent(subgraph, **kw):
    g = StateGraph(S)
    g.add_node("p1", step("p1")); g.add_node("child", subgraph); g.add_node("p2", step("p2"))
    g.add_edge(START, "p1"); g.add_edge("p1", "child"); g.add_edge("child", "p2")
    return g.compile(checkpointer=InMemorySaver(), **kw)

def show(app, cfg):
    st = app.get_state(cfg, subgraphs=True)
    print(" next", st.next, st.values, [(t.name, t.state.next if t.state else None, t.state.values if t.state else None) for t in st.tasks])

for label, make in (("called", parent_calling), ("node", parent)):
    for skw, pkw in ((dict(interrupt_before=["s2"]), {}), (dict(interrupt_after="*"), {}), ({}, dict(interrupt_before="*"))):
        print("==", label, skw, pkw)
        try:
            app = make(sub(**skw), **pkw)
            cfg = {"configurable": {"thread_id": "t"}}
            for ev in app.stream({"log": []}, cfg, stream_mode="values", subgraphs=True):
                print(" ev", ev[0] and len(ev[0]), ev[1])
            show(app, cfg)
            for i in range(4):
                if not app.get_state(cfg).next:
                    break
                out = app.invoke(Command(resume="x") if i == 1 else None, cfg)
                print(" resumed", out)
                show(app, cfg)
            out = asyncio.run(make(sub(**skw), **pkw).ainvoke({"log": []}, {"configurable": {"thread_id": "u"}}))
            print(" async", out)
        except Exception as e:
            print("RAISED", type(e).__name__, e)
app = parent(sub(), interrupt_before=["s2"])
"""


def test_static_interrupts_for_a_subgraphs_nodes_behave_as_langgraphs() -> None:
    # not attached: a node here calls a compiled graph, which the attached run of the program
    # would make an attached graph; LangGraph finds a node's nested graphs for get_state
    # (subgraphs=True) by looking for its own graph objects in the node's function
    compare(PROGRAM, attached=False)
