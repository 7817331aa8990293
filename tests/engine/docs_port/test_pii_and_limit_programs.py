"""PII and call-limit middleware programs, real LangChain vs ported by their imports: each PII
strategy on input, output and tool results, a custom detector, a blocked email; tool and model
call limits with the ``continue`` and ``end`` exit behaviours over parallel tool calls."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

PROGRAM = """
import re
from langchain.agents import create_agent
from langchain.agents.middleware import PIIMiddleware, ToolCallLimitMiddleware, ModelCallLimitMiddleware
from langchain.tools import tool
from langchain.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    def bind_tools(self, tools, **kw):
        return self

@tool
def lookup(name: str) -> str:
    '''Look up a customer.'''
    return f"{name}: email {name.lower()}@corp.com, card 5500 0000 0000 0004, ip 10.0.0.7, site https://corp.com/u/{name}"

def show(out):
    for m in out["messages"]:
        print(" ", type(m).__name__, repr(m.content), [(c["name"], c["args"]) for c in getattr(m, "tool_calls", [])], getattr(m, "status", None))

for strategy in ("redact", "mask", "hash", "block"):
    print("==", strategy)
    model = Scripted(messages=iter([AIMessage("", tool_calls=[{"name": "lookup", "args": {"name": "Bob"}, "id": "l1"}]), AIMessage("Bob is bob@corp.com")]))
    agent = create_agent(model, tools=[lookup], middleware=[
        PIIMiddleware("email", strategy=strategy, apply_to_input=True, apply_to_output=True, apply_to_tool_results=True),
        PIIMiddleware("credit_card", strategy="mask", apply_to_tool_results=True),
        PIIMiddleware("api_key", detector=r"sk-[a-zA-Z0-9]{8,}", strategy="redact", apply_to_input=True),
    ])
    try:
        show(agent.invoke({"messages": [{"role": "user", "content": "find Bob, my key is sk-abcdef123456 and mail me at me@home.org"}]}))
    except Exception as e:
        print("RAISED", type(e).__name__, e)

print("== limits continue")
def many(n):
    return [AIMessage("", tool_calls=[{"name": "lookup", "args": {"name": f"P{i}"}, "id": f"c{i}"}, {"name": "lookup", "args": {"name": f"Q{i}"}, "id": f"d{i}"}]) for i in range(n)] + [AIMessage("done")]
for mw in [ToolCallLimitMiddleware(tool_name="lookup", run_limit=3, exit_behavior="continue"), ToolCallLimitMiddleware(run_limit=1, exit_behavior="end"), ModelCallLimitMiddleware(run_limit=1, exit_behavior="end")]:
    agent = create_agent(Scripted(messages=iter(many(4))), tools=[lookup], middleware=[mw], checkpointer=InMemorySaver())
    out = agent.invoke({"messages": [{"role": "user", "content": "go"}]}, {"configurable": {"thread_id": "t"}})
    print(type(mw).__name__, mw.exit_behavior)
    for m in out["messages"]:
        print("  ", type(m).__name__, repr(m.content)[:90], [c["id"] for c in getattr(m, "tool_calls", [])], getattr(m, "status", None))
    print("  ", sorted(k for k in out if k != "messages"), {k: v for k, v in out.items() if "count" in k})
"""


def test_pii_strategies_and_call_limit_exits() -> None:
    compare(PROGRAM)
