"""Docs programs of LangGraph's graph API (schemas, private state, ``Overwrite``, managed
``RemainingSteps`` read by a routing function, the custom stream writer, retry policies,
``Command``, durability, history), LangChain's agent API (a custom state, a tool returning a
``Command`` with its ``ToolMessage``, ``ToolRuntime``, a dynamic prompt, hooks that jump, class
middleware with its own state) and the functional API (``entrypoint.final``, tasks and
interrupts, a subgraph's state), persistence (``SqliteSaver.from_conn_string``, ``list`` filters,
history filters), messages (ids, ``RemoveMessage``, ``trim_messages``), the stores (in memory and
SQLite) and an edit before a deferred node, each run on the real libraries and ported
(``port.compare``)."""

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

AGENT_API = """
from typing import Annotated, Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import dynamic_prompt, before_model, after_model, ModelRequest, AgentMiddleware, hook_config
from langchain.tools import tool, ToolRuntime, InjectedToolCallId
from langchain.messages import AIMessage, HumanMessage, ToolMessage, SystemMessage
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append([(m.type, (m.content if isinstance(m.content, str) else str(m.content))[:50]) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== custom state, tool returning Command, InjectedToolCallId")
class MyState(AgentState):
    user_name: str
    visits: int

@tool
def set_name(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    '''Remember the user's name.'''
    return Command(update={"user_name": name, "messages": [ToolMessage(f"saved {name}", tool_call_id=tool_call_id)]})

@tool
def greet(runtime: ToolRuntime) -> str:
    '''Greet the user by name.'''
    return f"hello {runtime.state['user_name']} (call {runtime.tool_call_id})"

@dynamic_prompt
def prompt(request: ModelRequest) -> str:
    return f"You talk to {request.state.get('user_name', 'someone')}."

@before_model
def count(state, runtime):
    return {"visits": state.get("visits", 0) + 1}

@after_model
@hook_config(can_jump_to=["end"])
def stop_on_bye(state, runtime):
    if state["messages"][-1].content == "bye":
        return {"jump_to": "end", "messages": [AIMessage("stopped")]}
    return None

m = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "set_name", "args": {"name": "ada"}, "id": "c1"}]),
    AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c2"}]),
    AIMessage("done"),
    AIMessage("bye"),
]))
agent = create_agent(m, tools=[set_name, greet], state_schema=MyState, middleware=[prompt, count, stop_on_bye], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
out = agent.invoke({"messages": [HumanMessage("I am ada")]}, cfg)
for msg in out["messages"]:
    print(" ", type(msg).__name__, repr(msg.content)[:80], getattr(msg, "tool_call_id", None), getattr(msg, "name", None))
print(sorted(out), out["user_name"], out["visits"])
out = agent.invoke({"messages": [HumanMessage("bye now")]}, cfg)
print([m.content for m in out["messages"]][-3:], out["visits"])
for s in Scripted.model_fields["seen"].default:
    print(" saw", s[:1], len(s))

print("== stream updates of an agent")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c9"}]), AIMessage("fin")]))
agent = create_agent(m, tools=[greet], state_schema=MyState)
for chunk in agent.stream({"messages": [HumanMessage("hi")], "user_name": "bo"}, stream_mode="updates"):
    for node, upd in chunk.items():
        print(" ", node, sorted(upd) if isinstance(upd, dict) else upd, [getattr(x, "content", x) for x in (upd or {}).get("messages", [])] if isinstance(upd, dict) else "")

print("== class middleware with state_schema and tools")
class Counter(AgentState):
    calls: int
class CountCalls(AgentMiddleware):
    state_schema = Counter
    def before_model(self, state, runtime):
        return {"calls": state.get("calls", 0) + 1}
    def wrap_tool_call(self, request, handler):
        r = handler(request)
        r.content = f"[{request.tool_call['name']}] {r.content}"
        return r
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c5"}]), AIMessage("end")]))
out = create_agent(m, tools=[greet], middleware=[CountCalls()], state_schema=MyState).invoke({"messages": [HumanMessage("x")], "user_name": "cy"})
print(out["calls"], [x.content for x in out["messages"]])

print("== usage metadata and content blocks")
m = Scripted(messages=iter([AIMessage("plain", usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})]))
out = create_agent(m, tools=[]).invoke({"messages": [HumanMessage("x")]})
last = out["messages"][-1]
print(last.usage_metadata, last.content_blocks, last.text)
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


AGENT_MIDDLEWARE = """
import os, tempfile
from dataclasses import dataclass
from langchain.agents import create_agent
from langchain.agents.middleware import ContextEditingMiddleware, ClearToolUsesEdit, FilesystemFileSearchMiddleware, wrap_model_call, ModelRequest
from langchain.tools import tool, ToolRuntime
from langchain.messages import AIMessage, HumanMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

SEEN = []
class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        SEEN.append([(m.type, (m.content if isinstance(m.content, str) else str(m.content))[:40]) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== a subagent as a tool")
sub_model = Scripted(messages=iter([AIMessage("the sub says 42")]))
subagent = create_agent(sub_model, tools=[], system_prompt="You are a calculator.", name="calc")
@tool
def ask_calc(question: str) -> str:
    '''Ask the calculator agent.'''
    out = subagent.invoke({"messages": [HumanMessage(question)]})
    return out["messages"][-1].content
main = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "ask_calc", "args": {"question": "6*7"}, "id": "q1"}]), AIMessage("It is 42.")]))
agent = create_agent(main, tools=[ask_calc], name="boss")
for mode, chunk in agent.stream({"messages": [HumanMessage("what is 6*7")]}, stream_mode=["updates"], subgraphs=False):
    print(" ", mode, {k: [getattr(m, "content", m) for m in v.get("messages", [])] if isinstance(v, dict) else v for k, v in chunk.items()})
print(SEEN[:3])

print("== context schema and runtime.context")
@dataclass
class Ctx:
    user_id: str
@tool
def whoami(runtime: ToolRuntime[Ctx]) -> str:
    '''Who am I.'''
    return f"user {runtime.context.user_id}"
@wrap_model_call
def tag(request: ModelRequest, handler):
    request = request.override(system_prompt=f"user={request.runtime.context.user_id}")
    return handler(request)
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "whoami", "args": {}, "id": "w1"}]), AIMessage("ok")]))
SEEN.clear()
out = create_agent(m, tools=[whoami], context_schema=Ctx, middleware=[tag]).invoke({"messages": [HumanMessage("who")]}, context=Ctx(user_id="u7"))
print([m.content for m in out["messages"]], SEEN[0][0])

print("== context editing")
@tool
def big(n: int) -> str:
    '''Big output.'''
    return "x" * 50 + str(n)
calls = [AIMessage("", tool_calls=[{"name": "big", "args": {"n": i}, "id": f"b{i}"}]) for i in range(4)] + [AIMessage("done")]
m = Scripted(messages=iter(calls))
SEEN.clear()
out = create_agent(m, tools=[big], middleware=[ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=60, keep=1, placeholder="[cleared]")])]).invoke({"messages": [HumanMessage("go")]})
print([m.content[:20] for m in out["messages"]])
for s in SEEN:
    print("  saw", [c for t, c in s if t == "tool"])

print("== file search")
d = tempfile.mkdtemp()
os.makedirs(os.path.join(d, "src"))
for name, text in {"src/a.py": "import os\nprint('hi')\n", "src/b.txt": "hello world\n", "README.md": "# readme\nhello\n"}.items():
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "glob_search", "args": {"pattern": "**/*.py"}, "id": "g1"}, {"name": "grep_search", "args": {"pattern": "hello"}, "id": "g2"}, {"name": "grep_search", "args": {"pattern": "hello", "output_mode": "content"}, "id": "g3"}]), AIMessage("found")]))
out = create_agent(m, tools=[], middleware=[FilesystemFileSearchMiddleware(root_path=d, use_ripgrep=False)]).invoke({"messages": [HumanMessage("find")]})
for msg in out["messages"]:
    if msg.type == "tool":
        print(" ", msg.name, repr(msg.content))
"""


SUMMARIES_RETRIES_LIMITS = """
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware, ModelCallLimitMiddleware, ToolRetryMiddleware, ModelRetryMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

SEEN = []
class Scripted(GenericFakeChatModel):
    tag: str = "m"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        SEEN.append((self.tag, len(messages), [m.type for m in messages][:3]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== summarization by tokens")
summ = Scripted(tag="summ", messages=iter([AIMessage(f"SUMMARY {i}") for i in range(10)]))
main = Scripted(tag="main", messages=iter([AIMessage(f"reply number {i} " + "blah " * i) for i in range(12)]))
agent = create_agent(main, tools=[], checkpointer=InMemorySaver(), middleware=[SummarizationMiddleware(model=summ, trigger=("tokens", 120), keep=("tokens", 40))])
cfg = {"configurable": {"thread_id": "s"}}
for i in range(8):
    out = agent.invoke({"messages": [HumanMessage(f"question {i} " + "word " * 4)]}, cfg)
    print(i, [(type(m).__name__[0], m.content[:14]) for m in out["messages"]])
print(SEEN)

print("== summarization by fraction needs a profile")
try:
    create_agent(Scripted(messages=iter([])), tools=[], middleware=[SummarizationMiddleware(model=summ, trigger=("fraction", 0.5))])
    print("built")
except Exception as e:
    print("RAISED", type(e).__name__, "profile" in str(e))  # the wording is each library's own

print("== retry with failures")
class Flaky(Scripted):
    fails: int = 2
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        if self.fails > 0:
            self.fails -= 1
            raise TimeoutError("slow")
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
attempts = []
@tool
def shaky(x: int) -> str:
    '''Shaky tool.'''
    attempts.append(x)
    if len(attempts) < 3:
        raise ConnectionError("net down")
    return "ok"
m = Flaky(messages=iter([AIMessage("", tool_calls=[{"name": "shaky", "args": {"x": 1}, "id": "s1"}]), AIMessage("fine")]))
out = create_agent(m, tools=[shaky], middleware=[ModelRetryMiddleware(max_retries=3, initial_delay=0.0, jitter=False), ToolRetryMiddleware(max_retries=3, initial_delay=0.0, jitter=False)]).invoke({"messages": [HumanMessage("go")]})
print([m.content for m in out["messages"]], attempts)
m = Flaky(fails=5, messages=iter([AIMessage("never")]))
try:
    out = create_agent(m, tools=[], middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0.0, jitter=False, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
    print([m.content for m in out["messages"]])
except Exception as e:
    print("RAISED", type(e).__name__, e)
attempts.clear()
@tool
def dead(x: int) -> str:
    '''Dead tool.'''
    attempts.append(x)
    raise ConnectionError("gone")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "dead", "args": {"x": 1}, "id": "d1"}]), AIMessage("gave up")]))
out = create_agent(m, tools=[dead], middleware=[ToolRetryMiddleware(max_retries=2, initial_delay=0.0, jitter=False, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
print([(m.type, m.content, getattr(m, "status", None)) for m in out["messages"]], attempts)

print("== model call limit")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "dead", "args": {"x": i}, "id": f"d{i}"}]) for i in range(5)]))
out = create_agent(m, tools=[dead], middleware=[ModelCallLimitMiddleware(run_limit=2, exit_behavior="end"), ToolRetryMiddleware(max_retries=0, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
print([(m.type, m.content[:60]) for m in out["messages"]])
"""


TOOL_INTERRUPTS_AND_STREAM_MODES = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage
from langgraph.types import interrupt, Command
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

print("== interrupts inside two parallel tool calls")
@tool
def book(place: str) -> str:
    '''Book a place.'''
    ok = interrupt({"confirm": place})
    return f"booked {place}" if ok == "yes" else f"skipped {place}"
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "book", "args": {"place": "paris"}, "id": "b1"}, {"name": "book", "args": {"place": "rome"}, "id": "b2"}]), AIMessage("all set")]))
agent = create_agent(m, tools=[book], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
out = agent.invoke({"messages": [HumanMessage("book")]}, cfg)
ints = out["__interrupt__"]
print(sorted(i.value["confirm"] for i in ints))
st = agent.get_state(cfg)
print(st.next, sorted(t.name for t in st.tasks), sorted(i.value["confirm"] for t in st.tasks for i in t.interrupts))
answers = {i.id: ("yes" if i.value["confirm"] == "paris" else "no") for i in ints}
out = agent.invoke(Command(resume=answers), cfg)
print([m.content for m in out["messages"]])

print("== stream modes tasks, checkpoints, debug")
class S(TypedDict):
    log: Annotated[list, operator.add]
b = StateGraph(S)
b.add_node("a", lambda s: {"log": ["a"]}); b.add_node("b", lambda s: {"log": ["b"]})
b.add_edge(START, "a"); b.add_edge("a", "b")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "m"}}
for mode, part in g.stream({"log": []}, cfg, stream_mode=["tasks", "checkpoints"]):
    if mode == "tasks":
        print(" task", sorted(part), part["name"], part.get("input"), part.get("result"), part.get("error"), part.get("interrupts"), part.get("triggers"))
    else:
        print(" checkpoint", sorted(part), part["values"], part["next"], part["metadata"]["step"], part["metadata"]["source"], [t["name"] for t in part["tasks"]])
for part in g.stream({"log": []}, {"configurable": {"thread_id": "dbg"}}, stream_mode="debug"):
    print(" debug", part["type"], part["step"], sorted(part["payload"]) if isinstance(part["payload"], dict) else part["payload"])
"""


def test_graph_api_programs() -> None:
    compare(GRAPH_API)


def test_agent_api_programs() -> None:
    compare(AGENT_API)


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


def test_a_subagent_tool_runtime_context_context_editing_and_file_search() -> None:
    """Context editing clears on the turn LangChain's does: the token estimate is the same."""
    compare(AGENT_MIDDLEWARE)


def test_summaries_by_tokens_retries_and_call_limits() -> None:
    compare(SUMMARIES_RETRIES_LIMITS)


def test_parallel_tool_interrupts_and_the_tasks_checkpoints_debug_streams() -> None:
    compare(TOOL_INTERRUPTS_AND_STREAM_MODES)
