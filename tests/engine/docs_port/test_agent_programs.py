"""``create_agent`` docs programs, real LangChain vs ported by their imports (messages from
``langchain.messages``, so the engine's, scripted into langchain_core's fake chat model):
``ToolRuntime`` with a context schema and a store, ``dynamic_prompt`` and hooks, human in the
loop's approve / edit / reject decisions, tool and model call limits, PII rules, and a fake
model that gives the same message object twice."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

RUNTIME_AND_PROMPT = """
import json
from dataclasses import dataclass
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import dynamic_prompt, wrap_model_call, ModelRequest, ModelResponse, before_model, after_model
from langchain.tools import tool, ToolRuntime
from langchain.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or t.get("name") or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

@dataclass
class Context:
    user_id: str
    user_name: str

@tool
def get_user_info(runtime: ToolRuntime[Context]) -> str:
    '''Look up user info.'''
    return f"user {runtime.context.user_id} is {runtime.context.user_name}; call {runtime.tool_call_id}; msgs {len(runtime.state['messages'])}"

@tool
def save_pref(pref: str, runtime: ToolRuntime[Context]) -> str:
    '''Save a preference.'''
    runtime.store.put(("prefs", runtime.context.user_id), "pref", {"value": pref})
    return "saved"

@tool
def read_pref(runtime: ToolRuntime[Context]) -> str:
    '''Read the preference.'''
    item = runtime.store.get(("prefs", runtime.context.user_id), "pref")
    return item.value["value"] if item else "none"

@dynamic_prompt
def prompt(request: ModelRequest) -> str:
    return f"You help {request.runtime.context.user_name}. Messages so far: {len(request.state['messages'])}"

@before_model
def log_before(state: AgentState, runtime) -> None:
    print("before_model", len(state["messages"]))

@after_model
def log_after(state: AgentState, runtime) -> None:
    print("after_model", state["messages"][-1].type, bool(state["messages"][-1].tool_calls))

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_user_info", "args": {}, "id": "c1"}]),
    AIMessage("", tool_calls=[{"name": "save_pref", "args": {"pref": "tea"}, "id": "c2"}]),
        AIMessage("", tool_calls=[{"name": "read_pref", "args": {}, "id": "c3"}]),
    AIMessage("All done, Ada."),
]))
store = InMemoryStore()
agent = create_agent(model, tools=[get_user_info, save_pref, read_pref], middleware=[prompt, log_before, log_after],
                     context_schema=Context, checkpointer=InMemorySaver(), store=store)
cfg = {"configurable": {"thread_id": "1"}}
out = agent.invoke({"messages": [{"role": "user", "content": "who am I?"}]}, cfg, context=Context("u1", "Ada"))
for m in out["messages"]:
    print(type(m).__name__, repr(m.content), getattr(m, "tool_calls", None) and [c["name"] for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
for s in model.seen:
    print(s)
print(sorted(out))
print([ (i.namespace, i.key, i.value) for i in store.search(("prefs",))])
hist = list(agent.get_state_history(cfg))
print(len(hist), [h.next for h in hist], [h.metadata["source"] for h in hist])
print(agent.get_state(cfg).values.keys())
"""

HUMAN_IN_THE_LOOP = """
from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def write_file(path: str, content: str) -> str:
    '''Write a file.'''
    return f"wrote {len(content)} chars to {path}"

@tool
def execute_sql(query: str) -> str:
    '''Run SQL.'''
    return f"ran {query}"

@tool
def read_data(table: str) -> str:
    '''Read data.'''
    return f"rows of {table}"

def show(out):
    if "__interrupt__" in out:
        for i in out["__interrupt__"]:
            print("INTERRUPT", i.value)
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [(c["name"], c["args"], c["id"]) for c in getattr(m, "tool_calls", [])], getattr(m, "tool_call_id", None), getattr(m, "status", None))

def run(decisions_list, calls):
    model = Scripted(messages=iter([AIMessage("", tool_calls=calls), AIMessage("finished")]))
    agent = create_agent(model, tools=[write_file, execute_sql, read_data], checkpointer=InMemorySaver(),
        middleware=[HumanInTheLoopMiddleware(interrupt_on={
            "write_file": True,
            "execute_sql": {"allowed_decisions": ["approve", "reject"]},
            "read_data": False,
        }, description_prefix="Tool execution pending approval")])
    cfg = {"configurable": {"thread_id": "t"}}
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, cfg)
    show(out)
    for decisions in decisions_list:
        print("RESUME", decisions)
        try:
            out = agent.invoke(Command(resume={"decisions": decisions}), cfg)
            show(out)
        except Exception as e:
            print("RAISED", type(e).__name__, e)
    print("next", agent.get_state(cfg).next)

calls = [
    {"name": "write_file", "args": {"path": "a.txt", "content": "hello"}, "id": "w1"},
    {"name": "execute_sql", "args": {"query": "DELETE FROM t"}, "id": "s1"},
    {"name": "read_data", "args": {"table": "t"}, "id": "r1"},
]
run([[{"type": "approve"}, {"type": "reject", "message": "no deletes"}]], calls)
run([[{"type": "edit", "edited_action": {"name": "write_file", "args": {"path": "b.txt", "content": "bye"}}}, {"type": "approve"}]], calls)
run([[{"type": "reject"}, {"type": "reject"}]], calls)
run([[{"type": "edit", "edited_action": {"name": "execute_sql", "args": {"query": "x"}}}, {"type": "approve"}]], calls)
run([[{"type": "approve"}], [{"type": "approve"}, {"type": "approve"}]], calls)
run([[{"type": "approve"}, {"type": "edit", "edited_action": {"name": "execute_sql", "args": {"query": "SELECT 1"}}}]], calls)
"""

LIMITS_AND_PII = """
from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware, ModelCallLimitMiddleware, PIIMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def search(q: str) -> str:
    '''Search.'''
    return f"results for {q}"

@tool
def fetch(url: str) -> str:
    '''Fetch.'''
    return f"page {url}"

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [(c["name"], c["id"]) for c in getattr(m, "tool_calls", [])], getattr(m, "tool_call_id", None), getattr(m, "status", None))
    print("  keys", sorted(out))

def replies(n):
    return [AIMessage("", tool_calls=[{"name": "search", "args": {"q": f"q{i}"}, "id": f"s{i}"}, {"name": "fetch", "args": {"url": f"u{i}"}, "id": f"f{i}"}]) for i in range(n)] + [AIMessage("done")]

for mw in [
    [ToolCallLimitMiddleware(run_limit=3)],
    [ToolCallLimitMiddleware(tool_name="search", run_limit=2)],
    [ToolCallLimitMiddleware(thread_limit=3, exit_behavior="end")],
    [ToolCallLimitMiddleware(tool_name="fetch", run_limit=1, exit_behavior="error")],
    [ModelCallLimitMiddleware(run_limit=2, exit_behavior="end")],
    [ModelCallLimitMiddleware(thread_limit=3, exit_behavior="error")],
]:
    print("==", [(type(m).__name__, getattr(m, "tool_name", None)) for m in mw])
    agent = create_agent(Scripted(messages=iter(replies(6) * 2)), tools=[search, fetch], middleware=mw, checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    for turn in range(2):
        try:
            show(agent.invoke({"messages": [{"role": "user", "content": f"turn {turn}"}]}, cfg))
        except Exception as e:
            print("RAISED", type(e).__name__, e)

print("== pii")
model = Scripted(messages=iter([AIMessage("Contact me at bob@example.com or 192.168.1.1", tool_calls=[]), AIMessage("ok")]))
agent = create_agent(model, tools=[], middleware=[
    PIIMiddleware("email", strategy="redact", apply_to_input=True, apply_to_output=True),
    PIIMiddleware("ip", strategy="mask", apply_to_output=True),
    PIIMiddleware("credit_card", strategy="block", apply_to_input=True),
])
show(agent.invoke({"messages": [{"role": "user", "content": "My email is alice@example.com and card 4111-1111-1111-1111x"}]}))
try:
    show(agent.invoke({"messages": [{"role": "user", "content": "card 4111 1111 1111 1111"}]}))
except Exception as e:
    print("RAISED", type(e).__name__, e)
model = Scripted(messages=iter([AIMessage("ok")]))
agent = create_agent(model, tools=[], middleware=[PIIMiddleware("email", strategy="hash", apply_to_input=True), PIIMiddleware("url", strategy="mask", apply_to_input=True)])
show(agent.invoke({"messages": [{"role": "user", "content": "mail a@b.co see https://x.io/page"}]}))
"""

SAME_MESSAGE_TWICE = """
from langchain.agents import create_agent
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
msg = AIMessage("hello")
agent = create_agent(GenericFakeChatModel(messages=iter([msg, msg, msg])), tools=[], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
for turn in range(3):
    out = agent.invoke({"messages": [{"role": "user", "content": f"turn {turn}"}]}, cfg)
    print([(m.type, m.content, (m.id or "")[:7] if m.type == "ai" else "-") for m in out["messages"]])
print(msg.id is not None)
"""


def test_tool_runtime_context_store_and_a_dynamic_prompt() -> None:
    compare(RUNTIME_AND_PROMPT)


def test_human_in_the_loop_decisions() -> None:
    compare(HUMAN_IN_THE_LOOP)


def test_call_limits_and_pii() -> None:
    compare(LIMITS_AND_PII)


def test_a_scripted_message_given_twice_replaces_itself() -> None:
    compare(SAME_MESSAGE_TWICE)
