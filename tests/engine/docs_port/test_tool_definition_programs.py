"""Docs programs of LangChain tool definitions, real vs ported: ``parse_docstring`` (its
description, argument descriptions and the invalid-docstring error), ``tool.args`` as LangChain
shows them (titles kept, injected parameters hidden), a pydantic ``args_schema``, a name and
description given, ``content_and_artifact``, ``return_direct``, validation errors listed one a
line, a tool that raises, an unknown tool; arguments of the wrong type as the model sees them
(``ToolMessage`` text and status) and as ``handle_tool_errors`` settings raise them
(``ToolInvocationError`` with pydantic's error as its source), and a direct ``invoke`` / ``run``
raising pydantic's ``ValidationError`` "for <the tool's name>".

Known difference kept: without ``parse_docstring`` LangChain describes a tool by its whole
docstring (``Args:`` section included) and gives its arguments no descriptions, where the
engine always parses the docstring (the schemas sent to models, and their recorded hashes,
would change)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

DOCSTRINGS_AND_ARGS = """
from langchain.tools import tool
def make(**kw):
    def calc(a: int, b: int = 2) -> int:
        '''Multiply two numbers.

        More words here.

        Args:
            a: first number
            b: second number,
                continued

        Returns:
            the product
        '''
        return a * b
    return tool(**kw)(calc) if kw else tool(calc)
for kw in [{"parse_docstring": True}, {"parse_docstring": True, "description": "Custom."}]:
    t = make(**kw)
    print(kw, repr(t.description))
    print(t.args)
def bad(a: int) -> int:
    '''No args section.'''
    return a
for kw in [{"parse_docstring": True}, {"parse_docstring": True, "error_on_invalid_docstring": False}]:
    try:
        t = tool(**kw)(bad)
        print(repr(t.description), t.args)
    except Exception as e:
        print("ERR", type(e).__name__, e)
from typing import Annotated
from pydantic import BaseModel, Field
from langchain.tools import tool, ToolRuntime, InjectedToolCallId
@tool
def a(x: int, runtime: ToolRuntime) -> str:
    '''A.'''
    return ""
@tool
def b(x: int, y: list[str] | None = None, tcid: Annotated[str, InjectedToolCallId] = "") -> str:
    '''B.'''
    return ""
class In(BaseModel):
    q: str = Field(description="query")
    n: int = 3
@tool(args_schema=In)
def c(q: str, n: int = 3) -> str:
    '''C.'''
    return ""
@tool(args_schema={"type": "object", "properties": {"z": {"type": "string"}}, "required": ["z"]})
def d(z: str) -> str:
    '''D.'''
    return ""
for t in (a, b, c, d):
    print(t.name, t.args)
"""


def test_parse_docstring_and_the_args_a_tool_shows() -> None:
    compare(DOCSTRINGS_AND_ARGS)


TOOLS_IN_AN_AGENT = """
from typing import Literal
from pydantic import BaseModel, Field
from langchain.agents import create_agent
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
class WeatherInput(BaseModel):
    '''Input for weather queries.'''
    location: str = Field(description="City name or coordinates")
    units: Literal["celsius", "fahrenheit"] = Field(default="celsius", description="Temperature unit")
    include_forecast: bool = Field(default=False, description="Include 5-day forecast")

@tool(args_schema=WeatherInput)
def get_weather(location: str, units: str = "celsius", include_forecast: bool = False) -> str:
    '''Get current weather and optional forecast.'''
    temp = 22 if units == "celsius" else 72
    result = f"Current weather in {location}: {temp} degrees {units[0].upper()}"
    if include_forecast:
        result += "\\nNext 5 days: Sunny"
    return result

@tool("web_search", description="Search the web for information.")
def search(query: str) -> str:
    return f"Results for: {query}"

@tool(parse_docstring=True)
def calc(a: int, b: int) -> int:
    '''Multiply two numbers.

    Args:
        a: first number
        b: second number
    '''
    return a * b

@tool(response_format="content_and_artifact")
def fetch(n: int) -> tuple[str, list[int]]:
    '''Fetch n numbers.'''
    return f"fetched {n}", list(range(n))

@tool(return_direct=True)
def finish(answer: str) -> str:
    '''Return the final answer directly.'''
    return "FINAL: " + answer

@tool
def broken(x: int) -> str:
    '''Always fails.'''
    raise ValueError(f"bad {x}")

for t in [get_weather, search, calc, fetch, finish]:
    print(t.name, "|", t.description, "|", t.args, "|", t.return_direct, t.response_format)
    print(type(t).__name__)

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"location": "Paris", "units": "fahrenheit", "include_forecast": True}, "id": "a"},
                              {"name": "web_search", "args": {"query": "x"}, "id": "b"},
                              {"name": "calc", "args": {"a": 3, "b": "4"}, "id": "c"},
                              {"name": "fetch", "args": {"n": 3}, "id": "d"}]),
    AIMessage("", tool_calls=[{"name": "calc", "args": {"a": "x"}, "id": "e"}]),
    AIMessage("", tool_calls=[{"name": "finish", "args": {"answer": "42"}, "id": "f"}]),
    AIMessage("never"),
]))
agent = create_agent(model, tools=[get_weather, search, calc, fetch, finish, broken])
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
for m in out["messages"]:
    print(m.type, repr(m.content), getattr(m, "artifact", None), getattr(m, "status", None), getattr(m, "name", None))
print("== a tool that raises")
model = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "broken", "args": {"x": 1}, "id": "g"}]), AIMessage("after")]))
agent = create_agent(model, tools=[broken])
try:
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
    for m in out["messages"]:
        print(m.type, repr(m.content), getattr(m, "status", None))
except Exception as e:
    print("ERR", type(e).__name__, e)
print("== unknown tool")
model = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "nope", "args": {}, "id": "h"}]), AIMessage("after")]))
agent = create_agent(model, tools=[broken])
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
for m in out["messages"]:
    print(m.type, repr(m.content), getattr(m, "status", None))
"""


def test_tool_kinds_in_an_agent() -> None:
    compare(TOOLS_IN_AN_AGENT)


PREBUILT_MODULE_PATHS = """
from langgraph.prebuilt.tool_node import ToolNode, tools_condition, InjectedState, ToolRuntime
from langgraph.prebuilt.chat_agent_executor import AgentState, create_react_agent
from langgraph.prebuilt.interrupt import HumanInterrupt, HumanInterruptConfig, ActionRequest, HumanResponse
from langgraph.prebuilt import ToolNode as T2
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
print(ToolNode is T2, sorted(AgentState.__annotations__))
req = HumanInterrupt(action_request=ActionRequest(action="send", args={"to": "x"}), config=HumanInterruptConfig(allow_ignore=True, allow_respond=False, allow_edit=True, allow_accept=True), description="Send?")
print(req, HumanResponse(type="accept", args=None))
@tool
def add(a: int, b: int) -> int:
    '''Add.'''
    return a + b
agent = create_react_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 2}, "id": "2"}]), AIMessage("4")])), [add], state_schema=AgentState)
print([(m.type, m.content) for m in agent.invoke({"messages": [{"role": "user", "content": "2+2"}]})["messages"]])
"""


def test_langgraph_prebuilt_submodules_port() -> None:
    compare(PREBUILT_MODULE_PATHS)


WRONG_ARGUMENT_TYPES = """
from langchain.agents import create_agent
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.prebuilt import ToolNode


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


@tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b


@tool
def shout(text: str, times: int = 1) -> str:
    '''Shout the text.'''
    return text.upper() * times


calls = [
    {"name": "add", "args": {"a": "one", "b": 2}, "id": "c1"},
    {"name": "add", "args": {"a": 1}, "id": "c2"},
    {"name": "shout", "args": {"text": ["x"], "times": "2x"}, "id": "c3"},
    {"name": "add", "args": {"a": "3", "b": 4.0}, "id": "c4"},
]
for call in calls:
    model = Scripted(messages=iter([AIMessage("", tool_calls=[call]), AIMessage("done")]))
    agent = create_agent(model, tools=[add, shout])
    out = agent.invoke({"messages": [("user", "go")]})
    tm = out["messages"][2]
    print(type(tm).__name__, tm.status, repr(tm.content))

from langgraph.graph import START, MessagesState, StateGraph

for handle in (False, True, "bad input", (ValueError,)):
    b = StateGraph(MessagesState)
    b.add_node("tools", ToolNode([add, shout], handle_tool_errors=handle))
    b.add_edge(START, "tools")
    g = b.compile()
    for call in calls[:3]:
        try:
            res = g.invoke({"messages": [AIMessage("", tool_calls=[call])]})
            tm = res["messages"][-1]
            print(handle, tm.status, repr(tm.content))
        except Exception as e:
            print(handle, type(e).__name__, str(e))
"""

WRONG_ARGUMENTS_OF_SCHEMAS = """
from typing import Annotated
from pydantic import BaseModel, Field
from langchain.agents import create_agent
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.prebuilt import ToolNode
from langgraph.graph import START, MessagesState, StateGraph


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


class Args(BaseModel):
    city: str = Field(description="a city")
    days: int = Field(ge=1, le=7)


@tool(args_schema=Args)
def forecast(city: str, days: int) -> str:
    '''Forecast.'''
    return f"{city} {days}"


@tool
def weigh(kg: Annotated[float, "kilograms"], exact: bool = False) -> str:
    '''Weigh.'''
    return str(kg)


@tool
async def afetch(n: int) -> str:
    '''Fetch async.'''
    return str(n)


@tool(parse_docstring=True)
def lookup(ids: list[int]) -> str:
    '''Look up.

    Args:
        ids: the ids
    '''
    return str(ids)


calls = [
    {"name": "forecast", "args": {"city": "Paris", "days": 9}, "id": "c1"},
    {"name": "forecast", "args": {"city": 3, "days": "x"}, "id": "c2"},
    {"name": "weigh", "args": {"kg": "heavy", "exact": "maybe"}, "id": "c3"},
    {"name": "afetch", "args": {"n": "ten"}, "id": "c4"},
    {"name": "lookup", "args": {"ids": [1, "b", None]}, "id": "c5"},
    {"name": "lookup", "args": {"ids": "1,2"}, "id": "c6"},
    {"name": "weigh", "args": {"kg": 1, "extra": 2}, "id": "c7"},
]
for call in calls:
    model = Scripted(messages=iter([AIMessage("", tool_calls=[call]), AIMessage("done")]))
    agent = create_agent(model, tools=[forecast, weigh, afetch, lookup])
    out = agent.invoke({"messages": [("user", "go")]})
    tm = out["messages"][2]
    print(tm.status, repr(tm.content))

b = StateGraph(MessagesState)
b.add_node("tools", ToolNode([forecast, weigh, afetch, lookup], handle_tool_errors=False))
b.add_edge(START, "tools")
g = b.compile()
for call in calls:
    try:
        res = g.invoke({"messages": [AIMessage("", tool_calls=[call])]})
        print("ok", repr(res["messages"][-1].content))
    except Exception as e:
        print(type(e).__name__, type(e).__mro__[1].__name__, str(e))
"""

WRONG_ARGUMENTS_CALLED_DIRECTLY = """
import asyncio
from langchain.agents import create_agent
from langchain.tools import tool
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage


class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self


@tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b


for args in ({"a": "one", "b": 2}, {"a": 1}, {"a": 1, "b": 2, "c": 3}, {"a": "3", "b": 4.0}, {"a": 1.5, "b": 1}):
    try:
        print("invoke", add.invoke(args))
    except Exception as e:
        print("invoke", type(e).__name__, type(e).__module__, str(e).splitlines()[:3])
    try:
        print("run", add.run(args))
    except Exception as e:
        print("run", type(e).__name__, str(e).splitlines()[:3])
    try:
        print("call", add.invoke({"name": "add", "args": args, "id": "x", "type": "tool_call"}))
    except Exception as e:
        print("call", type(e).__name__, str(e).splitlines()[:3])


async def main():
    model = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "add", "args": {"a": "one", "b": 2}, "id": "c1"}]), AIMessage("done")]))
    agent = create_agent(model, tools=[add])
    out = await agent.ainvoke({"messages": [("user", "go")]})
    print(out["messages"][2].status, repr(out["messages"][2].content))
    model = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "add", "args": {"a": "one", "b": 2}, "id": "c1"}]), AIMessage("done")]))
    agent = create_agent(model, tools=[add])
    async for mode, chunk in agent.astream({"messages": [("user", "go")]}, stream_mode=["updates"]):
        for node, upd in chunk.items():
            for m in (upd or {}).get("messages", []):
                print(node, type(m).__name__, getattr(m, "status", None), repr(m.content)[:80])

asyncio.run(main())

from langgraph.prebuilt import ToolNode
from langgraph.graph import START, MessagesState, StateGraph

b = StateGraph(MessagesState)
b.add_node("tools", ToolNode([add], handle_tool_errors=False))
b.add_edge(START, "tools")
g = b.compile()
try:
    g.invoke({"messages": [AIMessage("", tool_calls=[{"name": "add", "args": {"a": "x", "b": 1}, "id": "c9"}])]})
except Exception as e:
    print(type(e).__name__, type(e.source).__name__, type(e.__cause__).__name__, e.tool_name, e.tool_kwargs)
    print(str(e.source).splitlines()[:3])
"""


def test_wrong_argument_types_as_the_model_and_the_tools_node_see_them() -> None:
    compare(WRONG_ARGUMENT_TYPES)


def test_wrong_arguments_of_schemas_docstrings_and_async_tools() -> None:
    compare(WRONG_ARGUMENTS_OF_SCHEMAS)


def test_wrong_arguments_given_to_a_tool_directly() -> None:
    compare(WRONG_ARGUMENTS_CALLED_DIRECTLY)
