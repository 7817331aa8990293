"""Docs programs, real LangChain vs ported by their imports vs attached: structured output
errors (answered with LangChain's default status), structured output mixed with tool calls and
schema kinds, and the strategy a bare schema gets: the provider's when a langchain_core model's
profile says it has native structured output, as LangChain decides."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

STRUCTURED_ERRORS = r"""
from typing import Union
from pydantic import BaseModel, Field
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy, ProviderStrategy, StructuredOutputValidationError, MultipleStructuredOutputsError
from langchain.messages import AIMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))


class ProductRating(BaseModel):
    rating: int | None = Field(description="Rating from 1-5", ge=1, le=5)
    comment: str = Field(description="Review comment")

class ContactInfo(BaseModel):
    name: str = Field(description="Person's name")
    email: str = Field(description="Email address")

class EventDetails(BaseModel):
    event_name: str
    date: str

def tc(name, args, id):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": id}])

cases = [
    ("default", ToolStrategy(ProductRating), [tc("ProductRating", {"rating": 10, "comment": "Amazing"}, "x1"), tc("ProductRating", {"rating": 5, "comment": "Amazing"}, "x2")]),
    ("string", ToolStrategy(ProductRating, handle_errors="Please provide a valid rating between 1-5 and include a comment."), [tc("ProductRating", {"rating": 10, "comment": "A"}, "y1"), tc("ProductRating", {"rating": 4, "comment": "A"}, "y2")]),
    ("only ValueError", ToolStrategy(ProductRating, handle_errors=ValueError), [tc("ProductRating", {"rating": 10, "comment": "A"}, "z1")]),
    ("tuple", ToolStrategy(ProductRating, handle_errors=(ValueError, TypeError)), [tc("ProductRating", {"rating": 10, "comment": "A"}, "z1")]),
    ("callable", ToolStrategy(ProductRating, handle_errors=lambda e: f"Custom: {type(e).__name__}"), [tc("ProductRating", {"comment": "A"}, "w1"), tc("ProductRating", {"rating": 2, "comment": "A"}, "w2")]),
    ("False", ToolStrategy(ProductRating, handle_errors=False), [tc("ProductRating", {"rating": 10, "comment": "A"}, "v1")]),
    ("union multiple", ToolStrategy(Union[ContactInfo, EventDetails]), [AIMessage("", tool_calls=[{"name": "ContactInfo", "args": {"name": "J", "email": "j@x"}, "id": "m1"}, {"name": "EventDetails", "args": {"event_name": "C", "date": "M"}, "id": "m2"}]), tc("ContactInfo", {"name": "J", "email": "j@x"}, "m3")]),
    ("multiple False", ToolStrategy(Union[ContactInfo, EventDetails], handle_errors=False), [AIMessage("", tool_calls=[{"name": "ContactInfo", "args": {"name": "J", "email": "j@x"}, "id": "m1"}, {"name": "EventDetails", "args": {"event_name": "C", "date": "M"}, "id": "m2"}])]),
    ("tool_message_content", ToolStrategy(ContactInfo, tool_message_content="Contact saved!"), [tc("ContactInfo", {"name": "J", "email": "j@x"}, "t1")]),
    ("provider", ProviderStrategy(ContactInfo), [AIMessage('{"name": "P", "email": "p@x"}')]),
    ("provider bad", ProviderStrategy(ContactInfo), [AIMessage('{"name": "P"}')]),
    ("bare schema", ContactInfo, [tc("ContactInfo", {"name": "J", "email": "j@x"}, "b1")]),
]
for name, fmt, script in cases:
    print("==", name)
    model = Scripted(messages=iter(script))
    model.seen.clear()
    agent = create_agent(model, tools=[], response_format=fmt)
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "Parse this"}]})
        show(out)
        print("  structured", repr(out.get("structured_response")))
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:400])
    print("  seen", [s[0] if s[0] == "call" else s for s in model.seen])
"""


STRUCTURED_MIXED = r"""
from pydantic import BaseModel, Field
from dataclasses import dataclass
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy, StructuredOutputValidationError
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))

class Weather(BaseModel):
    '''Weather report.'''
    temperature: float = Field(description="deg C")
    condition: str

@dataclass
class Pt:
    '''A point.'''
    x: int
    y: int

class TD(TypedDict):
    '''A typed dict answer.'''
    a: int
    b: str

@tool
def lookup(city: str) -> str:
    '''Look up.'''
    return f"{city}: sunny"

def tc(*calls):
    return AIMessage("", tool_calls=[{"name": n, "args": a, "id": i} for n, a, i in calls])

class MyErr(Exception):
    pass

def handler(e: Exception) -> str:
    if isinstance(e, StructuredOutputValidationError):
        return f"validation for {e.tool_name}: fix it"
    return "other"

for label, fmt, script in [
    ("mixed bad", ToolStrategy(Weather), [tc(("lookup", {"city": "P"}, "a"), ("Weather", {"temperature": "hot", "condition": "s"}, "b")), tc(("Weather", {"temperature": 3, "condition": "s"}, "c"))]),
    ("mixed good", ToolStrategy(Weather), [tc(("lookup", {"city": "P"}, "a"), ("Weather", {"temperature": 5, "condition": "s"}, "b"))]),
    ("dataclass", ToolStrategy(Pt), [tc(("Pt", {"x": 1, "y": "bad"}, "d")), tc(("Pt", {"x": 1, "y": 2}, "e"))]),
    ("typeddict", ToolStrategy(TD), [tc(("TD", {"a": 1, "b": "z"}, "f"))]),
    ("handler", ToolStrategy(Weather, handle_errors=handler), [tc(("Weather", {"condition": "s"}, "g")), tc(("Weather", {"temperature": 1, "condition": "s"}, "h"))]),
    ("custom type not matching", ToolStrategy(Weather, handle_errors=MyErr), [tc(("Weather", {"condition": "s"}, "g"))]),
    ("plain text then call", ToolStrategy(Weather), [AIMessage("I think sunny"), tc(("Weather", {"temperature": 1, "condition": "s"}, "h"))]),
    ("json schema", ToolStrategy({"title": "Answer", "description": "An answer.", "type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]}), [tc(("Answer", {"v": "x"}, "j")), tc(("Answer", {"v": 4}, "k"))]),
]:
    print("==", label)
    model = Scripted(messages=iter(script)); model.seen.clear()
    agent = create_agent(model, tools=[lookup], response_format=fmt)
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
        show(out)
        print("  structured", repr(out.get("structured_response")))
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:300])
    print("  calls", sum(1 for s in model.seen if s[0] == "call"), [s for s in model.seen if s[0] == "bind"][:1])
"""


PROVIDER_OR_TOOL_STRATEGY = r"""
from pydantic import BaseModel, Field
from langchain.agents import create_agent
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy, AutoStrategy
from langchain.messages import AIMessage
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind_tools", [getattr(t, "name", None) or t.get("name") or t.get("function", {}).get("name") or t.get("type") for t in tools], {k: (v if k != "response_format" else sorted(v) if isinstance(v, dict) else v) for k, v in kw.items()}))
        return self
    def bind(self, **kw):
        self.seen.append(("bind", {k: (sorted(v) if isinstance(v, dict) else v) for k, v in kw.items()}))
        return self
    def with_structured_output(self, schema, **kw):
        self.seen.append(("wso", schema, kw))
        return self

class Contact(BaseModel):
    '''Contact details.'''
    name: str = Field(description="The name")
    email: str

@tool
def lookup(name: str) -> str:
    '''Look up.'''
    return name + "@x"

for label, fmt, profile in [
    ("provider", ProviderStrategy(Contact), None),
    ("provider strict", ProviderStrategy(Contact, strict=True), None),
    ("auto, no profile", Contact, None),
    ("auto, profile", Contact, {"structured_output": True}),
    ("AutoStrategy, profile", AutoStrategy(Contact), {"structured_output": True}),
    ("json schema provider", ProviderStrategy({"title": "C", "type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}), None),
]:
    print("==", label)
    script = [AIMessage("", tool_calls=[{"name": "lookup", "args": {"name": "J"}, "id": "l1"}]),
              AIMessage('{"name": "J", "email": "j@x"}', tool_calls=[]) if "json" not in label else AIMessage('{"n": "v"}'),
              AIMessage("", tool_calls=[{"name": "Contact", "args": {"name": "J", "email": "j@x"}, "id": "c1"}])]
    kw = {"profile": profile} if profile else {}
    model = Scripted(messages=iter(script), **kw); model.seen.clear()
    agent = create_agent(model, tools=[lookup], response_format=fmt)
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "J's contact"}]})
        print(" ", [(m.type, m.content) for m in out["messages"]], repr(out.get("structured_response")))
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:300])
    for s in model.seen:
        print(" ", s)
"""


def test_structured_output_errors_and_their_answers() -> None:
    compare(STRUCTURED_ERRORS)


def test_structured_output_mixed_with_tool_calls_and_schema_kinds() -> None:
    compare(STRUCTURED_MIXED)


def test_the_auto_strategy_follows_a_langchain_models_profile() -> None:
    compare(PROVIDER_OR_TOOL_STRATEGY)
