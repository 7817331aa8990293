"""Graph-API docs programs that look at a compiled graph, run on the real libraries, ported and
attached (``port.compare``): the input / output schema models, xray drawings, builder shortcuts
and their errors, graph names (``get_name``, which names the schema models), a node's config
(its metadata in LangGraph's order, no ``run_name``; its ``checkpoint_map`` of the checkpoints
the step runs from, its graph's and the enclosing ones', and no ``checkpoint_id``), a
compiled graph's nodes, subgraphs, channels and ``stream_mode``;
``add_messages(format="langchain-openai")`` (text blocks joined, tool results after the rest).

Known difference kept: LangGraph's OpenAI-format round trip drops the messages' ids; the
engine keeps them (its message log follows them), so the program prints no ids.  An
entrypoint's ``name`` is its function's (LangGraph's is ``LangGraph``, as the engine's
``get_name()`` is): its node and the run events carry it, so it is kept.  Task ids are 32 hex
digits (LangGraph's are UUIDs): events and sessions carry them; the programs mask both."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

SCHEMA_MODELS = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import json
from typing import Annotated
import operator
from pydantic import BaseModel
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
class In(TypedDict):
    q: str
class Out(TypedDict):
    ans: str
class S(In, Out):
    scratch: int
    log: Annotated[list[str], operator.add]
def n(s): return {"ans": s["q"] + "!"}
for kw in [dict(input_schema=In, output_schema=Out), {}]:
    b = StateGraph(S, **kw); b.add_node("n", n); b.add_edge(START, "n")
    g = b.compile()
    i, o = g.get_input_schema(), g.get_output_schema()
    print(i.__name__, o.__name__, g.input_schema.__name__, g.output_schema.__name__)
    print(json.dumps(i.model_json_schema()))
    print(json.dumps(o.model_json_schema()))
    print(i.model_validate({"q": "x"}).root if kw else "", o(ans="a").model_dump())
b = StateGraph(MessagesState); b.add_node("n", n); b.add_edge(START, "n")
g = b.compile()
print(sorted(g.get_input_schema().model_json_schema()), g.get_output_schema().model_json_schema()["title"], list(g.get_output_schema().model_fields))
class P(BaseModel):
    x: int = 0
    y: str = "a"
b = StateGraph(P); b.add_node("n", lambda s: {"x": 1}); b.add_edge(START, "n")
g = b.compile()
print(json.dumps(g.get_input_schema().model_json_schema()))
print(json.dumps(g.get_output_schema().model_json_schema()))
"""


XRAY = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
class S(TypedDict):
    x: int
def a(s): return {"x": 1}
inner = StateGraph(S); inner.add_node("ia", a); inner.add_node("ib", a); inner.add_edge(START, "ia"); inner.add_edge("ia", "ib")
mid = StateGraph(S); mid.add_node("ma", a); mid.add_node("inner", inner.compile()); mid.add_edge(START, "ma"); mid.add_edge("ma", "inner")
top = StateGraph(S); top.add_node("ta", a); top.add_node("mid", mid.compile()); top.add_edge(START, "ta"); top.add_edge("ta", "mid"); top.add_edge("mid", END)
g = top.compile()
print(g.get_graph().draw_mermaid())
print(g.get_graph(xray=1).draw_mermaid())
print(g.get_graph(xray=True).draw_mermaid())
gg = g.get_graph(xray=True)
print(sorted(gg.nodes))
print([(e.source, e.target, e.conditional) for e in gg.edges])
print(gg.to_json()["edges"][:3])
"""


BUILDER_MISC = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import CachePolicy, RetryPolicy
from langgraph.cache.memory import InMemoryCache

class S(TypedDict):
    user_id: str
    query: str
    result: str
    log: Annotated[list, operator.add]
def node1(s):
    print("  long op", s["query"])
    return {"result": s["query"] + " result", "log": ["n1"]}
b = StateGraph(S)
b.add_node("node1", node1, cache_policy=CachePolicy(ttl=60, key_func=lambda s: s["user_id"]))
b.set_entry_point("node1"); b.set_finish_point("node1")
app = b.compile(cache=InMemoryCache())
print(app.invoke({"user_id": "1", "query": "a", "log": []}))
print(app.invoke({"user_id": "1", "query": "b", "log": []}))
print(app.invoke({"user_id": "2", "query": "b", "log": []}))
for ch in app.stream({"user_id": "2", "query": "zz", "log": []}, stream_mode="updates"):
    print(ch)
def s1(s): return {"log": ["s1"]}
def s2(s): return {"log": ["s2"]}
def s3(s): return {"log": ["s3"]}
b = StateGraph(S)
b.add_sequence([s1, s2, ("third", s3)])
b.add_edge(START, "s1")
g = b.compile()
print(g.invoke({"log": []}))
print(list(g.get_graph().nodes))
b = StateGraph(S)
b.add_node("s1", s1); b.add_node("s2", s2)
b.set_conditional_entry_point(lambda s: "s2" if s["query"] == "x" else "s1", {"s1": "s1", "s2": "s2"})
print(b.compile().invoke({"query": "x", "log": []}))
try:
    b.add_node("s1", s1)
except Exception as e:
    print("RAISED", type(e).__name__, e)
for bad in ["__start__", "a|b", "a:b"]:
    try:
        StateGraph(S).add_node(bad, s1)
    except Exception as e:
        print("RAISED", type(e).__name__, e)
b = StateGraph(S); b.add_node("s1", s1)
try:
    b.compile()
except Exception as e:
    print("RAISED", type(e).__name__, e)
b = StateGraph(S); b.add_node("s1", s1); b.add_edge(START, "s1"); b.add_edge("s1", "nope")
try:
    b.compile()
except Exception as e:
    print("RAISED", type(e).__name__, e)
b = StateGraph(S); b.add_node("s1", s1); b.add_edge(START, "s1"); b.add_edge(END, "s1")
try:
    b.compile()
except Exception as e:
    print("RAISED", type(e).__name__, e)
b = StateGraph(S); b.add_node("s1", s1, metadata={"team": "x"}); b.add_edge(START, "s1")
print(b.compile().get_graph().nodes["s1"].metadata)
print(b.compile(name="custom").name)
"""


NODE_CONFIG = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph, START, END
from langgraph.config import get_config, get_store
from langgraph.store.memory import InMemoryStore
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

class S(TypedDict):
    x: int
def a(state: S, config: RunnableConfig):
    c = config["configurable"]
    print(" a", c.get("thread_id"), c.get("user"))
    print(" meta", {k: v for k, v in config["metadata"].items() if k in ("langgraph_node", "langgraph_step", "langgraph_triggers", "langgraph_path", "user", "thread_id", "langgraph_checkpoint_ns")})
    print(" tags", config.get("tags"), config.get("recursion_limit"), config.get("run_name"))
    return {"x": state["x"] + 1}
def b(state: S):
    cfg = get_config()
    print(" b", cfg["configurable"]["user"], cfg["metadata"]["langgraph_node"], cfg["metadata"]["langgraph_step"])
    store = get_store()
    store.put(("n",), "k", {"v": state["x"]})
    return {"x": state["x"] * 10}
def c(state: S, runtime: Runtime):
    print(" c", runtime.context, runtime.store.get(("n",), "k").value)
    ei = getattr(runtime, "execution_info", None)
    print(" ei", None if ei is None else (ei.node_attempt if hasattr(ei, "node_attempt") else sorted(vars(ei))[:3]))
    return {}
bl = StateGraph(S); bl.add_node("a", a); bl.add_node("b", b); bl.add_node("c", c)
bl.add_edge(START, "a"); bl.add_edge("a", "b"); bl.add_edge("b", "c")
g = bl.compile(store=InMemoryStore(), checkpointer=InMemorySaver())
print(g.invoke({"x": 1}, {"configurable": {"thread_id": "t1", "user": "ann"}, "tags": ["mine"], "metadata": {"user": "ann"}, "recursion_limit": 9, "run_name": "myrun"}))
g2 = g.with_config({"configurable": {"user": "bob"}, "tags": ["w"]})
print(g2.invoke({"x": 2}, {"configurable": {"thread_id": "t2"}}))
print(g.get_state({"configurable": {"thread_id": "t1"}}).metadata)
"""


INTROSPECTION = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
class S(TypedDict):
    x: int
def a(s): return {"x": 1}
inner = StateGraph(S); inner.add_node("ia", a); inner.add_edge(START, "ia")
ic = inner.compile(name="inner_graph")
top = StateGraph(S); top.add_node("ta", a); top.add_node("sub", ic); top.add_edge(START, "ta"); top.add_edge("ta", "sub")
g = top.compile(name="top_graph")
print(list(g.nodes))
print([(n, type(sg).__name__) for n, sg in g.get_subgraphs()])
print([(n, sg.name) for n, sg in g.get_subgraphs(recurse=True)])
print(list(g.get_subgraphs(namespace="sub")) != [])
print(g.name, ic.name)
print(sorted(k for k in g.channels if not k.startswith("branch:")))
print(g.stream_mode, g.input_channels if hasattr(g, "input_channels") else None)
print(sorted(g.builder.nodes), g.builder.edges)
"""


OPENAI_FORMAT = r"""
import builtins, re
def print(*args, **kw):  # interrupt and checkpoint ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing import Annotated
from typing_extensions import TypedDict
from langchain_core.messages import AnyMessage, HumanMessage, AIMessage
from langgraph.graph import StateGraph, START
from langgraph.graph.message import add_messages

class S(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages(format="langchain-openai")]
def n(s):
    return {"messages": [AIMessage([{"type": "text", "text": "hi"}, {"type": "text", "text": "there"}], id="a")]}
b = StateGraph(S); b.add_node("n", n); b.add_edge(START, "n")
out = b.compile().invoke({"messages": [HumanMessage([{"type": "text", "text": "yo"}], id="h")]})
print([(type(m).__name__, m.content) for m in out["messages"]])  # (LangGraph's round trip drops the ids)
fmt = add_messages(format="langchain-openai")
def show(msgs):
    print([(type(m).__name__, m.content, getattr(m, "tool_calls", None) or getattr(m, "tool_call_id", None), getattr(m, "status", None)) for m in fmt([], msgs)])
for c in [[{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], ["x", {"type": "text", "text": "b"}], [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {"url": "http://x"}}], [], [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}], "plain"]:
    show([HumanMessage(c, id="1")])
show([AIMessage([{"type": "text", "text": "a"}, {"type": "tool_use", "name": "foo", "input": {"x": 1}, "id": "1"}])])
show([HumanMessage([{"type": "text", "text": "before"}, {"type": "tool_result", "tool_use_id": "A", "content": "ra"}, {"type": "text", "text": "after"}, {"type": "tool_result", "tool_use_id": "B", "content": [{"type": "text", "text": "rb"}, {"type": "text", "text": "rc"}], "is_error": True}])])
show([HumanMessage([{"type": "tool_result", "tool_use_id": "A", "content": [{"type": "text", "text": "no", "cache_control": {}}], "is_error": True}])])
"""

NAMES = """
from typing_extensions import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.func import entrypoint, task

class State(TypedDict):
    x: int

def step(state: State):
    return {"x": state["x"] + 1}

builder = StateGraph(State)
builder.add_node(step)
builder.add_edge(START, "step")
g = builder.compile()
print(g.name, g.get_name(), g.get_name("Suffix"), g.get_name(name="Other"), g.get_name("S", name="N"))
g2 = builder.compile(name="my_graph")
print(g2.name, g2.get_name(), g2.get_name("Out"))
g3 = g2.with_config(run_name="renamed")
print(g3.name, g3.get_name())
print(repr(g.get_name("input")))
print(g.get_input_schema().__name__, g.get_output_schema().__name__)
print(g2.get_input_schema().__name__, g2.get_output_schema().__name__)

@entrypoint()
def workflow(n: int) -> int:
    return n * 2
print(workflow.get_name(), workflow.get_name("Input"))
print(workflow.invoke(3))
"""

AGENT_NAMES = """
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

model = GenericFakeChatModel(messages=iter([AIMessage("hi")]))
a = create_agent(model, tools=[])
b = create_agent(model, tools=[], name="researcher")
for g in (a, b):
    print(g.name, g.get_name(), g.get_name("Input"), g.get_input_schema().__name__, g.get_output_schema().__name__)
"""

NODE_CHECKPOINT_MAP = r"""
import builtins, re
def print(*args, **kw):  # checkpoint and task ids are random: shown as ID
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver

class S(TypedDict):
    x: int

def show(config: RunnableConfig, who: str):
    c = config["configurable"]
    print(who, sorted(k for k in c if not k.startswith("__pregel")))
    print(who, "checkpoint_map", c.get("checkpoint_map"), "checkpoint_id", c.get("checkpoint_id"), "ns", repr(c.get("checkpoint_ns")))

def inner_node(state: S, config: RunnableConfig):
    show(config, "  inner")
    return {"x": state["x"] + 1}

ib = StateGraph(S); ib.add_node("inner_node", inner_node); ib.add_edge(START, "inner_node")
inner = ib.compile()

seen = []
def a(state: S, config: RunnableConfig):
    show(config, " a")
    seen.append(config["configurable"]["checkpoint_map"][""])
    return {"x": state["x"] + 1}

bl = StateGraph(S); bl.add_node("a", a); bl.add_node("sub", inner)
bl.add_edge(START, "a"); bl.add_edge("a", "sub")
g = bl.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t1"}}
print(g.invoke({"x": 1}, cfg))
print(g.invoke({"x": 5}, cfg))
hist = list(g.get_state_history(cfg))
old = hist[-2].config
steps = {h.config["configurable"]["checkpoint_id"]: (h.metadata["step"], h.next) for h in hist}
print("a ran from", [steps.get(i) for i in seen])
print("replay from", old["configurable"].keys())
print(g.invoke(None, old))
g2 = bl.compile()
print(g2.invoke({"x": 1}))
"""

NODE_CHECKPOINT_MAP_RESUMED = r"""
import builtins, re
def print(*args, **kw):
    builtins.print(*(re.sub(r"[0-9a-f]{32}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", "ID", str(a)) for a in args), **kw)
from typing_extensions import TypedDict
from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command

class S(TypedDict):
    x: int

def ask(state: S, config: RunnableConfig):
    got = interrupt("value?")
    c = config["configurable"]
    print("  ask", sorted(c.get("checkpoint_map", {})), c.get("checkpoint_id"))
    return {"x": state["x"] + got}

ib = StateGraph(S); ib.add_node("ask", ask); ib.add_edge(START, "ask")
inner = ib.compile()

def call_inner(state: S, config: RunnableConfig):
    out = inner.invoke(state, config)
    return {"x": out["x"] * 10}

bl = StateGraph(S); bl.add_node("call_inner", call_inner); bl.add_edge(START, "call_inner")
g = bl.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t1"}}
print(g.invoke({"x": 1}, cfg))
print(g.invoke(Command(resume=5), cfg))
for h in g.get_state_history(cfg):
    print(h.metadata["step"], h.next)
"""


def test_schema_models() -> None:
    compare(SCHEMA_MODELS)


def test_xray() -> None:
    compare(XRAY)


def test_builder_misc() -> None:
    compare(BUILDER_MISC)


def test_node_config() -> None:
    compare(NODE_CONFIG)


def test_a_nodes_config_maps_the_checkpoints_it_runs_from() -> None:
    compare(NODE_CHECKPOINT_MAP)


def test_a_resumed_node_of_a_graph_called_in_a_node_maps_its_checkpoints() -> None:
    compare(NODE_CHECKPOINT_MAP_RESUMED)


def test_introspection() -> None:
    compare(INTROSPECTION)


def test_openai_format() -> None:
    compare(OPENAI_FORMAT)


def test_names_and_the_schema_models_they_name() -> None:
    compare(NAMES)


def test_an_agents_name() -> None:
    compare(AGENT_NAMES)
