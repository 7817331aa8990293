"""Checkpoints name the channels their step updated (``updated_channels``), as LangGraph's do:
real vs ported, for parallel branches and a join, a conditional loop, ``Send``, a subgraph,
an interrupt and its resume (with ``Command(update=...)``), ``interrupt_before``, replay and
forks, ``update_state``, ``durability="exit"``, deferred nodes and the functional API; on the
in-memory and the SQLite savers.  A deferred node's pending trigger and a join's first
sources are kept across an interrupt (they were lost, so the node never ran)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.docs_port.port import compare

GRAPHS = """
import operator
import sqlite3
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command, Send, interrupt
from langgraph.func import entrypoint, task


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def saver():
    return SAVER()


def show(out):
    print({k: (v if k != "__interrupt__" else [i.value for i in v]) for k, v in out.items()})


def dump(saver, thread):
    print("==", thread)
    for ct in saver.list({"configurable": {"thread_id": thread}}):
        ns = ct.config["configurable"].get("checkpoint_ns", "").split(":")[0]
        print(repr(ns), ct.metadata.get("source"), ct.metadata.get("step"),
              ct.checkpoint["updated_channels"], sorted(ct.checkpoint["channel_values"]))
"""

SCENARIOS = """
# parallel branches, a join, a subgraph, a loop, Send, an interrupt
class Sub(TypedDict):
    x: int
    inner: int

sb = StateGraph(Sub)
sb.add_node("sub_a", lambda s: {"inner": s["x"] * 10})
sb.add_node("sub_b", lambda s: {"x": s["x"] + s["inner"]})
sb.add_edge(START, "sub_a"); sb.add_edge("sub_a", "sub_b")

def ask(s):
    return {"log": [interrupt("q")]}

g = StateGraph(S)
g.add_node("a", lambda s: {"log": ["a"]})
g.add_node("b", lambda s: {"log": ["b"], "x": s["x"] + 1})
g.add_node("c", lambda s: {"log": ["c"]})
g.add_node("sub", sb.compile())
g.add_node("loop", lambda s: {"x": s["x"] + 1})
g.add_node("fan", lambda s: {})
g.add_node("w", lambda s: {"log": [f"w{s['x']}"]})
g.add_node("ask", ask)
g.add_edge(START, "a"); g.add_edge(START, "b"); g.add_edge(["a", "b"], "c")
g.add_edge("c", "sub"); g.add_edge("sub", "loop")
g.add_conditional_edges("loop", lambda s: "loop" if s["x"] < 40 else "fan", ["loop", "fan"])
g.add_conditional_edges("fan", lambda s: [Send("w", {"x": i, "log": []}) for i in range(2)], ["w"])
g.add_edge("w", "ask"); g.add_edge("ask", END)
s1 = saver()
app = g.compile(checkpointer=s1)
cfg = {"configurable": {"thread_id": "t1"}}
app.invoke({"x": 0, "log": []}, cfg)
app.invoke(Command(resume="yes"), cfg)
app.update_state(cfg, {"log": ["manual"]}, as_node="c")
app.update_state(cfg, {"x": 99})
for ns in ("", None):
    for ct in s1.list({"configurable": {"thread_id": "t1", **({"checkpoint_ns": ns} if ns is not None else {})}}):
        pass
dump(s1, "t1")
sub_ns = [ct for ct in s1.list(None) if ct.config["configurable"]["checkpoint_ns"]]
print(sorted((ct.metadata["step"], tuple(ct.checkpoint["updated_channels"])) for ct in sub_ns))

# a deferred node and a join whose sources finish in different steps, across interrupts
def b2(s):
    v = interrupt("ok?")
    return {"log": [f"b2:{v}"]}

def build(**kw):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"], "x": s["x"] + 1})
    g.add_node("b1", lambda s: {"log": ["b1"]})
    g.add_node("b2", b2)
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_node("d", lambda s: {"log": ["d"]}, defer=True)
    g.add_edge(START, "a"); g.add_edge(START, "b1"); g.add_edge("b1", "b2")
    g.add_edge(["a", "b2"], "c"); g.add_edge("a", "d"); g.add_edge("c", END)
    return g.compile(**kw)

s2 = saver()
app = build(checkpointer=s2)
cfg = {"configurable": {"thread_id": "t2"}}
print(app.invoke({"x": 0, "log": []}, cfg)["log"])
show(app.invoke(Command(resume="yes", update={"x": 10}), cfg))
before = [h for h in app.get_state_history(cfg) if h.next == ("b2",)][-1]
show(app.invoke(None, before.config))
fork = app.update_state(before.config, {"x": 5}, as_node="b1")
print(app.invoke(None, fork)["log"])
print(app.invoke(Command(resume="again"), cfg)["log"])
dump(s2, "t2")

s3 = saver()
app = build(checkpointer=s3, interrupt_before=["c"])
cfg = {"configurable": {"thread_id": "t3"}}
app.invoke({"x": 0, "log": []}, cfg)
app.invoke(Command(resume="r"), cfg)
print(app.invoke(None, cfg)["log"])
dump(s3, "t3")

s4 = saver()
app = build(checkpointer=s4)
cfg = {"configurable": {"thread_id": "t4"}}
app.invoke({"x": 0, "log": []}, cfg, durability="exit")
print(app.invoke(Command(resume="z"), cfg, durability="exit")["log"])
dump(s4, "t4")

@task
def double(n):
    return n * 2

s5 = saver()

@entrypoint(checkpointer=s5)
def flow(n):
    v = double(n).result()
    ok = interrupt("go?")
    return entrypoint.final(value=v, save=ok)

cfg = {"configurable": {"thread_id": "t5"}}
flow.invoke(3, cfg)
print(flow.invoke(Command(resume="fine"), cfg))
show(flow.invoke(4, cfg))
dump(s5, "t5")
"""


def test_checkpoints_name_the_channels_their_step_updated_in_memory() -> None:
    compare(GRAPHS + "SAVER = InMemorySaver\n" + SCENARIOS)


def test_checkpoints_name_the_channels_their_step_updated_in_sqlite() -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    compare(
        GRAPHS
        + "SAVER = lambda: SqliteSaver(sqlite3.connect(':memory:', check_same_thread=False))\n"
        + SCENARIOS
    )


def test_a_file_without_them_still_loads_and_a_run_adds_them(tmp_path: Path) -> None:
    """Checkpoints stored before the key read with ``updated_channels`` None; the run that
    goes on in the file stores them."""
    from engine.checkpoint import SqliteSaver
    from engine.messages import HumanMessage
    from tests.engine.test_checkpoint_packing import _layout1
    from tests.engine.test_checkpointers import _chat_graph

    path = _layout1(tmp_path)
    cfg = {"configurable": {"thread_id": "old"}}
    old = list(SqliteSaver(path).list(cfg))
    assert len(old) == 30 and all(t.checkpoint["updated_channels"] is None for t in old)
    _chat_graph(SqliteSaver(path)).invoke({"messages": [HumanMessage("more")]}, cfg)  # type: ignore[call-arg]
    new = list(SqliteSaver(path).list(cfg))[: -len(old)]
    assert [t.metadata.get("source") for t in new] == ["loop", "loop", "input"]
    assert [t.checkpoint["updated_channels"] for t in new][-1] == ["__start__"]
    assert all(t.checkpoint["updated_channels"] for t in new)
