"""Docs programs of persistence and of what a node may return, run on the real libraries,
ported and attached (``port.compare``): history, replay, a fork, ``update_state`` as a node,
``bulk_update_state`` (attached too), the state of an unknown thread; a node returning
``(key, value)`` pairs (refused, as LangGraph; a ``Command``'s update may be pairs), a run with a
saver and no thread."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

PERSISTENCE = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import StateSnapshot

class S(TypedDict):
    foo: str
    bar: Annotated[list[str], operator.add]
def node_a(s): return {"foo": "a", "bar": ["a"]}
def node_b(s): return {"foo": "b", "bar": ["b"]}
b = StateGraph(S); b.add_node(node_a); b.add_node(node_b)
b.add_edge(START, "node_a"); b.add_edge("node_a", "node_b"); b.add_edge("node_b", END)
saver = InMemorySaver()
g = b.compile(checkpointer=saver)
cfg = {"configurable": {"thread_id": "1"}}
print(g.invoke({"foo": ""}, cfg))
st = g.get_state(cfg)
print(type(st).__name__, st.values, st.next, st.metadata["source"], st.metadata["step"], st.created_at is not None, st.parent_config is not None)
print(sorted(st.config["configurable"]))
hist = list(g.get_state_history(cfg))
for h in hist:
    print(" ", h.metadata["step"], h.metadata["source"], h.values, h.next, [t.name for t in h.tasks], [bool(t.result) for t in h.tasks] if h.tasks else None)
print("== replay from a checkpoint")
before_b = [h for h in hist if h.next == ("node_b",)][0]
for p in g.stream(None, before_b.config, stream_mode="values"):
    print(" ", p)
print(len(list(g.get_state_history(cfg))))
print("== fork with update_state")
new_cfg = g.update_state(before_b.config, {"foo": "forked"})
print(sorted(new_cfg["configurable"]))
st = g.get_state(new_cfg)
print(st.values, st.next, st.metadata["source"], st.metadata["step"])
print(g.invoke(None, new_cfg))
print("== update_state as_node and checkpoint listing")
g.update_state(cfg, {"bar": ["manual"]}, as_node="node_a")
st = g.get_state(cfg)
print(st.values, st.next)
print([c.metadata["source"] for c in saver.list(cfg, limit=3)])
print([c.metadata["step"] for c in saver.list(cfg, filter={"source": "update"})])
tup = saver.get_tuple(cfg)
print(sorted(tup.checkpoint["channel_values"]), tup.metadata["source"], len(tup.pending_writes))
print("== bulk_update_state")
from langgraph.types import StateUpdate
cfg2 = {"configurable": {"thread_id": "2"}}
g.bulk_update_state(cfg2, [[StateUpdate({"foo": "x", "bar": ["x"]}, "node_a")], [StateUpdate({"foo": "y"}, "node_b")]])
print(g.get_state(cfg2).values, g.get_state(cfg2).next)
print("== get_state on unknown thread")
st = g.get_state({"configurable": {"thread_id": "nope"}})
print(st.values, st.next, st.config, st.metadata, st.tasks)
"""

RETURNS = """
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver
class S(TypedDict):
    x: int
def run(label, ret):
    b = StateGraph(S); b.add_node("a", lambda s: ret); b.add_edge(START, "a")
    try:
        print(label, b.compile().invoke({"x": 1}))
    except Exception as e:
        print(label, "RAISED", type(e).__name__, str(e).splitlines()[0])
run("list of pairs", [("x", 3)])
run("empty list", [])
run("tuple of pairs", (("x", 4),))
run("command pairs", Command(update=[("x", 5)]))
run("command list of commands", [Command(update={"x": 6}), {"x": 7}])
run("command tuple pairs", Command(update=(("x", 8),)))
b = StateGraph(S); b.add_node("a", lambda s: {"x": 2}); b.add_edge(START, "a")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
g.invoke({"x": 1}, cfg)
for label, v in (("update_state pairs", [("x", 9)]), ("update_state Command", Command(update={"x": 10}))):
    try:
        g.update_state(cfg, v, as_node="a"); print(label, g.get_state(cfg).values)
    except Exception as e:
        print(label, "RAISED", type(e).__name__, str(e).splitlines()[0])
b = StateGraph(S); b.add_node("a", lambda s: {"x": 2}); b.add_edge(START, "a")
try:
    b.compile(checkpointer=InMemorySaver()).invoke({"x": 1})
except Exception as e:
    print("no thread: RAISED", type(e).__name__, e)
"""


def test_history_replay_fork_bulk_update() -> None:
    compare(PERSISTENCE)


def test_node_returns_and_a_run_without_thread() -> None:
    compare(RETURNS)
