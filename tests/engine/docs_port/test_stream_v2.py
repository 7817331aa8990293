"""LangGraph's ``version="v2"`` output, real LangGraph vs ported by its imports vs attached:
``stream`` / ``astream`` give typed parts (``{"type", "ns", "data"}``, a ``values`` part with
its ``interrupts`` apart) for one mode or a list, with ``subgraphs``; ``invoke`` / ``ainvoke``
give a ``GraphOutput``; a pydantic or dataclass state comes back as its class (values parts,
checkpoints, the output); any other ``version`` reads as v1, as on LangGraph."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

_SCRUB = '''
import re
def scrub(obj):
    """The part with what differs from run to run (ids, times) made fixed."""
    text = repr(obj)
    text = re.sub(r"'?id'?[=:] ?'[0-9a-f-]{32,36}'", "id=<id>", text)
    text = re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<uuid>", text)
    text = re.sub(r"'timestamp': '[^']*'", "'timestamp': <t>", text)
    return text
'''

PROGRAM = (
    _SCRUB
    + """
import asyncio
import operator
import warnings
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.types import interrupt, Command

class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]

def a(state):
    get_stream_writer()({"at": "a"})
    return {"x": state["x"] + 1, "log": ["a"]}

def ask(state):
    answer = interrupt({"q": "go on?"})
    return {"log": [f"ask={answer}"]}

b = StateGraph(State)
b.add_node(a); b.add_node(ask)
b.add_edge(START, "a"); b.add_edge("a", "ask"); b.add_edge("ask", END)
g = b.compile(checkpointer=InMemorySaver())

def cfg(n):
    return {"configurable": {"thread_id": str(n)}}

print("-- one mode")
for part in g.stream({"x": 1, "log": []}, cfg(1), stream_mode="updates", version="v2"):
    print(scrub(part))
print("-- values with the interrupt")
for part in g.stream(Command(resume="yes"), cfg(1), stream_mode="values", version="v2"):
    print(scrub(part))
for part in g.stream({"x": 1, "log": []}, cfg(2), stream_mode="values", version="v2"):
    print(scrub(part), sorted(part))
print("-- a list of modes")
for part in g.stream(
    {"x": 1, "log": []}, cfg(3), stream_mode=["values", "updates", "custom"], version="v2"
):
    print(scrub(part))
print("-- tasks, checkpoints, debug")
for part in g.stream(
    {"x": 1, "log": []}, cfg(4), stream_mode=["tasks", "checkpoints", "debug"], version="v2"
):
    data = part["data"]
    if part["type"] == "debug":
        print("debug", data["step"], data["type"], end=" ")
        data = data["payload"]
    if "values" in data:
        print(part["type"], part["ns"], scrub((data["values"], data["next"], data["metadata"])))
    else:
        print(part["type"], part["ns"], scrub(data))
print("-- default mode")
for part in g.stream({"x": 1, "log": []}, cfg(5), version="v2"):
    print(scrub(part))
print("-- invoke")
out = g.invoke({"x": 1, "log": []}, cfg(6), version="v2")
print(type(out).__name__, scrub(out))
print(scrub(out.value), scrub(out.interrupts))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(scrub(out["__interrupt__"]), out["x"], "x" in out, "__interrupt__" in out)
    try:
        out["nope"]
    except KeyError as e:
        print("KeyError", e)
print(sorted({type(w.message).__name__ for w in caught}))
out = g.invoke(Command(resume="ok"), cfg(6), version="v2")
print(scrub(out))
print(scrub(g.invoke({"x": 1, "log": []}, cfg(7), stream_mode="updates", version="v2")))
print(scrub(g.invoke({"x": 1, "log": []}, cfg(8), stream_mode=["values"], version="v2")))
print("-- async")
async def main():
    parts = [p async for p in g.astream({"x": 1, "log": []}, cfg(9), stream_mode=["updates", "values"], version="v2")]
    print(scrub(parts))
    out = await g.ainvoke(Command(resume="later"), cfg(9), version="v2")
    print(scrub(out))
    print(scrub(await g.ainvoke({"x": 1, "log": []}, cfg(10), stream_mode="custom", version="v2")))
asyncio.run(main())
print("-- any other version is v1")
for v in ("v1", "v3", None):
    print(v, scrub(list(g.stream({"x": 1, "log": []}, cfg(f"v{v}"), stream_mode="updates", version=v))))
    print(v, scrub(g.invoke({"x": 1, "log": []}, cfg(f"w{v}"), version=v)))
"""
)


def test_v2_stream_and_invoke_for_every_mode() -> None:
    compare(PROGRAM)


SCHEMAS = (
    _SCRUB
    + """
import asyncio
from dataclasses import dataclass, field
from pydantic import BaseModel
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

class Doc(BaseModel):
    text: str
    words: int = 0
    verdict: str = ""

class Out(BaseModel):
    verdict: str = ""

@dataclass
class Tally:
    n: int
    seen: list = field(default_factory=list)

def count(state):
    return {"words": len(state.text.split())}

def judge(state):
    return {"verdict": interrupt(f"{state.words} words: ok?")}

b = StateGraph(Doc)
b.add_node(count); b.add_node(judge)
b.add_edge(START, "count"); b.add_edge("count", "judge"); b.add_edge("judge", END)
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "p"}}
print("-- pydantic state")
for part in g.stream({"text": "a b c"}, cfg, stream_mode=["values", "updates", "checkpoints"], version="v2"):
    data = part["data"]
    if part["type"] == "checkpoints":
        data = (data["values"], data["next"])
    print(part["type"], scrub(data), scrub(part.get("interrupts")))
out = g.invoke(Command(resume="fine"), cfg, version="v2")
print(type(out.value).__name__, scrub(out))
out = g.invoke({"text": "one"}, {"configurable": {"thread_id": "r"}}, version="v2")
print(scrub(out), type(out.value).__name__)
for part in g.stream(None, {"configurable": {"thread_id": "r"}}, stream_mode="debug", version="v2"):
    if part["data"]["type"] == "checkpoint":
        print("debug checkpoint", scrub(part["data"]["payload"]["values"]))

print("-- an output schema")
b2 = StateGraph(Doc, output_schema=Out)
b2.add_node(count); b2.add_node("judge", lambda s: {"verdict": "short" if s.words < 3 else "long"})
b2.add_edge(START, "count"); b2.add_edge("count", "judge")
g2 = b2.compile()
print(scrub(g2.invoke({"text": "a b c d"}, version="v2")))
print(scrub(g2.invoke({"text": "a"}, {"configurable": {}}, version="v2")))
print(scrub(g2.invoke({"text": "a"})))

print("-- dataclass state")
def step(state):
    return {"n": state.n + 1, "seen": [*state.seen, state.n]}
b3 = StateGraph(Tally)
b3.add_node(step); b3.add_edge(START, "step")
g3 = b3.compile()
print(scrub(list(g3.stream(Tally(n=1), stream_mode=["values", "updates"], version="v2"))))
print(scrub(g3.invoke(Tally(n=5), version="v2")))
async def main():
    print(scrub([p async for p in g3.astream(Tally(n=2), stream_mode="values", version="v2")]))
    print(scrub(await g3.ainvoke(Tally(n=3), version="v2")))
asyncio.run(main())
"""
)


def test_v2_hands_over_a_pydantic_or_dataclass_state_as_its_class() -> None:
    compare(SCHEMAS)


SUBGRAPHS = (
    _SCRUB
    + """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.func import entrypoint, task
from langgraph.types import interrupt, Command

class Inner(TypedDict):
    x: int
    notes: Annotated[list, operator.add]

def inner_step(state):
    get_stream_writer()("inside")
    return {"x": state["x"] * 10, "notes": ["inner"]}

def inner_ask(state):
    return {"notes": [interrupt("inner question")]}

ib = StateGraph(Inner)
ib.add_node(inner_step); ib.add_node(inner_ask)
ib.add_edge(START, "inner_step"); ib.add_edge("inner_step", "inner_ask")
inner = ib.compile()

def outer_first(state):
    return {"x": state["x"] + 1, "notes": ["outer"]}

def calls_v2(state):
    out = inner.invoke({"x": 2, "notes": []}, version="v2")
    return {"notes": [type(out).__name__]}

ob = StateGraph(Inner)
ob.add_node(outer_first); ob.add_node("sub", inner)
ob.add_edge(START, "outer_first"); ob.add_edge("outer_first", "sub")
g = ob.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "s"}}
print("-- subgraphs")
for part in g.stream({"x": 1, "notes": []}, cfg, stream_mode=["values", "updates", "custom"], subgraphs=True, version="v2"):
    print(part["type"], [n.split(":")[0] for n in part["ns"]], scrub(part["data"]), scrub(part.get("interrupts")))
for part in g.stream(Command(resume="answered"), cfg, stream_mode="updates", subgraphs=True, version="v2"):
    print(part["type"], [n.split(":")[0] for n in part["ns"]], scrub(part["data"]))
out = g.invoke({"x": 1, "notes": []}, {"configurable": {"thread_id": "t"}}, subgraphs=True, version="v2")
print(scrub(out))
print(scrub(g.invoke({"x": 1, "notes": []}, {"configurable": {"thread_id": "t1"}}, subgraphs=True)))
for part in g.stream({"x": 1, "notes": []}, {"configurable": {"thread_id": "u"}}, stream_mode="values", version="v2"):
    print(scrub(part))

print("-- a node invokes a graph with v2")
nb = StateGraph(Inner)
nb.add_node(calls_v2); nb.add_edge(START, "calls_v2")
try:
    print(scrub(nb.compile(checkpointer=InMemorySaver()).invoke({"x": 0, "notes": []}, {"configurable": {"thread_id": "n"}}, version="v2")))
except Exception as e:
    print("RAISED", type(e).__name__)

print("-- functional API")
@task
def double(n):
    return n * 2

@entrypoint(checkpointer=InMemorySaver())
def flow(n):
    d = double(n).result()
    ok = interrupt(f"keep {d}?")
    return {"d": d, "ok": ok}

fc = {"configurable": {"thread_id": "f"}}
for part in flow.stream(3, fc, stream_mode=["updates", "values"], version="v2"):
    print(scrub(part))
print(scrub(flow.invoke(Command(resume=True), fc, version="v2")))
print(scrub(flow.invoke(4, {"configurable": {"thread_id": "g"}}, version="v2")))

@entrypoint()
def plain(n):
    return n + 1

print(scrub(plain.invoke(1, version="v2")), scrub(list(plain.stream(1, stream_mode="values", version="v2"))))
"""
)


def test_v2_with_subgraphs_nested_calls_and_the_functional_api() -> None:
    compare(SUBGRAPHS)


MESSAGES = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import StateGraph, START, MessagesState

model = GenericFakeChatModel(messages=iter([AIMessage("hello there"), AIMessage("inner reply")]))

def chat(state):
    return {"messages": [model.invoke(state["messages"])]}

inner = StateGraph(MessagesState)
inner.add_node("inner_chat", chat); inner.add_edge(START, "inner_chat")
b = StateGraph(MessagesState)
b.add_node(chat); b.add_node("sub", inner.compile())
b.add_edge(START, "chat"); b.add_edge("chat", "sub")
g = b.compile()
for part in g.stream(
    {"messages": [("user", "hi")]}, stream_mode=["messages", "updates"], subgraphs=True, version="v2"
):
    ns = [n.split(":")[0] for n in part["ns"]]
    if part["type"] == "messages":
        m, meta = part["data"]
        print("messages", ns, type(m).__name__, repr(m.content), meta["langgraph_node"])
    else:
        print("updates", ns, {k: [x.content for x in v["messages"]] for k, v in part["data"].items()})
"""


def test_v2_messages_parts_with_subgraphs() -> None:
    compare(MESSAGES)


PARENT_SCHEMA = """
from pydantic import BaseModel
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START
class P(BaseModel):
    x: int
    y: int = 0
class Sub(TypedDict):
    y: int
    z: int
def s1(s): return {"z": s["y"] + 1}
sb = StateGraph(Sub); sb.add_node(s1); sb.add_edge(START, "s1")
def p1(s): return {"y": s.x + 1}
b = StateGraph(P); b.add_node(p1); b.add_node("sub", sb.compile()); b.add_edge(START, "p1"); b.add_edge("p1", "sub")
g = b.compile()
try:
    for part in g.stream({"x": 1}, stream_mode="values", subgraphs=True, version="v2"):
        print([n.split(":")[0] for n in part["ns"]], part["data"])
except Exception as e:
    print("RAISED", type(e).__name__)
class Q(BaseModel):
    x: int = 5
    y: int = 0
b = StateGraph(Q); b.add_node(p1); b.add_node("sub", sb.compile()); b.add_edge(START, "p1"); b.add_edge("p1", "sub")
g = b.compile()
for part in g.stream({"x": 1}, stream_mode=["values", "checkpoints"], subgraphs=True, version="v2"):
    d = part["data"]
    print(part["type"], [n.split(":")[0] for n in part["ns"]], d if part["type"] == "values" else d["values"])
"""


def test_v2_maps_a_subgraphs_values_with_the_root_graphs_schema_as_langgraph_does() -> None:
    """LangGraph makes every ``values`` part of the stream into the root graph's output
    schema, a subgraph's too (which fails when the root schema has required fields the
    subgraph's state lacks)."""
    compare(PARENT_SCHEMA)
