"""Summarization middleware programs, real LangChain vs ported by their imports: token and
message triggers (one, or a list of them), kept messages or tokens, a custom token counter,
over five turns of a checkpointed thread; what the model and the summarizer were given."""

from __future__ import annotations

import pytest

from tests.engine.docs_port.port import compare

pytest.importorskip("langchain_core")

PROGRAM = """
from langchain.agents import create_agent
from langchain.agents.middleware import SummarizationMiddleware
from langchain.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

class Scripted(GenericFakeChatModel):
    seen: list = []
    def bind_tools(self, tools, **kw):
        return self
    def _generate(self, messages, stop=None, run_manager=None, **kw):
        SEEN.append([(m.type, (m.content if isinstance(m.content, str) else str(m.content))[:40]) for m in messages])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)

SEEN = []
def count(messages):
    return sum(len(str(m.content).split()) for m in messages)

for trigger, keep in [(("tokens", 30), ("messages", 2)), ([("messages", 5), ("tokens", 1000)], ("tokens", 12)), (("messages", 4), ("messages", 1))]:
    print("==", trigger, keep)
    SEEN.clear()
    summarizer = Scripted(messages=iter([AIMessage(f"summary number {i}") for i in range(5)]))
    model = Scripted(messages=iter([AIMessage(f"answer {i} " + "word " * 6) for i in range(6)]))
    agent = create_agent(model, middleware=[SummarizationMiddleware(model=summarizer, trigger=trigger, keep=keep, token_counter=count)], checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    for turn in range(5):
        out = agent.invoke({"messages": [HumanMessage(f"question {turn} " + "pad " * 4)]}, cfg)
        print(turn, [(m.type, str(m.content)[:30]) for m in out["messages"]])
    for s in SEEN:
        print("  seen", s)
"""


def test_summaries_by_triggers_and_kept_messages() -> None:
    compare(PROGRAM)
