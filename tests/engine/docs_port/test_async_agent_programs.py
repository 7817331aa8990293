"""Async docs programs of ``create_agent``, real vs ported (and attached): async tools with
``ToolRuntime``, async hooks and wrappers, a tool call overridden, a wrapper returning a
``Command``, ``ToolRetryMiddleware`` on one tool; and the errors a sync ``invoke`` of
async-only middleware raises (a class hook and a decorated one)."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

ASYNC_AGENT = """
import asyncio
from typing import Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import AgentMiddleware, wrap_tool_call, wrap_model_call, before_model, ToolRetryMiddleware
from langchain.messages import AIMessage, ToolMessage
from langchain.tools import tool, ToolRuntime
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
@tool
async def fetch(url: str, runtime: ToolRuntime) -> str:
    '''Fetch a URL.'''
    await asyncio.sleep(0)
    return f"page {url} for {runtime.context}"

attempts = {"n": 0}
@tool
async def flaky(x: int) -> str:
    '''Sometimes fails.'''
    attempts["n"] += 1
    if attempts["n"] < 3:
        raise ConnectionError(f"try {attempts['n']}")
    return f"ok {x}"

class Async(AgentMiddleware):
    async def abefore_model(self, state, runtime):
        print("abefore_model", len(state["messages"]))
        return None
    async def awrap_model_call(self, request, handler):
        print("awrap_model_call", [t.name for t in request.tools])
        return await handler(request)
    async def awrap_tool_call(self, request, handler):
        print("awrap_tool_call", request.tool_call["name"], request.runtime.context)
        if request.tool_call["name"] == "fetch":
            req = request.override(tool_call={**request.tool_call, "args": {"url": "https://override"}})
            return await handler(req)
        return await handler(request)

@wrap_tool_call
async def to_command(request, handler):
    result = await handler(request)
    if request.tool_call["name"] == "flaky":
        return Command(update={"messages": [result], "flaky_done": True})
    return result

class State(AgentState):
    flaky_done: bool

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "fetch", "args": {"url": "a"}, "id": "f1"}, {"name": "flaky", "args": {"x": 7}, "id": "k1"}]),
    AIMessage("done"),
    AIMessage("again done"),
]))
agent = create_agent(model, tools=[fetch, flaky], state_schema=State, middleware=[Async(), to_command, ToolRetryMiddleware(max_retries=3, initial_delay=0, retry_on=(ConnectionError,), tools=["flaky"])])
async def main():
    out = await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]}, context={"user": "u"})
    for m in out["messages"]:
        print(m.type, repr(m.content), getattr(m, "status", None))
    print(out.get("flaky_done"), attempts)
    async for mode, chunk in agent.astream({"messages": [{"role": "user", "content": "again"}]}, stream_mode=["updates"], context={"user": "v"}):
        print(mode, list(chunk))
try:
    asyncio.run(main())
except Exception as e:
    print("ERR", type(e).__name__, e)
"""


def test_async_tools_hooks_wrappers_and_tool_retries() -> None:
    compare(ASYNC_AGENT)


SYNC_CALL_OF_ASYNC_ONLY = """
import asyncio
from typing import Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import AgentMiddleware, wrap_tool_call, wrap_model_call, before_model, ToolRetryMiddleware
from langchain.messages import AIMessage, ToolMessage
from langchain.tools import tool, ToolRuntime
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
attempts = {"n": 0}
@tool
async def flaky(x: int) -> str:
    '''Sometimes fails.'''
    attempts["n"] += 1
    if attempts["n"] < 3:
        raise ConnectionError(f"try {attempts['n']}")
    return f"ok {x}"

class Async(AgentMiddleware):
    async def abefore_model(self, state, runtime):
        print("abefore_model", len(state["messages"]))
        return None
    async def awrap_model_call(self, request, handler):
        print("awrap_model_call", [t.name for t in request.tools])
        return await handler(request)
    async def awrap_tool_call(self, request, handler):
        print("awrap_tool_call", request.tool_call["name"], request.runtime.context)
        if request.tool_call["name"] == "fetch":
            req = request.override(tool_call={**request.tool_call, "args": {"url": "https://override"}})
            return await handler(req)
        return await handler(request)

print("== sync invoke of async-only middleware")
class AsyncWrapModel(AgentMiddleware):
    async def awrap_model_call(self, request, handler):
        return await handler(request)
class AsyncWrapTool(AgentMiddleware):
    async def awrap_tool_call(self, request, handler):
        return await handler(request)
for mw in [AsyncWrapModel(), AsyncWrapTool()]:
    m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "flaky", "args": {"x": 1}, "id": "z"}]), AIMessage("x")]))
    agent = create_agent(m, tools=[flaky], middleware=[mw])
    try:
        print(agent.invoke({"messages": [{"role": "user", "content": "go"}]})["messages"][-1].content)
    except Exception as e:
        print("ERR", type(e).__name__, e)
agent = create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[Async()])
try:
    print(agent.invoke({"messages": [{"role": "user", "content": "go"}]})["messages"][-1].content)
except Exception as e:
    print("ERR", type(e).__name__, e)
@before_model
async def only_async(state, runtime) -> None:
    return None
agent = create_agent(Scripted(messages=iter([AIMessage("x")])), tools=[], middleware=[only_async])
try:
    agent.invoke({"messages": [{"role": "user", "content": "go"}]})
except Exception as e:
    print("ERR", type(e).__name__, repr(str(e)))
"""


def test_a_sync_call_of_async_only_middleware_raises_langchains_errors() -> None:
    # attach runs the app's async-only hooks and wrappers under a sync invoke where
    # LangGraph raises (attach drives the real nodes through their async path)
    compare(SYNC_CALL_OF_ASYNC_ONLY, attached=False)
