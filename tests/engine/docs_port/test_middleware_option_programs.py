"""Docs programs of built-in middleware options and decorators, real LangChain vs ported and
attached: ``TodoListMiddleware`` with its own prompt and tool description, a wrapper that sees
the program's own model and swaps model and tools by runtime context, class middleware with
its own state and tools beside agent hooks that jump, and structured output strategies."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

TODO_LIST = """
from langchain.agents import create_agent
from langchain.agents.middleware import TodoListMiddleware, wrap_model_call
from langchain.messages import AIMessage
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
@wrap_model_call
def show(request, handler):
    sm = request.system_message
    print("system_message", type(sm).__name__, sm.text if sm else None)
    print("system_prompt", repr(request.system_prompt))
    print("tools", [(t.name, t.description[:30]) for t in request.tools])
    return handler(request)
for sp in ["You are a planner.", None]:
    model = Scripted(messages=iter([
        AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "pending"}]}, "id": "t1"}]),
        AIMessage("", tool_calls=[{"name": "write_todos", "args": {"todos": [{"content": "a", "status": "completed"}]}, "id": "t2"}, {"name": "write_todos", "args": {"todos": []}, "id": "t3"}]),
        AIMessage("done"),
    ]))
    agent = create_agent(model, tools=[], system_prompt=sp, middleware=[TodoListMiddleware(system_prompt="Plan with todos.", tool_description="Write todos."), show], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [{"role": "user", "content": "plan"}]}, {"configurable": {"thread_id": "1"}})
    for m in out["messages"]:
        m.pretty_print()
    print(out.get("todos"))
    print(sorted(out))
    print(agent.get_state({"configurable": {"thread_id": "1"}}).values["todos"])
agent = create_agent(Scripted(messages=iter([AIMessage("ok")])), tools=[], middleware=[TodoListMiddleware()], checkpointer=InMemorySaver())
try:
    agent.invoke({"messages": [{"role": "user", "content": "x"}], "todos": [{"content": "z", "status": "pending"}]}, {"configurable": {"thread_id": "2"}})
    print(agent.get_state({"configurable": {"thread_id": "2"}}).values.get("todos"))
except Exception as e:
    print("ERR", type(e).__name__, e)
"""


def test_the_todo_prompt_joins_the_system_prompt() -> None:
    # the system message LangChain builds holds content blocks, ours a string: kept so (the
    # recorded requests and their replay hashes would change); the text is the same
    compare(TODO_LIST)


DYNAMIC_MODEL = """
from dataclasses import dataclass
from langchain.agents import create_agent
from langchain.agents.middleware import wrap_model_call, ModelRequest, ModelResponse, dynamic_prompt, before_model
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
@dataclass
class Ctx:
    tier: str
    lang: str = "en"

basic = Scripted(messages=iter([AIMessage("basic answer"), AIMessage("basic again")]))
pro = Scripted(messages=iter([AIMessage("pro answer")]))

@tool
def search(q: str) -> str:
    '''Search.'''
    return q
@tool
def admin(q: str) -> str:
    '''Admin only.'''
    return q

@wrap_model_call
def pick_model(request: ModelRequest, handler) -> ModelResponse:
    ctx = request.runtime.context
    model = pro if ctx.tier == "pro" else basic
    tools = request.tools if ctx.tier == "pro" else [t for t in request.tools if t.name != "admin"]
    print("picking", ctx.tier, [t.name for t in tools], type(request.model).__name__)
    return handler(request.override(model=model, tools=tools))

@dynamic_prompt
def prompt(request: ModelRequest) -> str:
    return f"Answer in {request.runtime.context.lang}. State keys: {sorted(request.state)}"

@before_model
def show(state, runtime):
    print("before_model context", runtime.context, type(runtime.store).__name__, runtime.stream_writer is not None)

agent = create_agent(basic, tools=[search, admin], middleware=[show, pick_model, prompt], context_schema=Ctx)
for ctx in [Ctx("free"), Ctx("pro", "fr"), Ctx("free", "de")]:
    out = agent.invoke({"messages": [{"role": "user", "content": "hi"}]}, context=ctx)
    print(out["messages"][-1].content)
for m in (basic, pro):
    for s in m.seen:
        print(s)
try:
    agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
except Exception as e:
    print("ERR", type(e).__name__, e)
"""


def test_a_wrapper_sees_the_programs_model_and_swaps_it() -> None:
    compare(DYNAMIC_MODEL)


CUSTOM_STATE = """
from typing import Any, NotRequired
from typing_extensions import TypedDict
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import AgentMiddleware, before_agent, after_agent, hook_config
from langchain.messages import AIMessage, HumanMessage, ToolMessage
from langchain.tools import tool, ToolRuntime
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        self.seen.append(("bind", sorted(getattr(t, "name", None) or (t.get("name") if isinstance(t, dict) else None) or t["function"]["name"] for t in tools), kw.get("tool_choice")))
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append(("call", [(m.type, m.content if isinstance(m.content, str) else str(m.content)) for m in messages]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
class CounterState(AgentState):
    model_calls: NotRequired[int]
    notes: NotRequired[list[str]]

@tool
def note(text: str, runtime: ToolRuntime) -> str:
    '''Write a note.'''
    return f"noted {text}; calls so far {runtime.state.get('model_calls')}"

class Counter(AgentMiddleware):
    state_schema = CounterState
    tools = [note]
    def before_model(self, state, runtime: Runtime) -> dict[str, Any] | None:
        return {"model_calls": state.get("model_calls", 0) + 1}
    def after_model(self, state, runtime):
        print("after_model sees", state.get("model_calls"), type(state["messages"][-1]).__name__)
        return None
    def before_agent(self, state, runtime):
        print("before_agent", sorted(state), len(state["messages"]))
        return {"notes": ["started"]}
    def after_agent(self, state, runtime):
        print("after_agent", state.get("notes"), state.get("model_calls"))
        return {"notes": state.get("notes", []) + ["finished"]}

@before_agent(can_jump_to=["end"])
def guard(state: AgentState, runtime: Runtime) -> dict[str, Any] | None:
    last = state["messages"][-1]
    if "forbidden" in last.content:
        return {"messages": [AIMessage("I cannot help with that.")], "jump_to": "end"}
    return None

@after_agent
def audit(state: AgentState, runtime: Runtime) -> None:
    print("audit", [m.type for m in state["messages"]])

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "note", "args": {"text": "hi"}, "id": "n1"}]),
    AIMessage("wrote it"),
    AIMessage("second turn"),
]))
agent = create_agent(model, tools=[], middleware=[guard, Counter(), audit], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
for text in ["please note hi", "forbidden stuff", "again"]:
    out = agent.invoke({"messages": [HumanMessage(text)]}, cfg)
    print(sorted(out), out.get("model_calls"), out.get("notes"))
    print([(m.type, m.content) for m in out["messages"]])
st = agent.get_state(cfg)
print(sorted(st.values), st.next, st.values.get("model_calls"))
print(sorted(agent.get_graph().nodes))
print(sorted(agent.get_input_jsonschema().get("properties", {})))
print(sorted(agent.get_output_jsonschema().get("properties", {})))
"""


def test_class_middleware_state_tools_and_agent_hooks() -> None:
    compare(CUSTOM_STATE)


STRUCTURED = """
from pydantic import BaseModel, Field
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy, ProviderStrategy
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
class Contact(BaseModel):
    '''A contact.'''
    name: str = Field(description="full name")
    email: str

class Movie(TypedDict):
    title: str
    year: int

def call(name, args, id="s1"):
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": id}])

print("== ToolStrategy custom tool message")
m = Scripted(messages=iter([call("Contact", {"name": "Ada", "email": "a@x"})]))
agent = create_agent(m, tools=[], response_format=ToolStrategy(Contact, tool_message_content="Got the contact!"))
out = agent.invoke({"messages": [{"role": "user", "content": "extract"}]})
print(repr(out["structured_response"]))
for msg in out["messages"]:
    print(msg.type, repr(msg.content), getattr(msg, "tool_calls", None), getattr(msg, "name", None))
print(m.seen)

print("== schema directly (TypedDict)")
m = Scripted(messages=iter([call("Movie", {"title": "Heat", "year": 1995})]))
agent = create_agent(m, tools=[], response_format=Movie)
out = agent.invoke({"messages": [{"role": "user", "content": "movie"}]})
print(out["structured_response"], [msg.type for msg in out["messages"]])
print(out["messages"][-1].content)

print("== ProviderStrategy")
m = Scripted(messages=iter([AIMessage('{"name": "Bo", "email": "b@y"}')]))
agent = create_agent(m, tools=[], response_format=ProviderStrategy(Contact))
out = agent.invoke({"messages": [{"role": "user", "content": "extract"}]})
print(repr(out["structured_response"]), [msg.type for msg in out["messages"]])
print(m.seen)

print("== ToolStrategy handle_errors str, then fixed")
m = Scripted(messages=iter([call("Contact", {"name": "Ada"}), call("Contact", {"name": "Ada", "email": "e"}, "s2")]))
agent = create_agent(m, tools=[], response_format=ToolStrategy(Contact, handle_errors="Please include an email."))
out = agent.invoke({"messages": [{"role": "user", "content": "extract"}]})
for msg in out["messages"]:
    print(msg.type, repr(msg.content)[:200])
print(repr(out["structured_response"]))

print("== handle_errors=False")
m = Scripted(messages=iter([call("Contact", {"name": "Ada"})]))
agent = create_agent(m, tools=[], response_format=ToolStrategy(Contact, handle_errors=False))
try:
    agent.invoke({"messages": [{"role": "user", "content": "extract"}]})
except Exception as e:
    print("ERR", type(e).__name__, str(e)[:300])

print("== two structured calls at once")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "Contact", "args": {"name": "A", "email": "a"}, "id": "x1"}, {"name": "Contact", "args": {"name": "B", "email": "b"}, "id": "x2"}]), call("Contact", {"name": "C", "email": "c"}, "x3")]))
agent = create_agent(m, tools=[], response_format=ToolStrategy(Contact))
out = agent.invoke({"messages": [{"role": "user", "content": "extract"}]})
for msg in out["messages"]:
    print(msg.type, repr(msg.content)[:300])
print(repr(out["structured_response"]))
"""


def test_structured_output_strategies_and_their_messages() -> None:
    compare(STRUCTURED)


EMULATOR_AND_CONTEXT_EDITS = """
from langchain.agents import create_agent
from langchain.agents.middleware import LLMToolEmulator, ContextEditingMiddleware, ClearToolUsesEdit
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
@tool
def get_weather(city: str) -> str:
    '''Get weather.'''
    return "real weather"
@tool
def get_stock(sym: str) -> str:
    '''Get stock.'''
    return "real stock"
emu = Scripted(messages=iter([AIMessage("emulated: 72F in SF"), AIMessage("emulated again")]))
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}, {"name": "get_stock", "args": {"sym": "X"}, "id": "c2"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[get_weather, get_stock], middleware=[LLMToolEmulator(tools=["get_weather"], model=emu)])
out = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
for m in out["messages"]:
    print(m.type, repr(m.content), getattr(m, "name", None), getattr(m, "status", None))
for s in emu.seen:
    print(s[0], str(s[1])[:800])
print("== all tools emulated (tools=None)")
emu = Scripted(messages=iter([AIMessage("e1"), AIMessage("e2")]))
model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "c1"}, {"name": "get_stock", "args": {"sym": "X"}, "id": "c2"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[get_weather, get_stock], middleware=[LLMToolEmulator(model=emu)])
out = agent.invoke({"messages": [{"role": "user", "content": "weather?"}]})
print(sorted((m.type, m.content) for m in out["messages"]))

print("== context editing")
def counter(msgs):
    return sum(len(str(m.content)) for m in msgs)
calls = [AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": c}, "id": f"w{i}"}]) for i, c in enumerate(["a", "b", "c", "d"])]
model = Scripted(messages=iter(calls + [AIMessage("end")]))
edit = ClearToolUsesEdit(trigger=40, keep=1, clear_tool_inputs=True, exclude_tools=["get_stock"], placeholder="[gone]")
agent = create_agent(model, tools=[get_weather, get_stock], middleware=[ContextEditingMiddleware(edits=[edit], token_count_method="approximate")])
out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})
for m in out["messages"]:
    print(m.type, repr(m.content), getattr(m, "tool_calls", None), m.response_metadata if m.type == "tool" else "")
for s in model.seen:
    print(s)
"""


def test_emulated_tools_answer_with_the_models_text_and_edits_clear_old_uses() -> None:
    compare(EMULATOR_AND_CONTEXT_EDITS)


FALLBACK_MODELS = """
from langchain.agents import create_agent
from langchain.agents.middleware import ModelFallbackMiddleware, wrap_model_call
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
class Broken(Scripted):
    def _generate(self, *a, **kw):
        raise RuntimeError("primary down")
@wrap_model_call
def show(request, handler):
    print("inner sees", type(request.model).__name__, request.model is backup, request.model_settings)
    return handler(request)
backup = Scripted(messages=iter([AIMessage("from backup")]))
mw = ModelFallbackMiddleware(backup)
print([type(m).__name__ for m in mw.models], mw.models[0] is backup)
agent = create_agent(Broken(messages=iter([])), tools=[], middleware=[mw, show])
out = agent.invoke({"messages": [{"role": "user", "content": "hi"}]})
print([(m.type, m.content) for m in out["messages"]])
"""


def test_fallback_models_are_shown_to_inner_wrappers_as_given() -> None:
    compare(FALLBACK_MODELS)


CALL_LIMITS = """
from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware, ModelCallLimitMiddleware
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
@tool
def search(q: str) -> str:
    '''Search.'''
    return "r " + q
def many(n):
    return [AIMessage("", tool_calls=[{"name": "search", "args": {"q": str(i)}, "id": f"s{i}"}]) for i in range(n)] + [AIMessage("final")] * 5
for mw in [
    ToolCallLimitMiddleware(thread_limit=3, exit_behavior="continue"),
    ToolCallLimitMiddleware(tool_name="search", thread_limit=5, run_limit=2, exit_behavior="end"),
    ModelCallLimitMiddleware(thread_limit=3, exit_behavior="end"),
    ModelCallLimitMiddleware(thread_limit=3, run_limit=2, exit_behavior="error"),
    ToolCallLimitMiddleware(run_limit=1, exit_behavior="error"),
]:
    print("==", type(mw).__name__, mw.name)
    agent = create_agent(Scripted(messages=iter(many(4))), tools=[search], middleware=[mw], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "x"}}
    for turn in range(2):
        try:
            out = agent.invoke({"messages": [{"role": "user", "content": f"turn {turn}"}]}, cfg)
            print([(m.type, m.content) for m in out["messages"]][-4:])
            print({k: v for k, v in out.items() if k != "messages"})
        except Exception as e:
            print("ERR", type(e).__name__, e)
        st = agent.get_state(cfg)
        print(sorted(st.values), {k: v for k, v in st.values.items() if k != "messages"})
"""


def test_thread_and_run_limits_across_turns() -> None:
    compare(CALL_LIMITS)
