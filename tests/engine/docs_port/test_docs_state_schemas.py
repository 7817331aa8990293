"""Docs programs of state schemas and injected parameters, run on the real libraries, ported
and attached (``port.compare``): custom reducers, a ``StreamWriter`` parameter, an entrypoint
with a writer, a context and its runtime, a pydantic state whose messages are LangChain's own
(``AnyMessage`` from langchain_core: its nodes get LangChain's messages, validated, as on
LangGraph), a ``MessagesState`` subclass; ``create_agent`` with a pydantic or dataclass
``state_schema`` (it stands in for ``AgentState``, as a TypedDict of its fields: its
``messages`` without a reducer keep role dicts, a schema without ``messages`` fails the run
as LangChain's does)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

SCHEMAS = """
import operator
from dataclasses import dataclass
from typing import Annotated, Any, Optional
from typing_extensions import TypedDict
from pydantic import BaseModel, Field, field_validator
from langgraph.graph import StateGraph, START, END, MessagesState
from langgraph.func import entrypoint, task
from langgraph.types import StreamWriter
from langgraph.runtime import Runtime
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.messages import AnyMessage, HumanMessage, AIMessage
from langgraph.graph.message import add_messages

print("== custom reducer")
def merge_dicts(a: dict, b: dict) -> dict:
    return {**a, **b}
def keep_max(a: int, b: int) -> int:
    return max(a, b)
class S(TypedDict):
    meta: Annotated[dict, merge_dicts]
    best: Annotated[int, keep_max]
b = StateGraph(S)
b.add_node("x", lambda s: {"meta": {"x": 1}, "best": 3}); b.add_node("y", lambda s: {"meta": {"y": 2}, "best": 7})
b.add_edge(START, "x"); b.add_edge(START, "y")
print(b.compile().invoke({"meta": {"start": 0}, "best": 5}))
print(b.compile().invoke({"meta": {}}))

print("== StreamWriter param")
class W(TypedDict):
    n: int
def node(state: W, writer: StreamWriter):
    writer({"custom_key": "progress"})
    return {"n": state["n"] + 1}
b = StateGraph(W); b.add_node("node", node); b.add_edge(START, "node")
for mode, chunk in b.compile().stream({"n": 0}, stream_mode=["custom", "updates"]):
    print(" ", mode, chunk)

print("== entrypoint with writer, context and runtime")
@dataclass
class Ctx:
    name: str
@entrypoint(context_schema=Ctx)
def greet(n: int, *, writer: StreamWriter, runtime: Runtime[Ctx]) -> str:
    writer(f"greeting {runtime.context.name}")
    return f"hi {runtime.context.name} x{n}"
for mode, chunk in greet.stream(2, stream_mode=["custom", "values", "updates"], context=Ctx("ann")):
    print(" ", mode, chunk)
print(greet.invoke(1, context=Ctx("bo")))

print("== pydantic state with validators and messages")
class PS(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    mood: str = "neutral"
    score: int = Field(default=0, ge=0)
    @field_validator("mood")
    @classmethod
    def lower(cls, v: str) -> str:
        return v.lower()
def respond(state: PS):
    print("  sees", type(state).__name__, state.mood, state.score, [type(m).__name__ for m in state.messages])
    return {"messages": [AIMessage("ok", id="a1")], "score": state.score + 1}
b = StateGraph(PS); b.add_node("respond", respond); b.add_edge(START, "respond")
g = b.compile()
out = g.invoke({"messages": [HumanMessage("hey", id="h1")], "mood": "HAPPY"})
print({k: ([m.content for m in v] if k == "messages" else v) for k, v in out.items()})
try:
    g.invoke({"messages": [], "score": -1})
except Exception as e:
    print("RAISED", type(e).__name__)
for chunk in g.stream({"messages": [("user", "hi")]}, stream_mode="values"):
    print(" ", {k: ([m.content for m in v] if k == "messages" else v) for k, v in chunk.items()})

print("== MessagesState subclass")
class MS(MessagesState):
    summary: str
def summarize(s: MS):
    return {"summary": f"{len(s['messages'])} messages"}
b = StateGraph(MS); b.add_node("summarize", summarize); b.add_edge(START, "summarize")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "ms"}}
g.invoke({"messages": [("user", "a")]}, cfg)
out = g.invoke({"messages": [("user", "b")]}, cfg)
print(out["summary"], [m.content for m in out["messages"]])
print(sorted(g.get_input_jsonschema()["properties"]), g.get_output_jsonschema()["required"] if "required" in g.get_output_jsonschema() else None)
"""


def test_reducers_writers_pydantic_messages_state() -> None:
    compare(SCHEMAS)


AGENT_PYDANTIC_STATE = """
from pydantic import BaseModel
from langchain.agents import create_agent, AgentState
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

class MyState(BaseModel):
    messages: list = []
    user: str = "x"

model = GenericFakeChatModel(messages=iter([AIMessage("hi")]))
try:
    agent = create_agent(model, tools=[], state_schema=MyState)
    print(sorted(agent.get_input_jsonschema()["properties"]))
    out = agent.invoke({"messages": [{"role": "user", "content": "yo"}], "user": "ann"})
    print(type(out).__name__, {k: [(type(m).__name__, m.content) for m in v] if k == "messages" else v for k, v in out.items()})
except Exception as e:
    print("ERR", type(e).__name__, e)
"""

AGENT_PYDANTIC_STATE_WITH_MIDDLEWARE = """
from typing import Annotated
from pydantic import BaseModel, Field
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, before_model
from langchain.tools import tool, ToolRuntime
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph.message import add_messages


class Prefs(BaseModel):
    messages: Annotated[list[AnyMessage], add_messages]
    user_name: str = "guest"
    visits: int = Field(default=0, description="how many times")


@tool
def greet(runtime: ToolRuntime) -> str:
    '''Greet the user.'''
    return f"hello {runtime.state.get('user_name')} ({type(runtime.state).__name__})"


@before_model
def count(state, runtime):
    print("before_model sees", type(state).__name__, sorted(state), state.get("visits"))
    return {"visits": (state.get("visits") or 0) + 1}


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c1"}]),
    AIMessage("done"),
    AIMessage("again"),
]))
agent = create_agent(model, tools=[greet], state_schema=Prefs, middleware=[count])
print(sorted(agent.get_input_jsonschema()["properties"]), sorted(agent.get_output_jsonschema()["properties"]))
out = agent.invoke({"messages": [("user", "hi")], "user_name": "ann"})
print(sorted(out), out.get("user_name"), out.get("visits"))
print([(type(m).__name__, m.content) for m in out["messages"]])
out = agent.invoke({"messages": [("user", "hi again")]})
print(sorted(out), out.get("user_name"), out.get("visits"))
try:
    agent.invoke({"messages": [("user", "x")], "visits": "many"})
    print("no validation")
except Exception as e:
    print(type(e).__name__)
"""

AGENT_STATE_WITHOUT_MESSAGES = """
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

class OnlyExtra(BaseModel):
    topic: str = "none"

model = GenericFakeChatModel(messages=iter([AIMessage("hi", id="r1"), AIMessage("again", id="r2")]))
try:
    agent = create_agent(model, tools=[], state_schema=OnlyExtra)
    print(sorted(agent.get_input_jsonschema()["properties"]), sorted(agent.get_output_jsonschema()["properties"]))
    out = agent.invoke({"messages": [("user", "yo")], "topic": "cats"})
    print(sorted(out), out.get("topic"))
except Exception as e:
    print("ERR", type(e).__name__, str(e)[:300])
"""

AGENT_TYPEDDICT_AND_DATACLASS_STATES = """
from dataclasses import dataclass, field
from typing import Annotated
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph.message import add_messages


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


class Plain(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    note: str


@dataclass
class DC:
    messages: Annotated[list[AnyMessage], add_messages] = field(default_factory=list)
    note: str = "dc"


for schema in (Plain, DC):
    model = Scripted(messages=iter([AIMessage("plain end")]))
    try:
        agent = create_agent(model, tools=[], state_schema=schema)
        print(sorted(agent.get_input_jsonschema()["properties"]), sorted(agent.get_output_jsonschema()["properties"]))
        out = agent.invoke({"messages": [("user", "q")], "note": "n"})
        print(sorted(out), out.get("structured_response"), out.get("note"), [(type(m).__name__, m.content) for m in out["messages"]])
    except Exception as e:
        print("ERR", type(e).__name__, str(e)[:200])
"""


def test_an_agents_pydantic_state_schema() -> None:
    compare(AGENT_PYDANTIC_STATE)


def test_an_agents_pydantic_state_read_by_middleware_and_tools() -> None:
    compare(AGENT_PYDANTIC_STATE_WITH_MIDDLEWARE)


def test_an_agents_state_schema_without_messages() -> None:
    compare(AGENT_STATE_WITHOUT_MESSAGES)


def test_an_agents_typeddict_and_dataclass_states_not_from_agentstate() -> None:
    compare(AGENT_TYPEDDICT_AND_DATACLASS_STATES)
