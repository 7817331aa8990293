"""Names LangChain's modules export, ported: every name ``langchain.agents.middleware``,
``langchain.agents``, ``langchain.tools`` and ``langchain.messages`` export is in the engine's
module (``langchain.tools.tool_node`` too; but the decision-model middleware, which needs langchain_core's decision models), and
a docs program with ``ModelRefusalMiddleware`` (a refusal raised, caught by a fallback, and
under a structured-output error), ``Runtime`` and ``TriggerClause`` from the middleware
module, summarization's error for a fraction without a model profile, and ``wrap_tool_call``
wrappers typed with ``langchain.tools.tool_node.ToolCallRequest`` (retry, rewrite, a
``Command``) with a middleware state of private / input-only / output-only fields, and a model streaming
its reply as indexed content blocks (thinking, then text): the reply adds up to those blocks;
``content_blocks`` of provider-shaped messages (Anthropic thinking, tool use, citations and
server tools, OpenAI reasoning summaries, annotations and refusals, ``reasoning_content``,
older multimodal formats) as langchain_core translates them, and messages made from
``content_blocks`` (an AIMessage's ``tool_call`` blocks are its tool calls)."""

from __future__ import annotations

import importlib

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

NOT_PORTED = {"AutoModeMiddleware", "ModelChoice", "ModelRouterMiddleware"}
"""LangChain 1.5's beta middleware driven by langchain_core's decision models."""


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("langchain.agents.middleware", "engine.middleware"),
        ("langchain.agents", "engine.agents"),
        ("langchain.tools", "engine.tools"),
        ("langchain.tools.tool_node", "engine.tools.tool_node"),
        ("langchain.messages", "engine.messages"),
    ],
)
def test_langchains_exported_names_port(theirs: str, ours: str) -> None:
    pytest.importorskip("langchain.agents")
    upstream = importlib.import_module(theirs)
    engine_module = importlib.import_module(ours)
    missing = [
        name
        for name in upstream.__all__
        if name not in NOT_PORTED and not hasattr(engine_module, name)
    ]
    assert missing == []


REFUSALS = r"""
from pydantic import BaseModel
from langchain.agents import create_agent
from langchain.agents.middleware import ModelRefusalMiddleware, ModelFallbackMiddleware, Runtime, TriggerClause, SummarizationMiddleware
from langchain.agents.structured_output import ToolStrategy
from langchain.messages import AIMessage
from langchain_core.exceptions import ModelRefusalError
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

refused = AIMessage(content=[{"type": "refusal", "refusal": "I can't help with that", "extras": {"category": "cyber"}}])
agent = create_agent(Scripted(messages=iter([refused])), tools=[], middleware=[ModelRefusalMiddleware()])
try:
    agent.invoke({"messages": [{"role": "user", "content": "hack"}]})
except ModelRefusalError as e:
    print("refused:", e, type(e.raw_message).__name__, e.raw_message.content_blocks)

# without the middleware the refusal is an answer
agent = create_agent(Scripted(messages=iter([AIMessage(content=[{"type": "refusal", "refusal": "no"}])])), tools=[])
out = agent.invoke({"messages": [{"role": "user", "content": "hack"}]})
print([m.content_blocks for m in out["messages"]])

# fallback catches it
backup = Scripted(messages=iter([AIMessage("backup answer")]))
agent = create_agent(Scripted(messages=iter([AIMessage(content=[{"type": "refusal", "refusal": "no"}])])), tools=[], middleware=[ModelFallbackMiddleware(backup), ModelRefusalMiddleware()])
out = agent.invoke({"messages": [{"role": "user", "content": "q"}]})
print([(m.type, m.content) for m in out["messages"]])

class A(BaseModel):
    v: int
agent = create_agent(Scripted(messages=iter([AIMessage(content=[{"type": "refusal", "refusal": "nope"}], tool_calls=[{"name": "A", "args": {"v": "x"}, "id": "a1"}])])), tools=[], response_format=ToolStrategy(A, handle_errors=False), middleware=[ModelRefusalMiddleware()])
try:
    agent.invoke({"messages": [{"role": "user", "content": "q"}]})
except Exception as e:
    print("RAISED", type(e).__name__, e)
print(TriggerClause.__name__, Runtime.__name__)
mw = SummarizationMiddleware(model=backup, trigger=[{"tokens": 100, "messages": 5}, ("fraction", 0.5)])
print(mw.trigger if hasattr(mw, "trigger") else None)
"""

TOOL_WRAPPERS_AND_STATE = r"""
from typing import Any, Callable, NotRequired
from typing_extensions import TypedDict, Annotated
from langchain.agents import create_agent, AgentState
from langchain.agents.middleware import AgentMiddleware, wrap_tool_call, wrap_model_call, before_model, ModelRequest, ModelResponse, ExtendedModelResponse
from langchain.agents.middleware.types import OmitFromInput, PrivateStateAttr, OmitFromOutput
from langchain.tools import tool
from langchain.tools.tool_node import ToolCallRequest
from langchain.messages import AIMessage, ToolMessage, SystemMessage
from langgraph.types import Command
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
def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None) and [(c["name"], c["args"]) for c in m.tool_calls], getattr(m, "tool_call_id", None), getattr(m, "name", None), getattr(m, "status", None))
    print("  keys", sorted(out))

class Ctx(TypedDict):
    user: str

@tool
def lookup(q: str) -> str:
    '''Look something up.'''
    if q == "boom":
        raise RuntimeError("lookup exploded")
    return f"result for {q}"

@wrap_tool_call
def log_and_retry(request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolMessage | Command]) -> ToolMessage | Command:
    print("tool call", request.tool_call["name"], request.tool_call["args"], request.tool.name if request.tool else None, len(request.state["messages"]), request.runtime.context)
    if request.tool_call["args"].get("q") == "boom":
        try:
            return handler(request)
        except Exception as e:
            return ToolMessage(content=f"Tool error: Please check your input and try again. ({e})", tool_call_id=request.tool_call["id"])
    if request.tool_call["args"].get("q") == "rewrite":
        return handler(request.override(tool_call={**request.tool_call, "args": {"q": "rewritten"}}))
    return handler(request)

@wrap_tool_call
def commander(request, handler):
    result = handler(request)
    if request.tool_call["args"].get("q") == "cmd":
        return Command(update={"messages": [result], "counter": 1})
    return result

class CounterState(AgentState):
    counter: NotRequired[int]
    secret: NotRequired[Annotated[str, PrivateStateAttr]]
    scratch: NotRequired[Annotated[str, OmitFromInput]]
    hidden: NotRequired[Annotated[str, OmitFromOutput]]

class CounterMiddleware(AgentMiddleware[CounterState]):
    state_schema = CounterState
    def before_model(self, state, runtime: Runtime[Ctx]):
        print("before_model counter", state.get("counter"), state.get("secret"), state.get("scratch"), runtime.context)
        return {"secret": "s", "scratch": "x", "hidden": "h"}
    def wrap_model_call(self, request: ModelRequest, handler):
        resp = handler(request)
        return ExtendedModelResponse(model_response=resp, command=Command(update={"counter": (request.state.get("counter") or 0) + 10}))

model = Scripted(messages=iter([
    AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "boom"}, "id": "a"}]),
    AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "rewrite"}, "id": "b"}]),
    AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": "cmd"}, "id": "c"}]),
    AIMessage("done"),
]))
agent = create_agent(model, tools=[lookup], middleware=[log_and_retry, commander, CounterMiddleware()], context_schema=Ctx,
                     system_prompt=SystemMessage(content=[{"type": "text", "text": "You are an AI.", "cache_control": {"type": "ephemeral"}}]))
out = agent.invoke({"messages": [{"role": "user", "content": "go"}], "counter": 0}, context={"user": "ann"})
show(out)
print({k: v for k, v in out.items() if k != "messages"})
for s in model.seen:
    print(s)
print(sorted(agent.get_input_jsonschema()["properties"]))
print(sorted(agent.get_output_jsonschema()["properties"]))
print(agent.get_graph().draw_mermaid())
try:
    agent2 = create_agent(Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "lookup", "args": {"q": str(i)}, "id": f"l{i}"}]) for i in range(20)])), tools=[lookup])
    agent2.invoke({"messages": [{"role": "user", "content": "loop"}]}, {"recursion_limit": 5})
except Exception as e:
    print("RAISED", type(e).__name__, str(e)[:300])
"""

STREAMED_BLOCKS = r"""
from typing import Iterator
from langchain.agents import create_agent
from langchain.messages import AIMessage, AIMessageChunk
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatGenerationChunk, ChatResult, ChatGeneration

class AnthropicLike(BaseChatModel):
    @property
    def _llm_type(self):
        return "anthropic-like"
    def bind_tools(self, tools, **kw):
        return self
    def _chunks(self):
        yield AIMessageChunk(content=[{"type": "thinking", "thinking": "Let me ", "index": 0}], id="m1", response_metadata={"model_provider": "anthropic"})
        yield AIMessageChunk(content=[{"type": "thinking", "thinking": "think.", "index": 0}], id="m1")
        yield AIMessageChunk(content=[{"type": "thinking", "signature": "sig", "index": 0}], id="m1")
        yield AIMessageChunk(content=[{"type": "text", "text": "The ", "index": 1}], id="m1")
        yield AIMessageChunk(content=[{"type": "text", "text": "answer.", "index": 1}], id="m1", usage_metadata={"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}, response_metadata={"stop_reason": "end_turn", "model_name": "claude-x"})
    def _stream(self, messages, stop=None, run_manager=None, **kw) -> Iterator[ChatGenerationChunk]:
        for c in self._chunks():
            yield ChatGenerationChunk(message=c)
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        total = None
        for c in self._chunks():
            total = c if total is None else total + c
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=total.content, id="m1", response_metadata=total.response_metadata, usage_metadata=total.usage_metadata))])

agent = create_agent(AnthropicLike(), tools=[])
out = agent.invoke({"messages": [{"role": "user", "content": "q"}]})
m = out["messages"][-1]
print(m.content, m.response_metadata, m.usage_metadata)
msgs = []
for tok, md in agent.stream({"messages": [{"role": "user", "content": "q"}]}, stream_mode="messages"):
    msgs.append(tok)
    print(repr(tok.content), tok.chunk_position if hasattr(tok, "chunk_position") else None)
total = msgs[0]
for t in msgs[1:]:
    total = total + t
print(total.content, total.response_metadata)
for mode, ch in agent.stream({"messages": [{"role": "user", "content": "q"}]}, stream_mode=["values"]):
    pass
print(ch["messages"][-1].content)
"""

PROVIDER_BLOCKS = r"""
from langchain.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
cases = [
    AIMessage(content="", additional_kwargs={"refusal": "nope"}, response_metadata={"model_provider": "openai"}),
    AIMessage(content=[{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": "hi"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}}], tool_calls=[{"name": "f", "args": {"a": 1}, "id": "t1"}], response_metadata={"model_provider": "anthropic"}),
    AIMessage(content=[{"type": "text", "text": "see", "citations": [{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0, "end_char_index": 1, "document_title": "d"}]}], response_metadata={"model_provider": "anthropic"}),
    AIMessage(content=[{"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}, {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"type": "web_search_result", "url": "http://u", "title": "T"}]}, {"type": "text", "text": "found"}], response_metadata={"model_provider": "anthropic"}),
    AIMessage(content=[{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "step 1"}]}, {"type": "text", "text": "ans", "annotations": [{"type": "url_citation", "url": "http://a", "title": "A", "start_index": 0, "end_index": 3}]}], response_metadata={"model_provider": "openai"}),
    AIMessage(content="plain", additional_kwargs={"reasoning_content": "deep thought"}, response_metadata={"model_provider": "deepseek"}),
    AIMessage(content="plain", additional_kwargs={"reasoning_content": "deep thought"}),
    AIMessage(content=[{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}, {"type": "text", "text": "x"}]),
    HumanMessage(content=[{"type": "image_url", "image_url": {"url": "https://x/y.png"}}, {"type": "input_audio", "input_audio": {"data": "BBBB", "format": "wav"}}]),
    HumanMessage(content=[{"type": "image", "source_type": "base64", "data": "CCCC", "mime_type": "image/jpeg"}, {"type": "file", "source_type": "url", "url": "https://x/f.pdf"}]),
    ToolMessage(content=[{"type": "text", "text": "t"}, {"type": "image", "url": "https://i"}], tool_call_id="t"),
    AIMessage(content=[{"type": "executable_code", "executable_code": "print(1)", "language": "python"}, {"type": "code_execution_result", "code_execution_result": "1"}], response_metadata={"model_provider": "google_genai"}),
]
def shown(blocks):
    # random "lc_..." ids are left out
    return [{k: v for k, v in b.items() if not (k == "id" and str(v).startswith("lc_"))} for b in blocks]
for m in cases:
    try:
        print(type(m).__name__, shown(m.content_blocks))
    except Exception as e:
        print("RAISED", type(e).__name__, str(e)[:200])
    try:
        print("  text:", repr(m.text))
    except Exception as e:
        print("  RAISED", type(e).__name__, str(e)[:200])
c = AIMessageChunk(content=[{"type": "text", "text": "a", "index": 0}], response_metadata={"model_provider": "anthropic"}) + AIMessageChunk(content=[{"type": "text", "text": "b", "index": 0}], chunk_position="last")
print(c.content, c.content_blocks, c.chunk_position)
"""

MESSAGES_FROM_BLOCKS = r"""
from langchain.messages import HumanMessage, AIMessage, SystemMessage, ToolMessage, trim_messages, RemoveMessage
from langchain_core.messages.utils import count_tokens_approximately
m = HumanMessage(content_blocks=[{"type": "text", "text": "Hello"}, {"type": "image", "url": "https://example.com/image.jpg"}])
print(repr(m.content), m.content_blocks)
a = AIMessage(content_blocks=[{"type": "text", "text": "Calling"}, {"type": "tool_call", "name": "f", "args": {"x": 1}, "id": "c1"}])
print(repr(a.content), a.tool_calls, a.content_blocks)
s = SystemMessage(content_blocks=[{"type": "text", "text": "sys"}])
print(repr(s.content))
msgs = [SystemMessage("you are a bot"), HumanMessage("hi " * 20, id="1"), AIMessage("hello " * 20, id="2"), HumanMessage("how are you", id="3"), AIMessage("fine", id="4")]
print([m.content[:10] for m in trim_messages(msgs, strategy="last", token_counter=count_tokens_approximately, max_tokens=40, start_on="human", end_on=("human", "tool"), include_system=True)])
# (count_tokens_approximately(engine messages) before any run: langchain_core takes the engine's messages only once a run has taught it - left)
print(AIMessage("x", usage_metadata={"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}).usage_metadata)
h = HumanMessage("hi", name="bob", id="x")
# (model_dump field order is the engine's own - left on purpose)
print(h.pretty_repr())
print(repr(RemoveMessage(id="1")))
"""


def test_refusals_raise_with_the_refusal_middleware() -> None:
    compare(REFUSALS)


def test_tool_wrappers_from_the_tool_node_path_and_annotated_state() -> None:
    compare(TOOL_WRAPPERS_AND_STATE)


def test_a_models_streamed_blocks_add_up_to_its_reply() -> None:
    compare(STREAMED_BLOCKS)


def test_content_blocks_read_each_providers_own_blocks() -> None:
    compare(PROVIDER_BLOCKS)


def test_messages_made_from_content_blocks() -> None:
    compare(MESSAGES_FROM_BLOCKS)
