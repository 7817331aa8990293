"""Docs programs of LangGraph's graph API (schemas, private state, ``Overwrite``, managed
``RemainingSteps`` read by a routing function, the custom stream writer, retry policies,
``Command``, durability, history), LangChain's agent API (a custom state, a tool returning a
``Command`` with its ``ToolMessage``, ``ToolRuntime``, a dynamic prompt, hooks that jump, class
middleware with its own state) and the functional API (``entrypoint.final``, tasks and
interrupts, a subgraph's state), each run on the real libraries and ported (``port.compare``)."""

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


def test_graph_api_programs() -> None:
    compare(GRAPH_API)


def test_agent_api_programs() -> None:
    compare(AGENT_API)


def test_functional_api_and_a_subgraphs_state() -> None:
    compare(FUNCTIONAL_AND_SUBGRAPHS)
