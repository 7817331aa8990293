"""Docs programs, real LangChain vs ported vs attached: the run's facts in hooks and tools
(``Runtime`` and ``ToolRuntime`` fields, ``execution_info``, config metadata, async hooks),
streaming an agent (updates, custom chunks from ``get_stream_writer`` and
``runtime.stream_writer``, messages, v2 parts, values), multi-agent shapes (a subagent as a
tool, a subagent writing state through ``Command``, handoffs with ``Command.PARENT``) and
built-in middleware options (context editing, model / tool call limits per exit behaviour,
per-tool limits, todos)."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

RUNTIME = r"""
import dataclasses, asyncio
from dataclasses import dataclass
from typing_extensions import TypedDict
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import before_model, after_model, dynamic_prompt, ModelRequest, AgentMiddleware, wrap_tool_call
from langchain.messages import AIMessage
from langchain.tools import tool, ToolRuntime
from langgraph.runtime import Runtime, get_runtime
from langgraph.config import get_config
from langgraph.store.memory import InMemoryStore
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

class Context(TypedDict):
    user_name: str

@tool
def whoami(runtime: ToolRuntime[Context]) -> str:
    '''Who am I.'''
    cfg = runtime.config
    print("tool runtime", sorted(f.name for f in dataclasses.fields(runtime)), runtime.context, runtime.tool_call_id, type(runtime.store).__name__, sorted(runtime.state))
    print("tool config", cfg.get("metadata", {}).get("langgraph_node"), cfg.get("recursion_limit"), cfg["configurable"].get("thread_id"))
    info = runtime.execution_info
    print("execution info", type(info).__name__, info.thread_id, info.node_attempt, bool(info.run_id), runtime.server_info)
    return runtime.context["user_name"]

@before_model
def log_ctx(state: AgentState, runtime: Runtime[Context]):
    print("before_model", runtime.context, sorted(f.name for f in dataclasses.fields(runtime)), type(runtime.store).__name__, runtime.previous)
    cfg = get_config()
    print("  config", cfg["metadata"].get("langgraph_node"), sorted(k for k in cfg["metadata"] if not k.startswith("checkpoint")), cfg.get("tags"))
    return None

@dynamic_prompt
def prompt(request: ModelRequest) -> str:
    return f"Address the user as {request.runtime.context['user_name']}."

class Async(AgentMiddleware):
    async def abefore_model(self, state, runtime):
        print("abefore_model", runtime.context)
    async def aafter_model(self, state, runtime):
        print("aafter_model", state["messages"][-1].type)

def model():
    return Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "whoami", "args": {}, "id": "w1"}]), AIMessage("Hi John")]))

agent = create_agent(model(), tools=[whoami], middleware=[log_ctx, prompt], context_schema=Context, store=InMemoryStore(), checkpointer=InMemorySaver())
out = agent.invoke({"messages": [{"role": "user", "content": "who"}]}, {"configurable": {"thread_id": "t1"}, "tags": ["mine"], "metadata": {"k": "v"}}, context={"user_name": "John Smith"})
print([m.content for m in out["messages"]])

async def main():
    agent = create_agent(model(), tools=[whoami], middleware=[Async(), prompt], context_schema=Context)
    out = await agent.ainvoke({"messages": [{"role": "user", "content": "who"}]}, context={"user_name": "Ann"})
    print([m.content for m in out["messages"]])
    agent = create_agent(model(), tools=[whoami], middleware=[Async(), prompt], context_schema=Context)
    async for mode, chunk in agent.astream({"messages": [{"role": "user", "content": "who"}]}, context={"user_name": "Bo"}, stream_mode=["updates", "values"]):
        print(mode, sorted(chunk))
asyncio.run(main())
"""

STREAMING = r"""
from langchain.agents import create_agent
from langchain.messages import AIMessage, AIMessageChunk
from langchain.tools import tool, ToolRuntime
from langgraph.config import get_stream_writer
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
def get_weather(city: str) -> str:
    '''Get weather for a given city.'''
    writer = get_stream_writer()
    writer(f"Looking up data for city: {city}")
    writer({"progress": 50})
    return f"It's always sunny in {city}!"

@tool
def via_runtime(x: int, runtime: ToolRuntime) -> str:
    '''Uses runtime.stream_writer.'''
    runtime.stream_writer({"from_runtime": x})
    return str(x)

def make():
    return Scripted(messages=iter([
        AIMessage("Let me check", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}]),
        AIMessage("And this", tool_calls=[{"name": "via_runtime", "args": {"x": 7}, "id": "c2"}]),
        AIMessage("It's sunny in SF, enjoy the day"),
    ]))

agent = create_agent(make(), tools=[get_weather, via_runtime])
print("== updates")
for chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="updates"):
    for step, data in chunk.items():
        print(f"step: {step}")
        print(f"content: {[(type(b).__name__, b.content_blocks) for b in data['messages']]}")
print("== custom")
agent = create_agent(make(), tools=[get_weather, via_runtime])
for chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="custom"):
    print(chunk)
print("== messages")
agent = create_agent(make(), tools=[get_weather, via_runtime])
for token, metadata in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="messages"):
    print(metadata["langgraph_node"], type(token).__name__, repr(token.content), token.content_blocks, getattr(token, "tool_call_chunks", None), sorted(k for k in metadata if not k.startswith("checkpoint")))
print("== multiple")
agent = create_agent(make(), tools=[get_weather, via_runtime])
for mode, chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode=["updates", "custom"]):
    print(mode, chunk if mode == "custom" else {k: len(v["messages"]) for k, v in chunk.items()})
print("== v2")
agent = create_agent(make(), tools=[get_weather, via_runtime])
for part in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode=["updates", "custom", "messages"], version="v2"):
    print(part["type"], part["ns"], sorted(part), part["data"] if part["type"] == "custom" else type(part["data"]).__name__)
print("== values")
agent = create_agent(make(), tools=[get_weather, via_runtime])
for chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="values"):
    print(sorted(chunk), [m.type for m in chunk["messages"]])
"""

MULTI_AGENT = r"""
from typing import Annotated
from langchain.agents import create_agent, AgentState
from langchain.messages import AIMessage, ToolMessage, HumanMessage
from langchain.tools import tool, ToolRuntime, InjectedToolCallId
from langgraph.types import Command
from langgraph.graph import StateGraph, START, END
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

# subagents as tools
sub_model = Scripted(messages=iter([AIMessage("The answer is 42"), AIMessage("Second sub answer")]))
subagent = create_agent(sub_model, tools=[], name="research_agent")

@tool("research", description="Research a topic and return findings")
def call_research_agent(query: str) -> str:
    result = subagent.invoke({"messages": [{"role": "user", "content": query}]})
    return result["messages"][-1].content

@tool
def research_with_state(query: str, runtime: ToolRuntime) -> Command:
    '''Research and write state.'''
    result = subagent.invoke({"messages": [{"role": "user", "content": query}]})
    return Command(update={"messages": [ToolMessage(content=result["messages"][-1].content, tool_call_id=runtime.tool_call_id)], "notes": "from sub"})

class S(AgentState):
    notes: str

main_model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "research", "args": {"query": "meaning of life"}, "id": "t1"}]),
    AIMessage("", tool_calls=[{"name": "research_with_state", "args": {"query": "more"}, "id": "t2"}]),
    AIMessage("Done: 42"),
]))
supervisor = create_agent(main_model, tools=[call_research_agent, research_with_state], state_schema=S, name="supervisor")
for chunk in supervisor.stream({"messages": [{"role": "user", "content": "what is it"}]}, stream_mode="updates", subgraphs=True):
    ns, data = chunk
    print([n.split(":")[0] for n in ns], {k: [(type(m).__name__, m.content) for m in v["messages"]] + ([v["notes"]] if "notes" in v else []) for k, v in data.items()})
print(sub_model.seen)

# handoffs between agents as graph nodes
@tool
def transfer_to_sales(runtime: ToolRuntime) -> Command:
    '''Transfer to the sales agent.'''
    last_ai = next(m for m in reversed(runtime.state["messages"]) if isinstance(m, AIMessage))
    transfer = ToolMessage(content="Transferred to sales agent", tool_call_id=runtime.tool_call_id)
    return Command(goto="sales_agent", update={"active_agent": "sales_agent", "messages": [last_ai, transfer]}, graph=Command.PARENT)

@tool
def transfer_to_support(runtime: ToolRuntime) -> Command:
    '''Transfer to support.'''
    last_ai = next(m for m in reversed(runtime.state["messages"]) if isinstance(m, AIMessage))
    transfer = ToolMessage(content="Transferred to support agent", tool_call_id=runtime.tool_call_id)
    return Command(goto="support_agent", update={"active_agent": "support_agent", "messages": [last_ai, transfer]}, graph=Command.PARENT)

class MultiState(AgentState):
    active_agent: str

support = create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "transfer_to_sales", "args": {}, "id": "h1"}])])), tools=[transfer_to_sales], name="support")
sales = create_agent(Scripted(messages=iter([AIMessage("Sales here, buying?")])), tools=[transfer_to_support], name="sales")

def call_support(state: MultiState) -> Command:
    return support.invoke(state)
def call_sales(state: MultiState) -> Command:
    return sales.invoke(state)

def route_initial(state: MultiState) -> str:
    return state.get("active_agent") or "support_agent"
def route_after(state: MultiState):
    msgs = state.get("messages", [])
    if msgs and isinstance(msgs[-1], AIMessage) and not msgs[-1].tool_calls:
        return END
    return state.get("active_agent") or "support_agent"

b = StateGraph(MultiState)
b.add_node("support_agent", call_support)
b.add_node("sales_agent", call_sales)
b.add_conditional_edges(START, route_initial, ["support_agent", "sales_agent"])
b.add_conditional_edges("support_agent", route_after, ["sales_agent", "support_agent", END])
b.add_conditional_edges("sales_agent", route_after, ["sales_agent", "support_agent", END])
graph = b.compile()
try:
    out = graph.invoke({"messages": [HumanMessage("I want to buy")]})
    print(out.get("active_agent"), [(type(m).__name__, m.content, getattr(m, "name", None)) for m in out["messages"]])
except Exception as e:
    print("RAISED", type(e).__name__, str(e)[:300])
"""

BUILTIN_OPTIONS = r"""
from langchain.agents import create_agent
from langchain.agents.middleware import ContextEditingMiddleware, ClearToolUsesEdit, ModelCallLimitMiddleware, ToolCallLimitMiddleware, TodoListMiddleware
from langchain.messages import AIMessage
from langchain.tools import tool
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
    return "R" * 50 + q
@tool
def scrape(u: str) -> str:
    '''Scrape.'''
    return "S" * 50 + u

def calls(n, name="search"):
    return [AIMessage(f"step {i}", tool_calls=[{"name": name, "args": {"q" if name == "search" else "u": str(i)}, "id": f"{name}{i}"}]) for i in range(n)]

print("== context editing")
model = Scripted(messages=iter(calls(4) + [AIMessage("done")])); model.seen.clear()
mw = ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=30, keep=1, clear_tool_inputs=True, exclude_tools=[], placeholder="[cleared]")], token_count_method="approximate")
agent = create_agent(model, tools=[search], middleware=[mw])
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
show(out)
for s in model.seen[-2:]:
    print(s)
print("== context editing default")
mw = ContextEditingMiddleware()
e = mw.edits[0]
print(type(e).__name__, e.trigger, e.keep, e.clear_at_least, e.clear_tool_inputs, e.placeholder, mw.token_count_method)

for eb in ["end", "error"]:
    print("== model limit", eb)
    model = Scripted(messages=iter(calls(5) + [AIMessage("done")]))
    agent = create_agent(model, tools=[search], middleware=[ModelCallLimitMiddleware(thread_limit=10, run_limit=2, exit_behavior=eb)], checkpointer=InMemorySaver())
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": eb}})
        show(out)
        print({k: v for k, v in out.items() if k != "messages"})
    except Exception as e:
        print("RAISED", type(e).__name__, e)

for eb in ["continue", "end", "error"]:
    print("== tool limit", eb)
    model = Scripted(messages=iter(calls(3) + calls(2, "scrape") + [AIMessage("done")] * 3))
    lim = ToolCallLimitMiddleware(tool_name="search", run_limit=2, exit_behavior=eb)
    glob = ToolCallLimitMiddleware(thread_limit=20, run_limit=10)
    print(lim.name, glob.name)
    agent = create_agent(model, tools=[search, scrape], middleware=[glob, lim], checkpointer=InMemorySaver())
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": eb}})
        show(out)
        print({k: v for k, v in out.items() if k != "messages"})
    except Exception as e:
        print("RAISED", type(e).__name__, e)

print("== todo")
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]}, "id": "w1"}]),
    AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "completed"}, {"content": "b", "status": "in_progress"}]}, "id": "w2"}, {"name": "write_todos", "args": {"todos": []}, "id": "w3"}]),
    AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "done"}]}, "id": "w4"}]),
    AIMessage("finished"),
]))
agent = create_agent(model, tools=[search], middleware=[TodoListMiddleware(system_prompt="Use todos.", tool_description="Write todos.")])
out = agent.invoke({"messages": [{"role": "user", "content": "plan"}]})
show(out)
print(out.get("todos"))
print([s for s in model.seen if s[0] == "bind"])
"""


def test_runtime_and_tool_runtime_fields() -> None:
    compare(RUNTIME)


def test_agent_stream_modes_with_writers_in_tools() -> None:
    compare(STREAMING)


def test_subagents_as_tools_and_handoffs() -> None:
    compare(MULTI_AGENT)


def test_builtin_middleware_options() -> None:
    compare(BUILTIN_OPTIONS)
