"""Docs programs of LangGraph's APIs, each run on the real libraries and ported
(``port.compare``): the graph API (schemas, private state, ``Overwrite``, managed
``RemainingSteps`` read by a routing function, the custom stream writer, retry policies,
``Command``, durability, history), the functional API (``entrypoint.final``, tasks and
interrupts, a subgraph's state), persistence (``SqliteSaver.from_conn_string``, ``list`` filters,
history filters), messages (ids, ``RemoveMessage``, ``trim_messages``), the stores (in memory and
SQLite), an edit before a deferred node, and mermaid drawings."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

GRAPH_API = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.types import Command, Send, Overwrite, RetryPolicy, interrupt
from langgraph.managed import RemainingSteps
from langgraph.config import get_stream_writer
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import GraphRecursionError

print("== input/output schemas and private state")
class In(TypedDict):
    question: str
class Out(TypedDict):
    answer: str
class Overall(TypedDict):
    question: str
    answer: str
    notes: str
class Private(TypedDict):
    scratch: str
def think(state: In) -> Private:
    return {"scratch": state["question"].upper()}
def answer(state: Private) -> Overall:
    return {"answer": state["scratch"] + "!", "notes": "n"}
b = StateGraph(Overall, input_schema=In, output_schema=Out)
b.add_node("think", think); b.add_node("answer", answer)
b.add_edge(START, "think"); b.add_edge("think", "answer"); b.add_edge("answer", END)
g = b.compile()
print(g.invoke({"question": "hi"}))
print(list(g.stream({"question": "hi"})))
print(sorted(g.get_input_jsonschema()["properties"]), sorted(g.get_output_jsonschema()["properties"]))

print("== Overwrite")
class S(TypedDict):
    items: Annotated[list, operator.add]
def add(s): return {"items": ["x"]}
def reset(s): return {"items": Overwrite(["fresh"])}
b = StateGraph(S); b.add_node("add", add); b.add_node("reset", reset)
b.add_edge(START, "add"); b.add_edge("add", "reset"); b.add_edge("reset", END)
print(b.compile().invoke({"items": ["a"]}))

print("== RemainingSteps")
class R(TypedDict):
    n: int
    remaining_steps: RemainingSteps
def loop(s):
    print(" remaining", s["remaining_steps"])
    return {"n": s["n"] + 1}
def route(s):
    return END if s["remaining_steps"] <= 2 else "loop"
b = StateGraph(R); b.add_node("loop", loop); b.add_edge(START, "loop"); b.add_conditional_edges("loop", route)
print(b.compile().invoke({"n": 0}, {"recursion_limit": 6}))
b2 = StateGraph(R); b2.add_node("loop", loop); b2.add_edge(START, "loop"); b2.add_edge("loop", "loop")
try:
    b2.compile().invoke({"n": 0}, {"recursion_limit": 3})
except GraphRecursionError as e:
    print("RAISED", type(e).__name__, str(e).splitlines()[0])

print("== custom stream writer")
class C(TypedDict):
    x: int
def work(s):
    w = get_stream_writer()
    w({"progress": 50})
    w("half")
    return {"x": s["x"] * 2}
b = StateGraph(C); b.add_node("work", work); b.add_edge(START, "work")
g = b.compile()
for part in g.stream({"x": 2}, stream_mode=["custom", "updates", "values"]):
    print(" ", part)

print("== retry policy")
calls = []
def flaky(s):
    calls.append(1)
    if len(calls) < 3:
        raise ValueError("boom %d" % len(calls))
    return {"x": len(calls)}
b = StateGraph(C); b.add_node("flaky", flaky, retry_policy=RetryPolicy(initial_interval=0.0, jitter=False, retry_on=ValueError)); b.add_edge(START, "flaky")
print(b.compile().invoke({"x": 0}), len(calls))
calls.clear()
b = StateGraph(C); b.add_node("flaky", flaky, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False)); b.add_edge(START, "flaky")
try:
    b.compile().invoke({"x": 0})
except Exception as e:
    print("RAISED", type(e).__name__, e, len(calls))

print("== Command goto + update, durability, history")
class H(TypedDict):
    path: Annotated[list, operator.add]
def a(s) -> Command:
    return Command(update={"path": ["a"]}, goto="c")
def bnode(s): return {"path": ["b"]}
def c(s): return {"path": ["c"]}
b = StateGraph(H); b.add_node("a", a, destinations=("b", "c")); b.add_node("b", bnode); b.add_node("c", c)
b.add_edge(START, "a")
g = b.compile(checkpointer=InMemorySaver())
for d in ("sync", "async", "exit"):
    cfg = {"configurable": {"thread_id": d}}
    print(d, g.invoke({"path": []}, cfg, durability=d), len(list(g.get_state_history(cfg))))
cfg = {"configurable": {"thread_id": "sync"}}
hist = list(g.get_state_history(cfg))
print([(h.metadata["step"], h.metadata["source"], h.next, sorted(h.metadata.get("writes") or {}) if "writes" in h.metadata else None) for h in hist])
g.update_state(cfg, {"path": ["edited"]}, as_node="b")
st = g.get_state(cfg)
print(st.values, st.next, st.metadata["source"], st.metadata["step"])
print(g.invoke(None, cfg))
"""

FUNCTIONAL_AND_SUBGRAPHS = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.func import entrypoint, task
from langgraph.graph import StateGraph, START, END
from langgraph.types import interrupt, Command
from langgraph.checkpoint.memory import InMemorySaver

print("== entrypoint.final and previous")
@entrypoint(checkpointer=InMemorySaver())
def counter(n: int, *, previous: int | None = None) -> entrypoint.final[int, int]:
    total = (previous or 0) + n
    return entrypoint.final(value=f"added {n}", save=total)
cfg = {"configurable": {"thread_id": "c"}}
print(counter.invoke(1, cfg), counter.invoke(2, cfg), counter.get_state(cfg).values)

print("== tasks, interrupt, resume")
@task
def draft(topic: str) -> str:
    print("  drafting", topic)
    return f"essay about {topic}"
@entrypoint(checkpointer=InMemorySaver())
def write(topic: str) -> dict:
    essay = draft(topic).result()
    verdict = interrupt({"essay": essay, "ask": "ok?"})
    return {"essay": essay, "verdict": verdict}
cfg = {"configurable": {"thread_id": "w"}}
for part in write.stream("cats", cfg):
    print(" ", {k: [i.value for i in v] if k == "__interrupt__" else v for k, v in part.items()})
st = write.get_state(cfg)
print(st.next, [i.value for i in st.interrupts], len(st.tasks))
for part in write.stream(Command(resume="yes"), cfg):
    print(" ", part)

print("== subgraph state")
class Sub(TypedDict):
    log: Annotated[list, operator.add]
def s1(s): return {"log": ["s1"]}
def s2(s):
    v = interrupt("sub asks")
    return {"log": [f"s2:{v}"]}
sb = StateGraph(Sub); sb.add_node("s1", s1); sb.add_node("s2", s2); sb.add_edge(START, "s1"); sb.add_edge("s1", "s2")
sub = sb.compile()
pb = StateGraph(Sub); pb.add_node("pre", lambda s: {"log": ["pre"]}); pb.add_node("child", sub); pb.add_edge(START, "pre"); pb.add_edge("pre", "child")
g = pb.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "s"}}
out = g.invoke({"log": []}, cfg)
print(out["log"], [i.value for i in out["__interrupt__"]])
st = g.get_state(cfg, subgraphs=True)
print(st.next, [(t.name, t.state.values if t.state and hasattr(t.state, "values") else None, t.state.next if t.state and hasattr(t.state, "next") else None) for t in st.tasks])
for ns, chunk in g.stream(Command(resume="ok"), cfg, subgraphs=True, stream_mode="updates"):
    print(" ", ns and ns[0].split(":")[0], chunk)
print(g.get_state(cfg).values)
print(len(list(g.get_state_history(cfg))))
"""

PERSISTENCE_MESSAGES_STORE = """
import operator, sqlite3, tempfile, os
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.graph.message import add_messages, REMOVE_ALL_MESSAGES
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langchain_core.messages import HumanMessage, AIMessage, RemoveMessage, trim_messages

print("== SqliteSaver from_conn_string, list filters, delete_thread")
class S(TypedDict):
    log: Annotated[list, operator.add]
b = StateGraph(S)
b.add_node("a", lambda s: {"log": ["a"]}); b.add_node("b", lambda s: {"log": ["b"]})
b.add_edge(START, "a"); b.add_edge("a", "b"); b.add_edge("b", END)
path = os.path.join(tempfile.mkdtemp(), "cp.sqlite")
with SqliteSaver.from_conn_string(path) as saver:
    g = b.compile(checkpointer=saver)
    for t in ("t1", "t2"):
        g.invoke({"log": [t]}, {"configurable": {"thread_id": t}})
    cps = list(saver.list({"configurable": {"thread_id": "t1"}}))
    print(len(cps), [c.metadata["step"] for c in cps], [c.metadata["source"] for c in cps])
    print([c.metadata["step"] for c in saver.list({"configurable": {"thread_id": "t1"}}, limit=2)])
    print([c.metadata["step"] for c in saver.list({"configurable": {"thread_id": "t1"}}, before=cps[1].config)])
    print([c.metadata["step"] for c in saver.list({"configurable": {"thread_id": "t1"}}, filter={"source": "input"})])
    print(len(list(saver.list(None))))
    saver.delete_thread("t1")
    print(len(list(saver.list({"configurable": {"thread_id": "t1"}}))), len(list(saver.list(None))))
    tup = saver.get_tuple({"configurable": {"thread_id": "t2"}})
    print(tup.checkpoint["channel_values"].get("log"), tup.parent_config is not None, sorted(tup.config["configurable"]))
    print(g.get_state({"configurable": {"thread_id": "t2"}}).values)

print("== history filters")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "h"}}
g.invoke({"log": []}, cfg)
print([h.metadata["step"] for h in g.get_state_history(cfg, limit=2)])
print([h.metadata["step"] for h in g.get_state_history(cfg, filter={"step": 1})])
hist = list(g.get_state_history(cfg))
print([h.metadata["step"] for h in g.get_state_history(cfg, before=hist[1].config)])

print("== messages: ids, RemoveMessage, trim")
class M(TypedDict):
    messages: Annotated[list, add_messages]
def n1(s): return {"messages": [AIMessage("first", id="x"), AIMessage("second", id="y")]}
def n2(s): return {"messages": [AIMessage("FIRST", id="x"), RemoveMessage(id="y")]}
def n3(s):
    trimmed = trim_messages(s["messages"], max_tokens=2, strategy="last", token_counter=len)
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *trimmed]}
b = StateGraph(M)
b.add_node("n1", n1); b.add_node("n2", n2); b.add_node("n3", n3)
b.add_edge(START, "n1"); b.add_edge("n1", "n2"); b.add_edge("n2", "n3")
out = b.compile().invoke({"messages": [HumanMessage("hi", id="h")]})
print([(m.id, m.content) for m in out["messages"]])
print([(m.id, m.content) for m in add_messages([HumanMessage("a", id="1")], [HumanMessage("b", id="1"), HumanMessage("c")])][:1])

print("== store: put/get/search/list_namespaces")
store = InMemoryStore()
store.put(("users", "u1"), "prefs", {"lang": "en", "n": 3})
store.put(("users", "u2"), "prefs", {"lang": "fr", "n": 5})
store.put(("docs",), "a", {"text": "hello"})
print([ (i.namespace, i.key, i.value) for i in store.search(("users",))])
print([ (i.namespace, i.key) for i in store.search(("users",), filter={"lang": "fr"})])
print([ (i.namespace, i.key) for i in store.search(("users",), filter={"n": {"$gt": 4}})])
print(store.list_namespaces(), store.list_namespaces(prefix=("users",)), store.list_namespaces(max_depth=1))
print(store.get(("users", "u1"), "prefs").value, store.get(("users", "u1"), "nope"))
store.delete(("docs",), "a")
print(store.list_namespaces())
print([i.key for i in store.search((), limit=1)], [i.key for i in store.search((), offset=1)])

print("== defer and static interrupt_before")
class D(TypedDict):
    log: Annotated[list, operator.add]
b = StateGraph(D)
b.add_node("fan", lambda s: {"log": ["fan"]})
b.add_node("x", lambda s: {"log": ["x"]}); b.add_node("y1", lambda s: {"log": ["y1"]}); b.add_node("y2", lambda s: {"log": ["y2"]})
b.add_node("join", lambda s: {"log": ["join"]}, defer=True)
b.add_edge(START, "fan"); b.add_edge("fan", "x"); b.add_edge("fan", "y1"); b.add_edge("y1", "y2")
b.add_edge("x", "join"); b.add_edge("y2", "join"); b.add_edge("join", END)
print(b.compile().invoke({"log": []}))
g = b.compile(checkpointer=InMemorySaver(), interrupt_before=["join"])
cfg = {"configurable": {"thread_id": "d"}}
print(g.invoke({"log": []}, cfg))
st = g.get_state(cfg)
print(st.next, st.interrupts)
g.update_state(cfg, {"log": ["human"]})
print(g.get_state(cfg).next)
print(g.invoke(None, cfg))
"""

SQLITE_STORE = """
from langgraph.store.sqlite import SqliteStore
with SqliteStore.from_conn_string(":memory:") as store:
    store.setup()
    store.put(("users", "u2"), "b", {"lang": "fr", "n": 5})
    store.put(("users", "u1"), "prefs", {"lang": "en", "n": 3})
    store.put(("docs",), "a", {"text": "hello"})
    store.put(("users", "u1"), "a", {"lang": "de", "n": 1})
    store.put(("users", "u2"), "b", {"lang": "fr", "n": 6})
    # a search lists the last written first, to the second: sorted here, so a second's turn
    # during the program cannot change what it prints (tests/engine/agents/test_store.py)
    print(sorted((i.namespace, i.key, str(i.value)) for i in store.search(("users",))))
    print(sorted((i.namespace, i.key) for i in store.search(())))
    print(sorted((i.namespace, i.key) for i in store.search(("users",), filter={"n": {"$gte": 3}})))
    print(store.list_namespaces(), store.list_namespaces(max_depth=1), store.list_namespaces(suffix=("u1",)))
    store.delete(("docs",), "a")
    print(store.list_namespaces())
    print(len(store.search((), limit=2)), len(store.search((), offset=1)))
    print(store.get(("users", "u2"), "b").value)
"""

EDIT_BEFORE_A_DEFERRED_NODE = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
class D(TypedDict):
    log: Annotated[list, operator.add]
def build(defer):
    b = StateGraph(D)
    b.add_node("fan", lambda s: {"log": ["fan"]})
    b.add_node("x", lambda s: {"log": ["x"]}); b.add_node("y1", lambda s: {"log": ["y1"]}); b.add_node("y2", lambda s: {"log": ["y2"]})
    b.add_node("join", lambda s: {"log": ["join"]}, defer=defer)
    b.add_edge(START, "fan"); b.add_edge("fan", "x"); b.add_edge("fan", "y1"); b.add_edge("y1", "y2")
    b.add_edge("x", "join"); b.add_edge("y2", "join"); b.add_edge("join", END)
    return b
for defer in (True, False):
    g = build(defer).compile(checkpointer=InMemorySaver(), interrupt_before=["join"])
    cfg = {"configurable": {"thread_id": "d"}}
    print(defer, g.invoke({"log": []}, cfg))
    st = g.get_state(cfg)
    print(st.next, st.metadata["step"], sorted(st.metadata.get("writes") or {}) if st.metadata.get("writes") else None)
    c = g.update_state(cfg, {"log": ["human"]})
    st = g.get_state(cfg)
    print(st.next, st.metadata)
    print(g.invoke(None, cfg))
    g2 = build(defer).compile(checkpointer=InMemorySaver(), interrupt_before=["join"])
    cfg = {"configurable": {"thread_id": "e"}}
    g2.invoke({"log": []}, cfg)
    g2.update_state(cfg, {"log": ["h2"]}, as_node="x")
    print(" as x:", g2.get_state(cfg).next, g2.invoke(None, cfg))
"""

DRAWINGS = """
import operator
from typing import Annotated, Literal
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.types import Command
from langchain.agents import create_agent
from langchain.agents.middleware import before_model, after_model, wrap_model_call, SummarizationMiddleware, HumanInTheLoopMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class S(TypedDict):
    n: int
def a(s): return {"n": 1}
def b(s) -> Command[Literal["c", END]]: return Command(goto="c")
def c(s): return {"n": 2}
def route(s) -> Literal["b", "c"]: return "b"
g = StateGraph(S)
g.add_node("a", a); g.add_node("b", b); g.add_node("c", c)
g.add_edge(START, "a"); g.add_conditional_edges("a", route); g.add_edge("c", END)
print(g.compile().get_graph().draw_mermaid())

sub = StateGraph(S); sub.add_node("inner", c); sub.add_edge(START, "inner")
p = StateGraph(S); p.add_node("outer", a); p.add_node("child", sub.compile()); p.add_edge(START, "outer"); p.add_edge("outer", "child")
print(p.compile().get_graph(xray=True).draw_mermaid())

@tool
def t(x: str) -> str:
    '''A tool.'''
    return x
class M(GenericFakeChatModel):
    def bind_tools(self, tools, **kw): return self
@before_model
def bm(state, runtime): return None
@after_model
def am(state, runtime): return None
agent = create_agent(M(messages=iter([AIMessage("x")])), tools=[t], middleware=[bm, am, HumanInTheLoopMiddleware(interrupt_on={"t": True})])
print(agent.get_graph().draw_mermaid())
print(sorted(agent.get_graph().nodes), [(e.source, e.target, e.conditional) for e in agent.get_graph().edges])
"""


def test_graph_api_programs() -> None:
    compare(GRAPH_API)


def test_functional_api_and_a_subgraphs_state() -> None:
    compare(FUNCTIONAL_AND_SUBGRAPHS)


def test_persistence_history_messages_store_and_a_deferred_node() -> None:
    compare(PERSISTENCE_MESSAGES_STORE)


def test_the_sqlite_store_of_the_docs() -> None:
    compare(SQLITE_STORE)


def test_an_edit_at_interrupt_before_a_deferred_node_keeps_it_due() -> None:
    """The user edits the state where the run waits before a deferred join (the update
    inferred as the last writer, or named): the join still runs on resume."""
    compare(EDIT_BEFORE_A_DEFERRED_NODE)


def test_mermaid_drawings_of_graphs_subgraphs_and_agents() -> None:
    compare(DRAWINGS)
