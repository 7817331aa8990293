"""Docs programs of state schemas and injected parameters, run on the real libraries, ported
and attached (``port.compare``): custom reducers, a ``StreamWriter`` parameter, an entrypoint
with a writer, a context and its runtime, a pydantic state whose messages are LangChain's own
(``AnyMessage`` from langchain_core: its nodes get LangChain's messages, validated, as on
LangGraph), a ``MessagesState`` subclass."""

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
