"""Structured output docs programs, real LangChain vs ported by their imports: a
``ToolStrategy`` over a union of schemas, several structured calls at once, validation errors
with each ``handle_errors`` form, a TypedDict and a JSON schema, ``tool_message_content``; a
plain answer is asked again while there are no tools, and a turn without a structured response
clears the last turn's."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

TOOL_STRATEGY = """
from typing import Union, Literal
from pydantic import BaseModel, Field
from typing_extensions import TypedDict
from dataclasses import dataclass
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy, StructuredOutputValidationError, MultipleStructuredOutputsError
from langchain.tools import tool
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append((sorted(getattr(t, "name", None) or t.get("name") or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self

class ContactInfo(BaseModel):
    '''Contact information for a person.'''
    name: str = Field(description="The name of the person")
    email: str = Field(description="The email address")

class EventDetails(BaseModel):
    '''Details of an event.'''
    event_name: str
    date: str

class Weather(TypedDict):
    '''Weather report.'''
    city: str
    temp: int

@tool
def lookup(name: str) -> str:
    '''Look up a person.'''
    return f"{name}: ada@example.com"

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [(c["name"], c["id"]) for c in getattr(m, "tool_calls", [])], getattr(m, "tool_call_id", None), getattr(m, "name", None))
    print("  structured:", repr(out.get("structured_response")))

def run(fmt, replies, tools=()):
    model = Scripted(messages=iter(replies))
    model.seen.clear()
    agent = create_agent(model, tools=list(tools), response_format=fmt)
    try:
        show(agent.invoke({"messages": [{"role": "user", "content": "go"}]}))
    except Exception as e:
        print("  RAISED", type(e).__name__, e)
    print("  bound:", model.seen)

def tc(name, args, id):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": id}])

print("== union, second schema")
run(ToolStrategy(Union[ContactInfo, EventDetails]), [tc("EventDetails", {"event_name": "Launch", "date": "May 1"}, "s1")])
print("== union, both at once (multiple outputs) then one")
run(ToolStrategy(Union[ContactInfo, EventDetails]), [
    AIMessage("", tool_calls=[{"name": "ContactInfo", "args": {"name": "A", "email": "a@x"}, "id": "m1"}, {"name": "EventDetails", "args": {"event_name": "E", "date": "d"}, "id": "m2"}]),
    tc("ContactInfo", {"name": "A", "email": "a@x"}, "m3"),
])
print("== validation error retried then ok")
run(ToolStrategy(ContactInfo), [tc("ContactInfo", {"name": "A"}, "v1"), tc("ContactInfo", {"name": "A", "email": "a@x"}, "v2")])
print("== handle_errors=False")
run(ToolStrategy(ContactInfo, handle_errors=False), [tc("ContactInfo", {"name": "A"}, "v1")])
print("== handle_errors=str")
run(ToolStrategy(ContactInfo, handle_errors="Please fix the output."), [tc("ContactInfo", {"email": 3}, "v1"), tc("ContactInfo", {"name": "B", "email": "b@x"}, "v2")])
print("== handle_errors=ValueError only (validation error is one)")
run(ToolStrategy(ContactInfo, handle_errors=ValueError), [tc("ContactInfo", {}, "v1"), tc("ContactInfo", {"name": "B", "email": "b@x"}, "v2")])
print("== handle_errors=KeyError only")
run(ToolStrategy(ContactInfo, handle_errors=(KeyError, TypeError)), [tc("ContactInfo", {}, "v1")])
print("== handle_errors callable")
def on_error(e: Exception) -> str:
    return f"custom: {type(e).__name__}"
run(ToolStrategy(ContactInfo, handle_errors=on_error), [tc("ContactInfo", {}, "v1"), tc("ContactInfo", {"name": "C", "email": "c@x"}, "v2")])
print("== typed dict and a tool first")
run(ToolStrategy(Weather), [tc("lookup", {"name": "Ada"}, "t1"), tc("Weather", {"city": "Paris", "temp": 20}, "w1")], tools=[lookup])
print("== a tool call and the structured call together")
run(ToolStrategy(ContactInfo), [AIMessage("", tool_calls=[{"name": "lookup", "args": {"name": "Ada"}, "id": "t1"}, {"name": "ContactInfo", "args": {"name": "Ada", "email": "a@x"}, "id": "c1"}]), AIMessage("after")], tools=[lookup])
print("== tool_message_content")
run(ToolStrategy(ContactInfo, tool_message_content="Saved the contact."), [tc("ContactInfo", {"name": "D", "email": "d@x"}, "c1")])
print("== json schema dict")
run(ToolStrategy({"title": "Answer", "description": "An answer.", "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}), [tc("Answer", {"text": "hi"}, "j1")])
print("== plain model class (auto)")
run(ContactInfo, [tc("ContactInfo", {"name": "E", "email": "e@x"}, "c1")])
print("== answer without calling the schema tool")
run(ToolStrategy(ContactInfo), [AIMessage("I will not"), tc("ContactInfo", {"name": "F", "email": "f@x"}, "c2")])
"""

ASKED_AGAIN_AND_CLEARED = """
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain.tools import tool
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

class Answer(BaseModel):
    text: str

@tool
def lookup(q: str) -> str:
    '''Look up.'''
    return "found " + q

def tc(name, args, id):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": id}])

model = Scripted(messages=iter([tc("Answer", {"text": "one"}, "a1"), AIMessage("plain two"), tc("lookup", {"q": "x"}, "l1"), AIMessage("plain three")]))
agent = create_agent(model, tools=[lookup], response_format=ToolStrategy(Answer), checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for turn in range(3):
    out = agent.invoke({"messages": [{"role": "user", "content": f"turn {turn}"}]}, cfg)
    print(turn, sorted(out), repr(out.get("structured_response")), [m.content for m in out["messages"][-2:]])
    st = agent.get_state(cfg)
    print("  state", sorted(st.values), st.values.get("structured_response") is None)
for h in list(agent.get_state_history(cfg))[:6]:
    print("  ", h.metadata["step"], h.next, repr(h.values.get("structured_response", "-")))
print("== no tools: plain answers are asked again")
model = Scripted(messages=iter([AIMessage("plain"), AIMessage("", invalid_tool_calls=[{"name": "Answer", "args": "{bad", "id": "i1", "error": None, "type": "invalid_tool_call"}]), tc("Answer", {"text": "ok"}, "a2")]))
agent = create_agent(model, response_format=ToolStrategy(Answer))
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
for m in out["messages"]:
    print(" ", type(m).__name__, repr(m.content), getattr(m, "tool_call_id", None), getattr(m, "status", None))
print(repr(out["structured_response"]))
"""


def test_tool_strategy_unions_errors_and_retries() -> None:
    compare(TOOL_STRATEGY)


def test_a_plain_answer_is_asked_again_and_a_turn_without_a_response_clears_it() -> None:
    compare(ASKED_AGAIN_AND_CLEARED)
