"""A checkpoint's pending writes (``get_tuple(...).pending_writes``), real LangGraph vs ported:
in the order LangGraph's savers give them, by task path (the pulled nodes by name, then the
``Send`` tasks by index), then task id and index, whatever order the tasks finished in."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PROGRAM = """
import operator
from typing import Annotated, TypedDict
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Send, interrupt

class S(TypedDict):
    items: Annotated[list, operator.add]
    x: int

def fan(state):
    return [Send("work", {"items": [], "x": i}) for i in range(3)]

def asking_work(state):
    if state["x"] == 2:
        interrupt("w2")
    return {"items": [state["x"] * 10]}

def make(name, ask=False):
    def fn(state):
        if ask:
            interrupt(f"question {name}")
        return {"items": [name]}
    fn.__name__ = name
    return fn

def show(app, cfg):
    names = {t.id: (t.name, t.path) for t in app.get_state(cfg).tasks}
    t = app.checkpointer.get_tuple(cfg)
    for tid, channel, value in t.pending_writes:
        shown = [i.value for i in value] if channel == "__interrupt__" else value
        print("  ", names.get(tid), channel, shown)

# (a step where a task fails is left out: which of its other tasks' writes LangGraph still
# saves then depends on timing)
graphs = {
    "sends": (["z", "a"], {}, asking_work),
    "ask": (["e", "d", "a", "c"], {"d": dict(ask=True)}, None),
    "both": (["c", "b", "d", "a"], {"d": dict(ask=True), "b": dict(ask=True)}, asking_work),
}
for label, (nodes, special, work) in graphs.items():
    g = StateGraph(S)
    for n in nodes:
        g.add_node(n, make(n, **special.get(n, {})))
        g.add_edge(START, n)
    if work is not None:
        g.add_node("work", work)
        g.add_conditional_edges(START, fan, ["work"])
    app = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    try:
        print(label, sorted(app.invoke({"items": [], "x": 0}, cfg)))
    except Exception as e:
        print(label, "RAISED", type(e).__name__, e)
    show(app, cfg)
"""


def test_pending_writes_come_in_langgraphs_order() -> None:
    compare(PROGRAM)
