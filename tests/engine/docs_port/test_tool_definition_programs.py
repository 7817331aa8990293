"""Docs programs of LangChain tool definitions, real vs ported: ``parse_docstring`` (its
description, argument descriptions and the invalid-docstring error), ``tool.args`` as LangChain
shows them (titles kept, injected parameters hidden), a pydantic ``args_schema``, a name and
description given, ``content_and_artifact``, ``return_direct``, validation errors listed one a
line, a tool that raises, an unknown tool.

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
