"""Docs programs, real LangChain vs ported by their imports vs attached: guardrails
(``before_agent`` / ``after_agent`` hooks jumping to the end: an ``after_agent`` jump to "end"
runs the ``after_agent`` chain again from its first node, as LangChain wires it), tools' own
error handling (``handle_tool_error`` / ``handle_validation_error``, in an agent and called
directly) with ``return_direct``, artifacts, injected state and call ids; errors a program
meets (a hook writing an unknown key, an undeclared or impossible jump, a jump to no known place, a tool's ``Command`` without its
``ToolMessage``, a validator's error in structured output, duplicate middleware).
Structured output's own errors and strategies are in ``test_structured_error_programs.py``."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

GUARDRAILS = r"""
from typing import Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import before_agent, after_agent, before_model, after_model, hook_config, AgentMiddleware
from langchain.messages import AIMessage, HumanMessage
from langchain.tools import tool
from langgraph.runtime import Runtime
from langgraph.checkpoint.memory import InMemorySaver
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


@tool
def search(q: str) -> str:
    '''Search.'''
    return f"found {q}"

class ContentFilterMiddleware(AgentMiddleware):
    def __init__(self, banned_keywords: list[str]):
        super().__init__()
        self.banned_keywords = [k.lower() for k in banned_keywords]

    @hook_config(can_jump_to=["end"])
    def before_agent(self, state: AgentState, runtime: Runtime) -> dict[str, Any] | None:
        if not state["messages"]:
            return None
        first = state["messages"][0]
        if first.type != "human":
            return None
        content = first.content.lower()
        for kw in self.banned_keywords:
            if kw in content:
                return {"messages": [{"role": "assistant", "content": "I cannot process requests containing inappropriate content."}], "jump_to": "end"}
        return None

class SafetyGuardrailMiddleware(AgentMiddleware):
    @hook_config(can_jump_to=["end"])
    def after_agent(self, state: AgentState, runtime: Runtime) -> dict[str, Any] | None:
        last = state["messages"][-1]
        if "unsafe" in str(last.content):
            last.content = "I cannot provide that response."
            return {"messages": [last], "jump_to": "end"}
        return None

@after_model(can_jump_to=["end"])
def check_output(state: AgentState, runtime: Runtime):
    last = state["messages"][-1]
    print("after_model sees", type(last).__name__, repr(last.content))
    if "STOP" in last.content:
        return {"messages": [AIMessage("stopped by guard")], "jump_to": "end"}
    return None

@before_model(can_jump_to=["end", "tools"])
def count(state: AgentState, runtime: Runtime):
    print("before_model", len(state["messages"]))
    return None

for i, (q, script) in enumerate([
    ("how to hack a server", [AIMessage("never called")]),
    ("hello", [AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "c1"}]), AIMessage("this is unsafe")]),
    ("stop please", [AIMessage("STOP now", tool_calls=[{"name": "search", "args": {"q": "y"}, "id": "c2"}])]),
    ("fine", [AIMessage("all good")]),
]):
    model = Scripted(messages=iter(script))
    agent = create_agent(model, tools=[search], middleware=[ContentFilterMiddleware(["hack", "exploit"]), SafetyGuardrailMiddleware(), check_output, count], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": str(i)}}
    print("==", q)
    for chunk in agent.stream({"messages": [{"role": "user", "content": q}]}, cfg, stream_mode="updates"):
        for node, upd in chunk.items():
            print(" upd", node, None if upd is None else {k: ([(type(m).__name__, m.content if hasattr(m, 'content') else m) for m in v] if k == "messages" else v) for k, v in upd.items()})
    st = agent.get_state(cfg)
    show(st.values)
    print("  next", st.next, st.metadata["step"])
print(sorted(agent.get_graph().nodes))
print(sorted((e.source, e.target, e.conditional) for e in agent.get_graph().edges))
"""

TOOLS_IN_AN_AGENT = r"""
from typing import Annotated, Literal
from pydantic import BaseModel, Field
from langchain.agents import create_agent
from langchain.tools import tool, ToolException, InjectedToolCallId, InjectedState
from langchain.messages import AIMessage, ToolMessage
from langgraph.types import Command
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


class WeatherInput(BaseModel):
    '''Input for weather queries.'''
    location: str = Field(description="City name or coordinates")
    units: Literal["celsius", "fahrenheit"] = Field(default="celsius", description="Temperature unit preference")
    include_forecast: bool = Field(default=False, description="Include 5-day forecast")

@tool(args_schema=WeatherInput)
def get_weather(location: str, units: str = "celsius", include_forecast: bool = False) -> str:
    '''Get current weather and optional forecast.'''
    temp = 22 if units == "celsius" else 72
    result = f"Current weather in {location}: {temp} degrees {units[0].upper()}"
    if include_forecast:
        result += "\nNext 5 days: Sunny"
    return result

print(get_weather.name, get_weather.description, get_weather.args)

@tool("calculator", description="Performs arithmetic calculations. Use this for any math problems.")
def calc(expression: str) -> str:
    '''Evaluate mathematical expressions.'''
    return str(eval(expression))
print(calc.name, calc.description, calc.args)

@tool(return_direct=True)
def final_answer(answer: str) -> str:
    '''Give the final answer.'''
    return f"FINAL: {answer}"

@tool(response_format="content_and_artifact")
def retrieve(query: str) -> tuple[str, list[dict]]:
    '''Retrieve docs.'''
    docs = [{"id": 1, "text": f"doc about {query}"}]
    return f"{len(docs)} docs", docs

@tool
def flaky(x: int) -> str:
    '''Always fails.'''
    raise ToolException(f"bad x {x}")

def custom_handler(e: ToolException) -> str:
    return f"handled: {e}"
@tool
def flaky2(x: int) -> str:
    '''Also fails.'''
    raise ToolException("boom")
flaky2.handle_tool_error = custom_handler
@tool
def flaky3(x: int) -> str:
    '''Fails with a message.'''
    raise ToolException("boom3")
flaky3.handle_tool_error = "Tool failed, try again."

@tool
def update_name(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    '''Update the user name.'''
    return Command(update={"messages": [ToolMessage(f"name set to {name}", tool_call_id=tool_call_id)]})

@tool
def count_msgs(state: Annotated[dict, InjectedState]) -> str:
    '''Count messages.'''
    return f"{len(state['messages'])} messages"

@tool
def last_msg(messages: Annotated[list, InjectedState("messages")]) -> str:
    '''Last message.'''
    return str(messages[-1].content)[:40]

flaky.handle_tool_error = True
for t in [final_answer, retrieve, flaky, update_name, count_msgs, last_msg]:
    print(t.name, sorted(t.args), t.return_direct, t.response_format)

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "retrieve", "args": {"query": "cats"}, "id": "a1"}, {"name": "flaky", "args": {"x": 3}, "id": "a2"}, {"name": "update_name", "args": {"name": "Ann"}, "id": "a3"}, {"name": "flaky2", "args": {"x": 1}, "id": "a4"}, {"name": "flaky3", "args": {"x": 1}, "id": "a5"}]),
    AIMessage("", tool_calls=[{"name": "count_msgs", "args": {}, "id": "b1"}, {"name": "last_msg", "args": {}, "id": "b2"}, {"name": "get_weather", "args": {"location": "Paris", "include_forecast": True}, "id": "b3"}, {"name": "calculator", "args": {"expression": "2*21"}, "id": "b4"}]),
    AIMessage("", tool_calls=[{"name": "final_answer", "args": {"answer": "42"}, "id": "c1"}]),
    AIMessage("never"),
]))
agent = create_agent(model, tools=[get_weather, calc, final_answer, retrieve, flaky, flaky2, flaky3, update_name, count_msgs, last_msg])
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
show(out)
for m in out["messages"]:
    if m.type == "tool":
        print(m.name, repr(m.artifact), m.status)
for s in model.seen:
    print(s)
"""

TOOLS_CALLED_DIRECTLY = r"""
from pydantic import BaseModel, Field
from langchain.tools import tool, ToolException
from langchain_core.tools import StructuredTool

@tool
def divide(a: int, b: int) -> float:
    '''Divide a by b.'''
    if b == 0:
        raise ToolException("Cannot divide by zero")
    return a / b
divide.handle_tool_error = True
print(repr(divide.invoke({"a": 4, "b": 0})))
print(repr(divide.invoke({"a": 4, "b": 2})))
m = divide.invoke({"type": "tool_call", "name": "divide", "args": {"a": 1, "b": 0}, "id": "c1"})
print(type(m).__name__, repr(m.content), m.status, m.name, m.tool_call_id)
divide.handle_tool_error = lambda e: f"Oops: {e}"
print(repr(divide.invoke({"a": 4, "b": 0})))
divide.handle_tool_error = "fixed text"
print(repr(divide.invoke({"a": 4, "b": 0})))
divide.handle_tool_error = False
try:
    divide.invoke({"a": 4, "b": 0})
except Exception as e:
    print("RAISED", type(e).__name__, e)
divide.handle_validation_error = True
print(repr(divide.invoke({"a": "x", "b": 1})))
divide.handle_validation_error = "Bad input"
print(repr(divide.invoke({"a": "x", "b": 1})))
"""

AGENT_ERRORS = r"""
from typing import Any
from pydantic import BaseModel, field_validator
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import before_model, after_model, wrap_model_call, AgentMiddleware, before_agent
from langchain.agents.structured_output import ToolStrategy
from langchain.messages import AIMessage
from langchain.tools import tool
from langgraph.types import Command
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

def plain_function(city: str, days: int = 3) -> str:
    '''Get a forecast for a city.'''
    return f"{city}:{days}"

def run(label, make):
    print("==", label)
    try:
        agent = make()
        out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
        show(out)
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:400])

run("plain function tool", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "plain_function", "args": {"city": "P"}, "id": "p"}]), AIMessage("ok")])), tools=[plain_function]))

@before_model
def bad_key(state, runtime):
    return {"not_a_key": 1}
run("hook writes unknown key", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[bad_key]))

@before_model
def jump_undeclared(state, runtime):
    return {"jump_to": "end"}
run("undeclared jump", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[jump_undeclared]))

@before_model(can_jump_to=["tools"])
def jump_tools_no_tools(state, runtime):
    return {"jump_to": "tools"}
run("jump to tools without tools", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[jump_tools_no_tools]))

@tool
def no_message(x: int, ) -> Command:
    '''Returns a command without a ToolMessage.'''
    return Command(update={"messages": []})
run("command without tool message", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "no_message", "args": {"x": 1}, "id": "n"}]), AIMessage("ok")])), tools=[no_message]))

@wrap_model_call
def returns_str(request, handler):
    handler(request)
    return "just a string"
# (a wrapper returning a str: LangChain fails with AttributeError on 'result', the engine
# with a TypeError naming what a wrapper may return - left as it is)

@wrap_model_call
def returns_ai(request, handler):
    return AIMessage("short-circuit")
run("wrapper returns an AIMessage", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[returns_ai]))

class Rating(BaseModel):
    score: int
    @field_validator("score")
    @classmethod
    def in_range(cls, v):
        if not 0 <= v <= 10:
            raise ValueError("score must be between 0 and 10")
        return v
run("field validator", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "Rating", "args": {"score": 11}, "id": "r1"}]), AIMessage("", tool_calls=[{"name": "Rating", "args": {"score": 5}, "id": "r2"}])])), tools=[], response_format=ToolStrategy(Rating)))

class M1(AgentMiddleware):
    pass
run("duplicate middleware", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[M1(), M1()]))

@tool
def Rating2(x: int) -> str:
    '''Dup.'''
    return "x"
run("unknown tool called", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "ghost", "args": {}, "id": "g"}]), AIMessage("ok")])), tools=[Rating2]))
run("tool args missing", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "plain_function", "args": {"days": "many"}, "id": "p"}]), AIMessage("ok")])), tools=[plain_function]))

@before_agent
def bad_return(state, runtime):
    return "nope"
run("hook returns a string", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[bad_return]))
"""

JUMPS = r"""
from langchain.agents import create_agent
from langchain.agents.middleware import before_model, after_model, before_agent
from langchain.messages import AIMessage
from langchain.tools import tool
from langgraph.types import Command
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

@tool
def t(x: int) -> str:
    '''T.'''
    return "t"

@tool
def no_message(x: int) -> Command:
    '''Returns a command without a ToolMessage.'''
    return Command(update={"messages": []})

def run(label, make):
    print("==", label)
    try:
        agent = make()
        out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
        show(out)
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:400])

@before_model(can_jump_to=["end"])
def jump_foo(state, runtime):
    return {"jump_to": "foo"}
run("unknown runtime jump", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[t], middleware=[jump_foo]))

@before_model(can_jump_to=["model"])
def jump_model(state, runtime):
    if len(state["messages"]) < 3:
        return {"jump_to": "model"}
# (a loop-entry hook jumping to "model": LangChain raises KeyError on its own node name; the
# engine goes to the model - left as it is)

@before_agent(can_jump_to=["model", "tools"])
def ba_jump(state, runtime):
    return {"jump_to": "tools", "messages": [AIMessage("", tool_calls=[{"name": "t", "args": {"x": 1}, "id": "bj"}])]}
run("before_agent jumps to tools", lambda: create_agent(Scripted(messages=iter([AIMessage("after tools")])), tools=[t], middleware=[ba_jump]))

@after_model(can_jump_to=["model"])
def am_again(state, runtime):
    if state["messages"][-1].content == "first":
        return {"jump_to": "model"}
run("after_model jumps to model", lambda: create_agent(Scripted(messages=iter([AIMessage("first"), AIMessage("second")])), tools=[t], middleware=[am_again]))

@before_model(can_jump_to=["tools"])
def jump_tools_no_tools(state, runtime):
    return {"jump_to": "tools"}
run("jump to tools without tools", lambda: create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[jump_tools_no_tools]))
run("command without tool message", lambda: create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "no_message", "args": {"x": 1}, "id": "n"}]), AIMessage("ok")])), tools=[no_message]))
"""


def test_guardrails_jump_to_the_end_from_agent_hooks() -> None:
    compare(GUARDRAILS)


def test_tools_handle_their_own_errors_in_an_agent() -> None:
    compare(TOOLS_IN_AN_AGENT)


def test_tools_handle_their_own_errors_when_called_directly() -> None:
    compare(TOOLS_CALLED_DIRECTLY)


def test_agent_construction_and_run_errors() -> None:
    compare(AGENT_ERRORS)


def test_hook_jumps_and_their_errors() -> None:
    compare(JUMPS)
