"""More docs programs, real LangGraph / LangChain vs ported by their imports: the functional
API (tasks, a retry policy, an interrupt in the entrypoint and inside tasks, ``previous`` and
``entrypoint.final``), map-reduce with ``Send`` and time travel (history, replay, a fork by
``update_state(as_node=...)``, ``Command`` routing), multi-agent handoffs with
``Command(graph=Command.PARENT)``, and middleware (model switching in ``wrap_model_call``,
``wrap_tool_call``, fallback, structured output retries, summarization, tool selection, todos)."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

FUNCTIONAL_API = """
import time
from langgraph.func import entrypoint, task
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command, RetryPolicy
from langgraph.config import get_stream_writer

@task
def write_essay(topic: str) -> str:
    return f"An essay about {topic}"

@task
def add(a: int, b: int) -> int:
    return a + b

attempts = {"n": 0}
@task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.01, jitter=False, retry_on=ValueError))
def flaky(x: int) -> int:
    attempts["n"] += 1
    if attempts["n"] < 3:
        raise ValueError("not yet")
    return x * 10

checkpointer = InMemorySaver()

@entrypoint(checkpointer=checkpointer)
def workflow(topic: str) -> dict:
    essay = write_essay(topic).result()
    writer = get_stream_writer()
    writer({"essay_len": len(essay)})
    is_approved = interrupt({"essay": essay, "action": "Please approve/reject the essay"})
    futures = [add(i, i) for i in range(3)]
    return {"essay": essay, "is_approved": is_approved, "sums": [f.result() for f in futures], "flaky": flaky(4).result()}

cfg = {"configurable": {"thread_id": "1"}}
for item in workflow.stream("cat", cfg, stream_mode=["updates", "custom"]):
    mode, data = item
    if mode == "updates" and "__interrupt__" in data:
        print(mode, [i.value for i in data["__interrupt__"]])
    else:
        print(mode, data)
# the three ``add`` tasks run in parallel: their updates come in the order they finish
items = list(workflow.stream(Command(resume=True), cfg, stream_mode="updates"))
print(sorted((i for i in items if "add" in i), key=lambda i: i["add"]))
for item in items:
    if "add" not in item:
        print(item)
print(attempts)
st = workflow.get_state(cfg)
print(st.values, st.next, st.metadata["source"], st.metadata["step"])
hist = list(workflow.get_state_history(cfg))
print([(h.metadata["source"], h.metadata["step"], h.next, [t.name for t in h.tasks]) for h in hist])

# previous and entrypoint.final
@entrypoint(checkpointer=InMemorySaver())
def accumulate(n: int, *, previous=None) -> entrypoint.final[int, int]:
    previous = previous or 0
    total = previous + n
    return entrypoint.final(value=previous, save=total)

c2 = {"configurable": {"thread_id": "acc"}}
print([accumulate.invoke(i, c2) for i in (1, 2, 3)])
print(accumulate.get_state(c2).values)

# errors
@entrypoint()
def bad(x):
    return add(x, "s").result()
try:
    bad.invoke(1)
except Exception as e:
    print("RAISED", type(e).__name__, e)

# interrupt inside a task
@task
def ask_human(q: str) -> str:
    return interrupt(q)

@entrypoint(checkpointer=InMemorySaver())
def asker(q: str) -> str:
    a = ask_human(q).result()
    b = ask_human(q + "?").result()
    return a + b

c3 = {"configurable": {"thread_id": "ask"}}
out = asker.invoke("name", c3)
print({k: [i.value for i in v] for k, v in out.items()} if isinstance(out, dict) else out)
out = asker.invoke(Command(resume="Ada"), c3)
print({k: [i.value for i in v] for k, v in out.items()} if isinstance(out, dict) else out)
print(asker.invoke(Command(resume="!"), c3))
print(len(list(asker.get_state_history(c3))))
"""

MAP_REDUCE_AND_TIME_TRAVEL = """
import operator
from typing import Annotated, Literal
from typing_extensions import TypedDict
from langgraph.graph import StateGraph, START, END
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Send, Command

class State(TypedDict):
    topic: str
    subjects: list
    jokes: Annotated[list, operator.add]
    best: str

def generate_topics(state):
    return {"subjects": [f"{state['topic']}-{i}" for i in range(3)]}

def continue_to_jokes(state):
    return [Send("generate_joke", {"subject": s}) for s in state["subjects"]]

def generate_joke(state):
    return {"jokes": [f"joke about {state['subject']}"]}

def best_joke(state):
    return {"best": state["jokes"][-1]}

g = StateGraph(State)
g.add_node("generate_topics", generate_topics)
g.add_node("generate_joke", generate_joke)
g.add_node("best_joke", best_joke)
g.add_edge(START, "generate_topics")
g.add_conditional_edges("generate_topics", continue_to_jokes, ["generate_joke"])
g.add_edge("generate_joke", "best_joke")
g.add_edge("best_joke", END)
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ch in sorted(map(str, app.stream({"topic": "animals"}, cfg))):  # parallel tasks: any order
    print(ch)
hist = list(app.get_state_history(cfg))
for h in hist:
    print(h.metadata["step"], h.metadata["source"], h.next, sorted(h.values), [(t.name, t.result) for t in h.tasks])
# replay from before best_joke
before = next(h for h in hist if h.next == ("best_joke",))
for ch in app.stream(None, before.config):
    print("replay", ch)
# fork with update_state
new_cfg = app.update_state(before.config, {"jokes": ["forked joke"]}, as_node="generate_joke")
print(app.get_state(new_cfg).values, app.get_state(new_cfg).next)
for ch in app.stream(None, new_cfg):
    print("fork", ch)
print(len(list(app.get_state_history(cfg))))
# update_state as END / no as_node errors
try:
    app.update_state(cfg, {"best": "x"}, as_node="nope")
except Exception as e:
    print("RAISED", type(e).__name__, e)
print(app.get_state(cfg).values["best"])
# Command from node: goto + update
class S2(TypedDict):
    n: int
def router(state) -> Command[Literal["a", "b"]]:
    return Command(update={"n": state["n"] + 1}, goto="a" if state["n"] % 2 else "b")
def a(state): return {"n": state["n"] * 10}
def b(state): return {"n": state["n"] * 100}
g2 = StateGraph(S2)
g2.add_node("router", router); g2.add_node("a", a); g2.add_node("b", b)
g2.add_edge(START, "router")
app2 = g2.compile()
print(app2.invoke({"n": 1}), app2.invoke({"n": 2}))
print(list(app2.get_graph().nodes), sorted((e.source, e.target, e.conditional) for e in app2.get_graph().edges))
"""

HANDOFFS = """
from typing import Annotated
from langchain.agents import create_agent, AgentState
from langchain.tools import tool, InjectedToolCallId
from langchain.messages import AIMessage, ToolMessage, HumanMessage
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.prebuilt import InjectedState
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

def make_handoff(agent_name: str):
    name = f"transfer_to_{agent_name}"
    @tool(name, description=f"Ask {agent_name} for help.")
    def handoff(state: Annotated[MessagesState, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
        msg = ToolMessage(content=f"Successfully transferred to {agent_name}", name=name, tool_call_id=tool_call_id)
        return Command(goto=agent_name, update={"messages": state["messages"] + [msg]}, graph=Command.PARENT)
    return handoff

@tool
def book_flight(dest: str) -> str:
    '''Book a flight.'''
    return f"Booked flight to {dest}"

@tool
def book_hotel(name: str) -> str:
    '''Book a hotel.'''
    return f"Booked stay at {name}"

flight_model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "book_flight", "args": {"dest": "BOS"}, "id": "f1"}]),
    AIMessage("", tool_calls=[{"name": "transfer_to_hotel_assistant", "args": {}, "id": "h0"}]),
]))
hotel_model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "book_hotel", "args": {"name": "McKittrick"}, "id": "b1"}]),
    AIMessage("All booked."),
]))
flight_assistant = create_agent(flight_model, tools=[book_flight, make_handoff("hotel_assistant")], system_prompt="flights", name="flight_assistant")
hotel_assistant = create_agent(hotel_model, tools=[book_hotel, make_handoff("flight_assistant")], system_prompt="hotels", name="hotel_assistant")

g = StateGraph(MessagesState)
g.add_node(flight_assistant)
g.add_node(hotel_assistant)
g.add_edge(START, "flight_assistant")
app = g.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for ns, chunk in app.stream({"messages": [{"role": "user", "content": "book a flight and a hotel"}]}, cfg, subgraphs=True):
    for node, upd in chunk.items():
        msgs = (upd or {}).get("messages", []) if isinstance(upd, dict) else []
        print(tuple(n.split(":")[0] for n in ns), node, [(type(m).__name__, m.content, getattr(m, "name", None)) for m in msgs][-2:])
st = app.get_state(cfg)
print([(type(m).__name__, m.content, getattr(m, "name", None)) for m in st.values["messages"]])
print(len(list(app.get_state_history(cfg))), st.next)
"""

MIDDLEWARE = """
from pydantic import BaseModel, Field
from langchain.agents import create_agent
from langchain.agents.middleware import (SummarizationMiddleware, LLMToolSelectorMiddleware, wrap_model_call,
    ModelRequest, ModelResponse, ModelFallbackMiddleware, wrap_tool_call, TodoListMiddleware)
from langchain.agents.structured_output import ToolStrategy
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    name_: str = "m"
    log: list = []
    def bind_tools(self, tools, **kw):
        self.log.append((self.name_, "bind", sorted(str(getattr(t, "name", None) or t.get("name") or t.get("title") or t.get("function", {}).get("name")) for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.log.append((self.name_, "call", [(m.type, m.content[:60] if isinstance(m.content, str) else str(m.content)[:60]) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:90], [c["name"] for c in getattr(m, "tool_calls", [])])
    print("  keys", sorted(out), repr(out.get("structured_response")))

@tool
def get_weather(city: str) -> str:
    '''Get weather.'''
    return f"sunny in {city}"
@tool
def get_time(city: str) -> str:
    '''Get time.'''
    return f"noon in {city}"
@tool
def search(q: str) -> str:
    '''Search the web.'''
    return f"found {q}"

print("== wrap_model_call switching")
basic = Scripted(name_="basic", messages=iter([AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}]), AIMessage("basic answer")]))
advanced = Scripted(name_="advanced", messages=iter([AIMessage("advanced answer"), AIMessage("adv2")]))
@wrap_model_call
def pick(request: ModelRequest, handler) -> ModelResponse:
    model = advanced if len(request.messages) > 2 else basic
    return handler(request.override(model=model))
agent = create_agent(basic, tools=[get_weather], middleware=[pick])
show(agent.invoke({"messages": [HumanMessage("weather?")]}))

print("== wrap_tool_call")
@wrap_tool_call
def guard(request, handler):
    if request.tool_call["args"].get("city") == "nyc":
        return ToolMessage(content="blocked", tool_call_id=request.tool_call["id"])
    result = handler(request)
    result.content = result.content.upper()
    return result
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "sf"}, "id": "c1"}, {"name": "get_time", "args": {"city": "nyc"}, "id": "c2"}]), AIMessage("ok")]))
show(create_agent(m, tools=[get_weather, get_time], middleware=[guard]).invoke({"messages": [HumanMessage("x")]}))

print("== fallback")
class Broken(Scripted):
    def _generate(self, *a, **k):
        raise RuntimeError("primary down")
fb = Scripted(name_="fb", messages=iter([AIMessage("from fallback")]))
show(create_agent(Broken(messages=iter([])), tools=[], middleware=[ModelFallbackMiddleware(fb)]).invoke({"messages": [HumanMessage("x")]}))

print("== structured")
class Weather(BaseModel):
    '''Weather report.'''
    city: str = Field(description="the city")
    temp: int
m = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "sf"}, "id": "w1"}]),
    AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "sf", "temp": 20}, "id": "w2"}]),
]))
show(create_agent(m, tools=[], response_format=ToolStrategy(Weather)).invoke({"messages": [HumanMessage("w?")]}))
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "sf", "temp": 1}, "id": "w1"}, {"name": "Weather", "args": {"city": "la", "temp": 2}, "id": "w2"}]), AIMessage("", tool_calls=[{"name": "Weather", "args": {"city": "sf", "temp": 1}, "id": "w3"}])]))
show(create_agent(m, tools=[], response_format=ToolStrategy(Weather)).invoke({"messages": [HumanMessage("w?")]}))

print("== summarization")
summ = Scripted(name_="summ", messages=iter([AIMessage("SUMMARY OF EARLIER"), AIMessage("SUMMARY 2")]))
main = Scripted(name_="main", messages=iter([AIMessage(f"reply {i}") for i in range(10)]))
agent = create_agent(main, tools=[], checkpointer=InMemorySaver(), middleware=[SummarizationMiddleware(model=summ, trigger=("messages", 6), keep=("messages", 2))])
cfg = {"configurable": {"thread_id": "s"}}
for i in range(5):
    out = agent.invoke({"messages": [HumanMessage(f"question {i} " + "word " * 5)]}, cfg)
    print(i, [(type(m).__name__, m.content[:40]) for m in out["messages"]])

print("== tool selector")
sel = Scripted(name_="sel", messages=iter([AIMessage("", tool_calls=[{"name": "ToolSelectionResponse", "args": {"tools": ["get_time", "search"]}, "id": "s1"}])]))
main = Scripted(name_="main2", messages=iter([AIMessage("picked")]))
agent = create_agent(main, tools=[get_weather, get_time, search], middleware=[LLMToolSelectorMiddleware(model=sel, max_tools=1, always_include=["get_weather"])])
try:
    show(agent.invoke({"messages": [HumanMessage("what time")]}))
except Exception as e:
    print("RAISED", type(e).__name__, e)

print("== todo")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]}, "id": "t1"}]), AIMessage("planned")]))
out = create_agent(m, tools=[], middleware=[TodoListMiddleware()]).invoke({"messages": [HumanMessage("plan")]})
show(out)
print(out.get("todos"))

for entry in Scripted.model_fields["log"].default:
    print(entry)
"""


def test_the_functional_api() -> None:
    compare(FUNCTIONAL_API)


def test_map_reduce_and_time_travel() -> None:
    compare(MAP_REDUCE_AND_TIME_TRAVEL)


def test_multi_agent_handoffs() -> None:
    compare(HANDOFFS)


def test_middleware_programs() -> None:
    compare(MIDDLEWARE)
