"""Docs programs of LangChain's agent API, each run on the real libraries and ported
(``port.compare``): a custom state, a tool returning a ``Command`` with its ``ToolMessage``,
``ToolRuntime``, a dynamic prompt, hooks that jump, class middleware with its own state, a
subagent as a tool, runtime context, context editing, file search, summaries by tokens, retries,
call limits, interrupts in parallel tool calls and the tasks / checkpoints / debug streams."""

from __future__ import annotations

from tests.engine.docs_port.port import compare

AGENT_API = """
from typing import Annotated, Any
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import dynamic_prompt, before_model, after_model, ModelRequest, AgentMiddleware, hook_config
from langchain.tools import tool, ToolRuntime, InjectedToolCallId
from langchain.messages import AIMessage, HumanMessage, ToolMessage, SystemMessage
from langgraph.types import Command
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        self.seen.append([(m.type, (m.content if isinstance(m.content, str) else str(m.content))[:50]) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== custom state, tool returning Command, InjectedToolCallId")
class MyState(AgentState):
    user_name: str
    visits: int

@tool
def set_name(name: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    '''Remember the user's name.'''
    return Command(update={"user_name": name, "messages": [ToolMessage(f"saved {name}", tool_call_id=tool_call_id)]})

@tool
def greet(runtime: ToolRuntime) -> str:
    '''Greet the user by name.'''
    return f"hello {runtime.state['user_name']} (call {runtime.tool_call_id})"

@dynamic_prompt
def prompt(request: ModelRequest) -> str:
    return f"You talk to {request.state.get('user_name', 'someone')}."

@before_model
def count(state, runtime):
    return {"visits": state.get("visits", 0) + 1}

@after_model
@hook_config(can_jump_to=["end"])
def stop_on_bye(state, runtime):
    if state["messages"][-1].content == "bye":
        return {"jump_to": "end", "messages": [AIMessage("stopped")]}
    return None

m = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "set_name", "args": {"name": "ada"}, "id": "c1"}]),
    AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c2"}]),
    AIMessage("done"),
    AIMessage("bye"),
]))
agent = create_agent(m, tools=[set_name, greet], state_schema=MyState, middleware=[prompt, count, stop_on_bye], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "1"}}
out = agent.invoke({"messages": [HumanMessage("I am ada")]}, cfg)
for msg in out["messages"]:
    print(" ", type(msg).__name__, repr(msg.content)[:80], getattr(msg, "tool_call_id", None), getattr(msg, "name", None))
print(sorted(out), out["user_name"], out["visits"])
out = agent.invoke({"messages": [HumanMessage("bye now")]}, cfg)
print([m.content for m in out["messages"]][-3:], out["visits"])
for s in Scripted.model_fields["seen"].default:
    print(" saw", s[:1], len(s))

print("== stream updates of an agent")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c9"}]), AIMessage("fin")]))
agent = create_agent(m, tools=[greet], state_schema=MyState)
for chunk in agent.stream({"messages": [HumanMessage("hi")], "user_name": "bo"}, stream_mode="updates"):
    for node, upd in chunk.items():
        print(" ", node, sorted(upd) if isinstance(upd, dict) else upd, [getattr(x, "content", x) for x in (upd or {}).get("messages", [])] if isinstance(upd, dict) else "")

print("== class middleware with state_schema and tools")
class Counter(AgentState):
    calls: int
class CountCalls(AgentMiddleware):
    state_schema = Counter
    def before_model(self, state, runtime):
        return {"calls": state.get("calls", 0) + 1}
    def wrap_tool_call(self, request, handler):
        r = handler(request)
        r.content = f"[{request.tool_call['name']}] {r.content}"
        return r
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "greet", "args": {}, "id": "c5"}]), AIMessage("end")]))
out = create_agent(m, tools=[greet], middleware=[CountCalls()], state_schema=MyState).invoke({"messages": [HumanMessage("x")], "user_name": "cy"})
print(out["calls"], [x.content for x in out["messages"]])

print("== usage metadata and content blocks")
m = Scripted(messages=iter([AIMessage("plain", usage_metadata={"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})]))
out = create_agent(m, tools=[]).invoke({"messages": [HumanMessage("x")]})
last = out["messages"][-1]
print(last.usage_metadata, last.content_blocks, last.text)
"""

AGENT_MIDDLEWARE = """
import os, tempfile
from dataclasses import dataclass
from langchain.agents import create_agent
from langchain.agents.middleware import ContextEditingMiddleware, ClearToolUsesEdit, FilesystemFileSearchMiddleware, wrap_model_call, ModelRequest
from langchain.tools import tool, ToolRuntime
from langchain.messages import AIMessage, HumanMessage
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

SEEN = []
class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        SEEN.append([(m.type, (m.content if isinstance(m.content, str) else str(m.content))[:40]) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== a subagent as a tool")
sub_model = Scripted(messages=iter([AIMessage("the sub says 42")]))
subagent = create_agent(sub_model, tools=[], system_prompt="You are a calculator.", name="calc")
@tool
def ask_calc(question: str) -> str:
    '''Ask the calculator agent.'''
    out = subagent.invoke({"messages": [HumanMessage(question)]})
    return out["messages"][-1].content
main = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "ask_calc", "args": {"question": "6*7"}, "id": "q1"}]), AIMessage("It is 42.")]))
agent = create_agent(main, tools=[ask_calc], name="boss")
for mode, chunk in agent.stream({"messages": [HumanMessage("what is 6*7")]}, stream_mode=["updates"], subgraphs=False):
    print(" ", mode, {k: [getattr(m, "content", m) for m in v.get("messages", [])] if isinstance(v, dict) else v for k, v in chunk.items()})
print(SEEN[:3])

print("== context schema and runtime.context")
@dataclass
class Ctx:
    user_id: str
@tool
def whoami(runtime: ToolRuntime[Ctx]) -> str:
    '''Who am I.'''
    return f"user {runtime.context.user_id}"
@wrap_model_call
def tag(request: ModelRequest, handler):
    request = request.override(system_prompt=f"user={request.runtime.context.user_id}")
    return handler(request)
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "whoami", "args": {}, "id": "w1"}]), AIMessage("ok")]))
SEEN.clear()
out = create_agent(m, tools=[whoami], context_schema=Ctx, middleware=[tag]).invoke({"messages": [HumanMessage("who")]}, context=Ctx(user_id="u7"))
print([m.content for m in out["messages"]], SEEN[0][0])

print("== context editing")
@tool
def big(n: int) -> str:
    '''Big output.'''
    return "x" * 50 + str(n)
calls = [AIMessage("", tool_calls=[{"name": "big", "args": {"n": i}, "id": f"b{i}"}]) for i in range(4)] + [AIMessage("done")]
m = Scripted(messages=iter(calls))
SEEN.clear()
out = create_agent(m, tools=[big], middleware=[ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=60, keep=1, placeholder="[cleared]")])]).invoke({"messages": [HumanMessage("go")]})
print([m.content[:20] for m in out["messages"]])
for s in SEEN:
    print("  saw", [c for t, c in s if t == "tool"])

print("== file search")
d = tempfile.mkdtemp()
os.makedirs(os.path.join(d, "src"))
for name, text in {"src/a.py": "import os\nprint('hi')\n", "src/b.txt": "hello world\n", "README.md": "# readme\nhello\n"}.items():
    with open(os.path.join(d, name), "w") as f:
        f.write(text)
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "glob_search", "args": {"pattern": "**/*.py"}, "id": "g1"}, {"name": "grep_search", "args": {"pattern": "hello"}, "id": "g2"}, {"name": "grep_search", "args": {"pattern": "hello", "output_mode": "content"}, "id": "g3"}]), AIMessage("found")]))
out = create_agent(m, tools=[], middleware=[FilesystemFileSearchMiddleware(root_path=d, use_ripgrep=False)]).invoke({"messages": [HumanMessage("find")]})
for msg in out["messages"]:
    if msg.type == "tool":
        print(" ", msg.name, repr(msg.content))
"""

SUMMARIES_RETRIES_LIMITS = """
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware, ModelCallLimitMiddleware, ToolRetryMiddleware, ModelRetryMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

SEEN = []
class Scripted(GenericFakeChatModel):
    tag: str = "m"
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        SEEN.append((self.tag, len(messages), [m.type for m in messages][:3]))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

print("== summarization by tokens")
summ = Scripted(tag="summ", messages=iter([AIMessage(f"SUMMARY {i}") for i in range(10)]))
main = Scripted(tag="main", messages=iter([AIMessage(f"reply number {i} " + "blah " * i) for i in range(12)]))
agent = create_agent(main, tools=[], checkpointer=InMemorySaver(), middleware=[SummarizationMiddleware(model=summ, trigger=("tokens", 120), keep=("tokens", 40))])
cfg = {"configurable": {"thread_id": "s"}}
for i in range(8):
    out = agent.invoke({"messages": [HumanMessage(f"question {i} " + "word " * 4)]}, cfg)
    print(i, [(type(m).__name__[0], m.content[:14]) for m in out["messages"]])
print(SEEN)

print("== summarization by fraction needs a profile")
try:
    create_agent(Scripted(messages=iter([])), tools=[], middleware=[SummarizationMiddleware(model=summ, trigger=("fraction", 0.5))])
    print("built")
except Exception as e:
    print("RAISED", type(e).__name__, "profile" in str(e))  # the wording is each library's own

print("== retry with failures")
class Flaky(Scripted):
    fails: int = 2
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        if self.fails > 0:
            self.fails -= 1
            raise TimeoutError("slow")
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)
attempts = []
@tool
def shaky(x: int) -> str:
    '''Shaky tool.'''
    attempts.append(x)
    if len(attempts) < 3:
        raise ConnectionError("net down")
    return "ok"
m = Flaky(messages=iter([AIMessage("", tool_calls=[{"name": "shaky", "args": {"x": 1}, "id": "s1"}]), AIMessage("fine")]))
out = create_agent(m, tools=[shaky], middleware=[ModelRetryMiddleware(max_retries=3, initial_delay=0.0, jitter=False), ToolRetryMiddleware(max_retries=3, initial_delay=0.0, jitter=False)]).invoke({"messages": [HumanMessage("go")]})
print([m.content for m in out["messages"]], attempts)
m = Flaky(fails=5, messages=iter([AIMessage("never")]))
try:
    out = create_agent(m, tools=[], middleware=[ModelRetryMiddleware(max_retries=1, initial_delay=0.0, jitter=False, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
    print([m.content for m in out["messages"]])
except Exception as e:
    print("RAISED", type(e).__name__, e)
attempts.clear()
@tool
def dead(x: int) -> str:
    '''Dead tool.'''
    attempts.append(x)
    raise ConnectionError("gone")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "dead", "args": {"x": 1}, "id": "d1"}]), AIMessage("gave up")]))
out = create_agent(m, tools=[dead], middleware=[ToolRetryMiddleware(max_retries=2, initial_delay=0.0, jitter=False, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
print([(m.type, m.content, getattr(m, "status", None)) for m in out["messages"]], attempts)

print("== model call limit")
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "dead", "args": {"x": i}, "id": f"d{i}"}]) for i in range(5)]))
out = create_agent(m, tools=[dead], middleware=[ModelCallLimitMiddleware(run_limit=2, exit_behavior="end"), ToolRetryMiddleware(max_retries=0, on_failure="continue")]).invoke({"messages": [HumanMessage("go")]})
print([(m.type, m.content[:60]) for m in out["messages"]])
"""

TOOL_INTERRUPTS_AND_STREAM_MODES = """
import operator
from typing import Annotated
from typing_extensions import TypedDict
from langchain.agents import create_agent
from langchain.tools import tool
from langchain.messages import AIMessage, HumanMessage
from langgraph.types import interrupt, Command
from langgraph.graph import StateGraph, START
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

print("== interrupts inside two parallel tool calls")
@tool
def book(place: str) -> str:
    '''Book a place.'''
    ok = interrupt({"confirm": place})
    return f"booked {place}" if ok == "yes" else f"skipped {place}"
m = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "book", "args": {"place": "paris"}, "id": "b1"}, {"name": "book", "args": {"place": "rome"}, "id": "b2"}]), AIMessage("all set")]))
agent = create_agent(m, tools=[book], checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "t"}}
out = agent.invoke({"messages": [HumanMessage("book")]}, cfg)
ints = out["__interrupt__"]
print(sorted(i.value["confirm"] for i in ints))
st = agent.get_state(cfg)
print(st.next, sorted(t.name for t in st.tasks), sorted(i.value["confirm"] for t in st.tasks for i in t.interrupts))
answers = {i.id: ("yes" if i.value["confirm"] == "paris" else "no") for i in ints}
out = agent.invoke(Command(resume=answers), cfg)
print([m.content for m in out["messages"]])

print("== stream modes tasks, checkpoints, debug")
class S(TypedDict):
    log: Annotated[list, operator.add]
b = StateGraph(S)
b.add_node("a", lambda s: {"log": ["a"]}); b.add_node("b", lambda s: {"log": ["b"]})
b.add_edge(START, "a"); b.add_edge("a", "b")
g = b.compile(checkpointer=InMemorySaver())
cfg = {"configurable": {"thread_id": "m"}}
for mode, part in g.stream({"log": []}, cfg, stream_mode=["tasks", "checkpoints"]):
    if mode == "tasks":
        print(" task", sorted(part), part["name"], part.get("input"), part.get("result"), part.get("error"), part.get("interrupts"), part.get("triggers"))
    else:
        print(" checkpoint", sorted(part), part["values"], part["next"], part["metadata"]["step"], part["metadata"]["source"], [t["name"] for t in part["tasks"]])
for part in g.stream({"log": []}, {"configurable": {"thread_id": "dbg"}}, stream_mode="debug"):
    print(" debug", part["type"], part["step"], sorted(part["payload"]) if isinstance(part["payload"], dict) else part["payload"])
"""


def test_agent_api_programs() -> None:
    compare(AGENT_API)


def test_a_subagent_tool_runtime_context_context_editing_and_file_search() -> None:
    """Context editing clears on the turn LangChain's does: the token estimate is the same."""
    compare(AGENT_MIDDLEWARE)


def test_summaries_by_tokens_retries_and_call_limits() -> None:
    compare(SUMMARIES_RETRIES_LIMITS)


def test_parallel_tool_interrupts_and_the_tasks_checkpoints_debug_streams() -> None:
    compare(TOOL_INTERRUPTS_AND_STREAM_MODES)
