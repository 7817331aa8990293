"""Docs walkthrough programs of ``create_agent`` that already print the same on the real
libraries, ported and attached (kept as regression tests): human-in-the-loop options, PII
detectors and strategies, short-term memory trimming and deleting, agent streaming modes,
runtime context with a store, a subagent as a tool beside an interrupting tool, and a custom
middleware class state."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

HITL_OPTIONS = """
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.messages import AIMessage
from langchain.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
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
def write_file(path: str, text: str) -> str:
    '''Write a file.'''
    return f"wrote {path}"
@tool
def execute_sql(query: str) -> str:
    '''Run SQL.'''
    return f"ran {query}"
@tool
def read_data(q: str) -> str:
    '''Read data.'''
    return "data"
def describe(tool_call, state, runtime):
    return f"Custom: {tool_call['name']} with {sorted(tool_call['args'])} ({len(state['messages'])} msgs)"
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[
        {"name": "write_file", "args": {"path": "a.txt", "text": "hi"}, "id": "w1"},
        {"name": "execute_sql", "args": {"query": "DROP"}, "id": "s1"},
        {"name": "read_data", "args": {"q": "x"}, "id": "r1"},
    ]),
    AIMessage("all done"),
]))
hitl = HumanInTheLoopMiddleware(
    interrupt_on={
        "write_file": True,
        "execute_sql": {"allowed_decisions": ["approve", "reject"], "description": describe},
        "read_data": False,
    },
    description_prefix="Tool execution pending approval",
)
agent = create_agent(model, tools=[write_file, execute_sql, read_data], middleware=[hitl], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "h"}}
out = agent.invoke({"messages": [{"role": "user", "content": "do it"}]}, cfg)
intr = out["__interrupt__"]
print(type(intr).__name__, len(intr))
for i in intr:
    print(type(i).__name__, i.value)
st = agent.get_state(cfg)
print(st.next, [t.name for t in st.tasks], [[x.value for x in t.interrupts] for t in st.tasks])
lines = []  # the tools run in parallel: their updates come in either order
for chunk in agent.stream(Command(resume={"decisions": [{"type": "edit", "edited_action": {"name": "write_file", "args": {"path": "b.txt", "text": "bye"}}}, {"type": "reject", "message": "No dropping tables."}]}), cfg, stream_mode="updates"):
    for node, upd in chunk.items():
        lines.append(f"{node} {upd if node == '__interrupt__' else (upd and [(m.type, m.content, getattr(m, 'tool_calls', None)) for m in upd.get('messages', [])])}")
print("\\n".join(sorted(lines)))
print("== bad decision type")
model2 = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "execute_sql", "args": {"query": "q"}, "id": "s2"}]), AIMessage("x")]))
agent = create_agent(model2, tools=[execute_sql], middleware=[HumanInTheLoopMiddleware(interrupt_on={"execute_sql": {"allowed_decisions": ["approve", "reject"]}})], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "h2"}}
agent.invoke({"messages": [{"role": "user", "content": "do it"}]}, cfg)
try:
    agent.invoke(Command(resume={"decisions": [{"type": "edit", "edited_action": {"name": "execute_sql", "args": {"query": "z"}}}]}), cfg)
except Exception as e:
    print("ERR", type(e).__name__, e)
try:
    agent.invoke(Command(resume={"decisions": []}), cfg)
except Exception as e:
    print("ERR", type(e).__name__, e)
"""


def test_hitl_descriptions_allowed_decisions_and_errors() -> None:
    compare(HITL_OPTIONS)


PII_OPTIONS = """
import re
from langchain.agents import create_agent
from langchain.agents.middleware import PIIMiddleware
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
def detect_ssn(content: str) -> list[dict]:
    out = []
    for m in re.finditer(r"\\d{3}-\\d{2}-\\d{4}", content):
        out.append({"text": m.group(0), "start": m.start(), "end": m.end()})
    return out
for mw in [
    PIIMiddleware("api_key", detector=r"sk-[a-zA-Z0-9]{8,}", strategy="block"),
    PIIMiddleware("ssn", detector=detect_ssn, strategy="hash"),
    PIIMiddleware("credit_card", strategy="mask"),
    PIIMiddleware("ip", strategy="redact", apply_to_output=True),
    PIIMiddleware("url", strategy="redact", apply_to_input=False, apply_to_output=True),
    PIIMiddleware("mac_address", strategy="mask", apply_to_input=True),
]:
    print("==", mw.name, mw.pii_type, mw.strategy, mw.apply_to_input, mw.apply_to_output, mw.apply_to_tool_results)
    model = Scripted(messages=iter([AIMessage("see http://x.io and 10.0.0.1, card 4111 1111 1111 1111")]))
    agent = create_agent(model, tools=[], middleware=[mw])
    try:
        out = agent.invoke({"messages": [{"role": "user", "content": "key sk-abcdefgh12 ssn 123-45-6789 card 4111-1111-1111-1111 ip 192.168.0.1 mac 00:1A:2B:3C:4D:5E url https://a.b/c"}]})
        for m in out["messages"]:
            print(m.type, m.content)
    except Exception as e:
        print("ERR", type(e).__name__, e, getattr(e, "pii_type", None), getattr(e, "matches", None))
"""


def test_pii_detectors_strategies_and_scopes() -> None:
    compare(PII_OPTIONS)


SHORT_TERM_MEMORY = """
from typing import Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import before_model, after_model
from langchain.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain.tools import tool, ToolRuntime
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime
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
@before_model
def trim(state: AgentState, runtime: Runtime) -> dict[str, Any] | None:
    msgs = state["messages"]
    if len(msgs) <= 3:
        return None
    first = msgs[0]
    recent = msgs[-2:] if len(msgs) % 2 == 0 else msgs[-3:]
    return {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), first, *recent]}

@after_model
def drop_old(state: AgentState, runtime: Runtime) -> dict | None:
    msgs = state["messages"]
    if len(msgs) > 6:
        return {"messages": [RemoveMessage(id=m.id) for m in msgs[:2]]}
    return None

class State(AgentState):
    user_name: str

@tool
def remember(name: str, runtime: ToolRuntime) -> Command:
    '''Remember the name.'''
    return Command(update={"user_name": name, "messages": [ToolMessage("ok", tool_call_id=runtime.tool_call_id)]})

@tool
def whoami(runtime: ToolRuntime) -> str:
    '''Who am I.'''
    return runtime.state.get("user_name", "unknown")

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "remember", "args": {"name": "Bob"}, "id": "r1"}]),
    AIMessage("Hi Bob"),
    AIMessage("", tool_calls=[{"name": "whoami", "args": {}, "id": "w1"}]),
    AIMessage("You are Bob"),
    AIMessage("Third"),
    AIMessage("Fourth"),
]))
agent = create_agent(model, tools=[remember, whoami], state_schema=State, middleware=[trim, drop_old], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
for q in ["I am Bob", "who am I?", "third", "fourth"]:
    out = agent.invoke({"messages": q}, cfg)
    print(q, "->", [(m.type, m.content) for m in out["messages"]], out.get("user_name"))
for s in model.seen:
    print(s)
hist = list(agent.get_state_history(cfg))
print(len(hist), [len(h.values.get("messages", [])) for h in hist][:8], [h.next for h in hist][:8])
print([h.metadata.get("source") for h in hist][:6], [sorted(h.metadata.get("writes") or {}) if h.metadata.get("writes") else None for h in hist][:6])
"""


def test_trimming_and_deleting_messages_across_turns() -> None:
    compare(SHORT_TERM_MEMORY)


AGENT_STREAMING = """
from langchain.agents import create_agent
from langchain.messages import AIMessage, AIMessageChunk
from langchain.tools import tool, ToolRuntime
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
def get_weather(city: str, runtime: ToolRuntime) -> str:
    '''Get weather for a given city.'''
    runtime.stream_writer(f"Looking up data for city: {city}")
    runtime.stream_writer(f"Acquired data for city: {city}")
    return f"It's always sunny in {city}!"
def fresh():
    return Scripted(messages=iter([
        AIMessage("let me check", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "call_1"}]),
        AIMessage("It is sunny in SF."),
    ]))
print("== updates")
agent = create_agent(fresh(), tools=[get_weather])
for chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="updates"):
    for step, data in chunk.items():
        print(f"step: {step}")
        print(f"content: {data['messages'][-1].content_blocks}")
print("== messages")
agent = create_agent(fresh(), tools=[get_weather])
for token, metadata in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="messages"):
    print(f"node: {metadata['langgraph_node']}", type(token).__name__, f"content: {token.content_blocks}", getattr(token, "tool_call_chunks", None), getattr(token, "chunk_position", None))
print("== custom")
agent = create_agent(fresh(), tools=[get_weather])
for chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="custom"):
    print(chunk)
print("== multiple modes")
agent = create_agent(fresh(), tools=[get_weather])
for mode, chunk in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode=["updates", "custom"]):
    print(mode, chunk if mode == "custom" else list(chunk))
print("== aggregate chunks")
agent = create_agent(fresh(), tools=[get_weather])
full = None
for token, metadata in agent.stream({"messages": [{"role": "user", "content": "weather in SF?"}]}, stream_mode="messages"):
    if isinstance(token, AIMessageChunk):
        full = token if full is None else full + token
        if token.chunk_position == "last":
            print("complete:", full.content, full.tool_calls, type(full).__name__)
            full = None
    else:
        print("tool message:", token.content, token.tool_call_id, token.name)
"""


def test_agent_stream_modes_updates_messages_custom() -> None:
    compare(AGENT_STREAMING)


CONTEXT_AND_STORE = """
from dataclasses import dataclass
from typing import Callable
from langchain.agents import create_agent
from langchain.agents.middleware import wrap_model_call, ModelRequest, ModelResponse, before_model, after_model, dynamic_prompt
from langchain.messages import AIMessage, HumanMessage, SystemMessage
from langchain.tools import tool, ToolRuntime
from langgraph.store.memory import InMemoryStore
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
@dataclass
class Context:
    user_id: str

@tool
def save_memory(fact: str, runtime: ToolRuntime[Context]) -> str:
    '''Save a fact.'''
    runtime.store.put(("memories", runtime.context.user_id), fact, {"fact": fact})
    return "saved"

@wrap_model_call
def inject_memories(request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
    store = request.runtime.store
    items = store.search(("memories", request.runtime.context.user_id))
    facts = [i.value["fact"] for i in items]
    msgs = [*request.messages]
    if facts:
        msgs = [HumanMessage("Known facts: " + ", ".join(sorted(facts))), *msgs]
    print("messages", [(m.type, m.content) for m in msgs], "system", request.system_message and request.system_message.content)
    new_system = SystemMessage(content=[*request.system_message.content_blocks, {"type": "text", "text": " Extra."}]) if request.system_message else None
    return handler(request.override(messages=msgs, system_message=new_system))

@wrap_model_call
def state_based(request: ModelRequest, handler):
    n = len(request.state["messages"])
    if n > 2:
        request = request.override(tools=[], tool_choice=None)
    print("state_based", n, [t.name for t in request.tools], request.tool_choice)
    return handler(request)

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "save_memory", "args": {"fact": "likes tea"}, "id": "m1"}]),
    AIMessage("saved it"),
    AIMessage("you like tea"),
]))
store = InMemoryStore()
agent = create_agent(model, tools=[save_memory], system_prompt="You remember.", middleware=[inject_memories, state_based], context_schema=Context, store=store)
for q in ["remember I like tea", "what do I like?"]:
    out = agent.invoke({"messages": [{"role": "user", "content": q}]}, context=Context("u9"))
    print([(m.type, m.content) for m in out["messages"]])
for s in model.seen:
    print(s)
print([(i.namespace, i.key, i.value) for i in store.search(("memories",))])
"""


def test_memories_from_the_store_shape_each_request() -> None:
    compare(CONTEXT_AND_STORE)


SUBAGENT_AND_INTERRUPT = """
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain.messages import AIMessage, HumanMessage
from langchain.tools import tool, ToolRuntime
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import interrupt, Command
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
sub_model = Scripted(messages=iter([AIMessage("sub answer: 42"), AIMessage("sub again")]))
subagent = create_agent(sub_model, tools=[], name="researcher", system_prompt="You research.")

@tool("research", description="Ask the research subagent.")
def call_research(query: str) -> str:
    result = subagent.invoke({"messages": [{"role": "user", "content": query}]})
    return result["messages"][-1].content

@tool
def confirm(action: str) -> str:
    '''Ask the human to confirm.'''
    answer = interrupt({"question": f"Do {action}?"})
    return f"human said {answer}"

class Answer(BaseModel):
    value: int

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "research", "args": {"query": "meaning"}, "id": "r1"}]),
    AIMessage("", tool_calls=[{"name": "confirm", "args": {"action": "publish"}, "id": "c1"}]),
    AIMessage("", tool_calls=[{"name": "Answer", "args": {"value": 42}, "id": "a1"}]),
]))
agent = create_agent(model, tools=[call_research, confirm], name="boss", response_format=Answer, checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "s"}}
for chunk in agent.stream({"messages": [{"role": "user", "content": "go"}]}, cfg, stream_mode="updates", subgraphs=True):
    ns, upd = chunk
    ns = [p.split(":")[0] for p in ns]
    for node, val in upd.items():
        print(ns, node, [i.value for i in val] if node == "__interrupt__" else val and [(m.type, m.content, m.name) for m in val.get("messages", [])])
st = agent.get_state(cfg)
print(st.next, [i.value for i in st.interrupts])
out = agent.invoke(Command(resume="yes"), cfg)
print(out["structured_response"], [(m.type, m.content, m.name) for m in out["messages"]])
print(agent.name, subagent.name)
for chunk in agent.stream({"messages": [{"role": "user", "content": "again"}]}, {"configurable": {"thread_id": "t2"}}, stream_mode="values"):
    print(len(chunk["messages"]), sorted(chunk))
    break
"""


def test_a_subagent_tool_an_interrupting_tool_and_a_structured_answer() -> None:
    compare(SUBAGENT_AND_INTERRUPT)
