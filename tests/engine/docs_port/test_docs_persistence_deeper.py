"""Docs persistence programs, run on the real libraries, ported and attached (``port.compare``):
a subgraph's state and history (``get_state_history`` of a config naming a checkpoint lists that
one only, as the savers do), ``update_state`` as a node, from an old checkpoint (a fork) and with
a ``Command``, ``durability`` modes and the pending writes a failed run keeps (under ``exit``
only the last checkpoint's own), a graph a node invokes, ``Command.PARENT``, and a resume with
``Command(goto=...)`` whose output shows the writes of the tasks it sent; checkpoint metadata with the run config's keys, in
LangGraph's order (``parents`` before them); savers given ``serde=JsonPlusSerializer(...)``."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

SUBGRAPH_HISTORY = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt

class Sub(TypedDict):
    foo: str
    bar: str
def sub1(s): return {"bar": "sub1"}
def sub2(s):
    v = interrupt("ask")
    return {"bar": s["bar"] + v}
sb = StateGraph(Sub); sb.add_node("sub1", sub1); sb.add_node("sub2", sub2)
sb.add_edge(START, "sub1"); sb.add_edge("sub1", "sub2")
subg = sb.compile()
class P(TypedDict):
    foo: str
def first(s): return {"foo": "hi " + s["foo"]}
pb = StateGraph(P); pb.add_node("first", first); pb.add_node("node_2", subg)
pb.add_edge(START, "first"); pb.add_edge("first", "node_2")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ch in g.stream({"foo": "x"}, cfg, subgraphs=True):
    print(ch)
st = g.get_state(cfg, subgraphs=True)
print(st.next, [t.name for t in st.tasks])
sub_state = st.tasks[0].state
print(sub_state.values, sub_state.next)
print(sorted(sub_state.config["configurable"]))
print("ns", sub_state.config["configurable"]["checkpoint_ns"].split(":")[0])
hist = list(g.get_state_history(sub_state.config))
print("sub history", [(h.next, h.metadata["step"], h.metadata["source"]) for h in hist])
hist = list(g.get_state_history(cfg))
print("parent history", [(h.next, h.metadata["step"], h.metadata["source"]) for h in hist])
g.update_state(sub_state.config, {"bar": "edited"})
st2 = g.get_state(cfg, subgraphs=True)
print(st2.tasks[0].state.values)
print(g.invoke(Command(resume="!"), cfg))
print([(h.next, h.metadata["step"], h.metadata["source"]) for h in g.get_state_history(cfg)])
"""

UPDATE_AS_NODE = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int
def a(s): return {"log": ["a"], "n": s["n"] + 1}
def b(s): return {"log": ["b"], "n": s["n"] * 10}
def c(s): return {"log": ["c"]}
bld = StateGraph(S)
bld.add_node("a", a); bld.add_node("b", b); bld.add_node("c", c)
bld.add_edge(START, "a"); bld.add_edge("a", "b"); bld.add_edge("b", "c"); bld.add_edge("c", END)
g = bld.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
cfg = {"configurable": {"thread_id": "t"}}
print(g.invoke({"log": [], "n": 1}, cfg))
st = g.get_state(cfg)
print(st.next, st.values)
new = g.update_state(cfg, {"log": ["edit"], "n": 5}, as_node="b")
print(sorted(new["configurable"]))
st = g.get_state(cfg)
print(st.next, st.values, st.metadata["source"], st.metadata["step"], st.metadata.get("writes"))
print(g.invoke(None, cfg))
# update with as_node=a again -> next b
g.update_state(cfg, {"n": 100}, as_node="a")
st = g.get_state(cfg)
print(st.next, st.values)
print(g.invoke(None, cfg))
# fork from old checkpoint
hist = list(g.get_state_history(cfg))
for h in hist:
    print(h.metadata["step"], h.metadata["source"], h.next, h.values, h.parent_config is not None)
old = [h for h in hist if h.next == ("b",)][-1]
fork = g.update_state(old.config, {"n": 42})
fst = g.get_state(fork)
print("fork", fst.values, fst.next, fst.metadata["source"], fst.metadata["step"])
print("fork parent is old", fst.parent_config["configurable"]["checkpoint_id"] == old.config["configurable"]["checkpoint_id"])
print(g.invoke(None, fork))
print(len(list(g.get_state_history(cfg))))
# Command as update_state? update_state with Command
try:
    g.update_state(cfg, Command(update={"n": 7}, goto="c"))
    st = g.get_state(cfg)
    print("cmd", st.next, st.values)
    print(g.invoke(None, cfg))
except Exception as e:
    print("RAISED", type(e).__name__, e)
# as_node=END? update with None values
g.update_state(cfg, None, as_node="c")
st = g.get_state(cfg)
print("none", st.next, st.values, st.metadata["source"])
"""

DURABILITY_WRITES = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    log: Annotated[list, operator.add]
def a(s): return {"log": ["a"]}
def b(s):
    if len(s["log"]) < 3 and s["log"][0] == "boom":
        raise ValueError("bad")
    return {"log": ["b"]}
bld = StateGraph(S)
bld.add_node("a", a); bld.add_node("b", b)
bld.add_edge(START, "a"); bld.add_edge("a", "b"); bld.add_edge("b", END)
saver = InMemorySaver()
g = bld.compile(checkpointer=saver)
for d in ["exit", "async", "sync"]:
    cfg = {"configurable": {"thread_id": d}}
    print(d, g.invoke({"log": ["x"]}, cfg, durability=d))
    print(" ", [(h.metadata["step"], h.next) for h in g.get_state_history(cfg)])
    cfg = {"configurable": {"thread_id": d + "-err"}}
    try:
        g.invoke({"log": ["boom"]}, cfg, durability=d)
    except ValueError as e:
        print(" err", e)
    st = g.get_state(cfg)
    print(" ", st.next, st.values, [t.error for t in st.tasks])
    tup = saver.get_tuple(cfg)
    print(" writes", [w[1] for w in tup.pending_writes] if tup else None)
    print(" ", [(h.metadata["step"], h.next) for h in g.get_state_history(cfg)])
    tup = saver.get_tuple(cfg)
"""

HISTORY_OF_ONE = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
class S(TypedDict):
    log: Annotated[list, operator.add]
def a(s): return {"log": ["a"]}
def b(s): return {"log": ["b"]}
bld = StateGraph(S)
bld.add_node("a", a); bld.add_node("b", b)
bld.add_edge(START, "a"); bld.add_edge("a", "b"); bld.add_edge("b", END)
g = bld.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
g.invoke({"log": []}, cfg)
st = g.get_state(cfg)
print([h.next for h in g.get_state_history(st.config)])
print([h.next for h in g.get_state_history(cfg, before=st.config)])
print([h.next for h in g.get_state_history(cfg, limit=2)])
print([h.next for h in g.get_state_history(cfg, filter={"step": 1})])
print([h.next for h in g.get_state_history({"configurable": {"thread_id": "t", "checkpoint_ns": ""}})])
saver = g.checkpointer
print(len(list(saver.list(st.config))), len(list(saver.list(cfg))))
import asyncio
async def main():
    print([h.next async for h in g.aget_state_history(st.config)])
asyncio.run(main())
"""

GRAPH_IN_A_NODE = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command, interrupt, Send

class SubS(TypedDict):
    text: str
    steps: Annotated[list, operator.add]
def s1(s): return {"steps": ["s1"], "text": s["text"].upper()}
def s2(s):
    ok = interrupt({"check": s["text"]})
    return {"steps": [f"s2:{ok}"]}
sb = StateGraph(SubS); sb.add_node("s1", s1); sb.add_node("s2", s2)
sb.add_edge(START, "s1"); sb.add_edge("s1", "s2")
sub = sb.compile()

class P(TypedDict):
    topic: str
    out: Annotated[list, operator.add]
def call_sub(s):
    r = sub.invoke({"text": s["topic"], "steps": []})
    return {"out": [r["text"], *r["steps"]]}
pb = StateGraph(P); pb.add_node("call_sub", call_sub); pb.add_edge(START, "call_sub")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ch in g.stream({"topic": "cats", "out": []}, cfg, subgraphs=True, stream_mode="updates"):
    ns = tuple(n.split(":")[0] for n in ch[0])
    print(ns, {k: ([i.value for i in v] if k == "__interrupt__" else v) for k, v in ch[1].items()})
print(g.get_state(cfg).next)
for ch in g.stream(Command(resume="yes"), cfg, subgraphs=True, stream_mode="updates"):
    ns = tuple(n.split(":")[0] for n in ch[0])
    print(ns, ch[1])
print(g.get_state(cfg).values)
print(len(list(g.get_state_history(cfg))))

"""

PARENT_COMMAND = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated, Literal
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    foo: Annotated[list, operator.add]
def sub_a(s):
    return Command(update={"foo": ["sub_a"]}, goto="other", graph=Command.PARENT)
sb = StateGraph(S); sb.add_node("sub_a", sub_a); sb.add_edge(START, "sub_a")
sub = sb.compile()
def other(s): return {"foo": ["other"]}
def first(s): return {"foo": ["first"]}
pb = StateGraph(S); pb.add_node("first", first); pb.add_node("sub", sub); pb.add_node("other", other)
pb.add_edge(START, "first"); pb.add_edge("first", "sub")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ch in g.stream({"foo": []}, cfg, subgraphs=True):
    print(tuple(n.split(":")[0] for n in ch[0]), ch[1])
print(g.get_state(cfg).values)
print([(h.metadata["step"], h.next, h.metadata["source"]) for h in g.get_state_history(cfg)])
# update_state with as_node on parent, then Command(goto) as update
g.update_state(cfg, {"foo": ["manual"]}, as_node="first")
st = g.get_state(cfg); print(st.next, st.values)
for ch in g.stream(None, cfg, stream_mode="updates"):
    print(ch)
print(g.get_state(cfg).values)
"""

RESUME_WITH_GOTO = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver
class S(TypedDict):
    log: Annotated[list, operator.add]
def a(s):
    v = interrupt("go?")
    return {"log": [f"a:{v}"]}
def b(s): return {"log": ["b"]}
def c(s): return {"log": ["c"]}
bl = StateGraph(S); bl.add_node("a", a); bl.add_node("b", b); bl.add_node("c", c)
bl.add_edge(START, "a"); bl.add_edge("a", "b")
g = bl.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
g.invoke({"log": []}, cfg)
print(g.invoke(Command(resume="yes", goto="c"), cfg))
print(g.get_state(cfg).values)
cfg = {"configurable": {"thread_id": "2"}}
g.invoke({"log": []}, cfg)
print(g.invoke(Command(goto="c"), cfg))
print(g.get_state(cfg).next, g.get_state(cfg).values)
print(g.invoke(Command(resume="later"), cfg))
cfg = {"configurable": {"thread_id": "3"}}
g.invoke({"log": []}, cfg)
print(g.invoke(Command(update={"log": ["u"]}, goto="c", resume="r"), cfg))
for ch in g.stream(Command(goto="b"), cfg, stream_mode="values"):
    print(ch)
print(g.invoke(Command(goto=END), cfg))
"""


METADATA_ORDER = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
class S(TypedDict):
    x: int
b = StateGraph(S); b.add_node("n", lambda s: {"x": 1}); b.add_edge(START, "n")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1", "user_id": "u1", "n": 3}, "metadata": {"m": "x"}}
g.invoke({"x": 0}, cfg)
for h in g.get_state_history(cfg):
    print(h.metadata)
g.update_state(cfg, {"x": 5})
print(g.get_state(cfg).metadata)
print(g.checkpointer.get_tuple(cfg).metadata)
"""


SERIALIZER = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import sqlite3
from typing_extensions import TypedDict
from langchain_core.messages import HumanMessage
from langgraph.graph import StateGraph, START, MessagesState
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

class S(MessagesState):
    x: int
b = StateGraph(S); b.add_node("n", lambda s: {"x": s["x"] + 1}); b.add_edge(START, "n")
for saver in (InMemorySaver(serde=JsonPlusSerializer(pickle_fallback=True)), SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False), serde=JsonPlusSerializer())):
    g = b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "1"}}
    print(type(saver).__name__, g.invoke({"x": 1, "messages": [HumanMessage("hi", id="h")]}, cfg)["x"])
    st = g.get_state(cfg)
    print(st.values["x"], [(m.type, m.content) for m in st.values["messages"]], len(list(g.get_state_history(cfg))))
s = JsonPlusSerializer()
print(s.loads_typed(s.dumps_typed({"a": 1, "b": [1, 2], "m": HumanMessage("yo", id="1")})))
"""


def test_subgraph_history() -> None:
    compare(SUBGRAPH_HISTORY)


def test_update_as_node() -> None:
    compare(UPDATE_AS_NODE)


def test_durability_writes() -> None:
    compare(DURABILITY_WRITES)


def test_history_of_one() -> None:
    compare(HISTORY_OF_ONE)


def test_graph_in_a_node() -> None:
    compare(GRAPH_IN_A_NODE)


def test_parent_command() -> None:
    compare(PARENT_COMMAND)


def test_resume_with_goto() -> None:
    compare(RESUME_WITH_GOTO)


def test_metadata_order() -> None:
    compare(METADATA_ORDER)


def test_serializer() -> None:
    compare(SERIALIZER)
