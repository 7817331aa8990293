"""Names LangChain's modules export, ported: every name ``langchain.agents.middleware``,
``langchain.agents``, ``langchain.tools`` and ``langchain.messages`` export is in the engine's
module (but the decision-model middleware, which needs langchain_core's decision models), and
a docs program with ``ModelRefusalMiddleware`` (a refusal raised, caught by a fallback, and
under a structured-output error), ``Runtime`` and ``TriggerClause`` from the middleware
module, and summarization's error for a fraction without a model profile."""

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


def test_refusals_raise_with_the_refusal_middleware() -> None:
    compare(REFUSALS)
